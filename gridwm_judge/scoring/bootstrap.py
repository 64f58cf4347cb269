"""Clustered percentile bootstrap over whole trajectory groups (paper Appendix A.5).

Every metric is a :class:`GroupRatio` (per-group numerator and denominator), so one
resample is a vector of group multiplicities ``w`` and the resampled metric is
``(w @ num) / (w @ den)``: all resamples of all metrics are one matrix product, never a
Python loop per resample. Resampling whole groups keeps every item of a group together;
``clusters`` (e.g. the environment of each group) resamples environments instead, as a
sensitivity check. Resamples whose denominator is 0 (e.g. no active group for IDR_cond)
are left out and counted in ``n_undefined``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.seeds import BOOTSTRAP_SEED

DEFAULT_RESAMPLES = 20_000
DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A percentile interval; ``low``/``high`` are None when no resample is defined."""

    low: float | None
    high: float | None
    n_resamples: int
    n_undefined: int

    def as_list(self) -> list[float | None]:
        return [self.low, self.high]


@lru_cache(maxsize=32)
def _weights(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_units) multiplicities of each unit in each resample (read-only)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n_units, size=(n_resamples, n_units))
    flat = idx + (np.arange(n_resamples) * n_units)[:, None]
    w = np.bincount(flat.ravel(), minlength=n_resamples * n_units).reshape(n_resamples, n_units)
    w = w.astype(np.float32)  # small integer counts: exact in float32, half the memory traffic
    w.setflags(write=False)
    return w


def resample_weights(
    n_units: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> np.ndarray:
    """Multiplicity matrix of a group bootstrap: row b counts how often each unit was drawn."""
    if n_units < 1:
        raise ValueError(f"cannot bootstrap {n_units} units; need at least 1")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")
    return _weights(int(n_units), int(n_resamples), int(seed))


def cluster_sums(groups: Sequence[str], num: np.ndarray, den: np.ndarray,
                 clusters: Sequence[str] | Mapping[str, str] | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per-group rows of ``num`` / ``den`` summed per cluster (unchanged when ``clusters`` is
    None): the resampling units of an environment-level bootstrap."""
    if clusters is None:
        return num, den
    labels = [clusters[g] for g in groups] if isinstance(clusters, Mapping) else list(clusters)
    if len(labels) != len(groups):
        raise ValueError(
            f"clusters has {len(labels)} entries; expected one per group ({len(groups)})"
        )
    uniq, inv = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
    agg = np.zeros((uniq.size, len(groups)))
    agg[inv, np.arange(len(groups))] = 1.0
    return agg @ num, agg @ den


def bootstrap_ratios(
    ratios: Mapping[str, GroupRatio],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = DEFAULT_LEVEL,
    clusters: Sequence[str] | Mapping[str, str] | None = None,
) -> dict[str, Interval]:
    """Percentile intervals for metrics that share one group list.

    ``clusters``: None resamples groups; otherwise the cluster of each group (a sequence
    aligned with the groups, or a mapping group -> cluster) and whole clusters are resampled.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if not ratios:
        return {}
    names = list(ratios)
    groups = ratios[names[0]].groups
    for name in names[1:]:
        if ratios[name].groups != groups:
            raise ValueError(
                f"metric {name!r} is over other groups than {names[0]!r}; bootstrap them apart"
            )
    if not groups:
        return {k: Interval(None, None, n_resamples, n_resamples) for k in names}
    num = np.stack([ratios[k].num for k in names], axis=1)
    den = np.stack([ratios[k].den for k in names], axis=1)
    num, den = cluster_sums(groups, num, den, clusters)
    w = resample_weights(num.shape[0], n_resamples, seed)
    # one float32 product for numerators and denominators (relative rounding ~1e-7)
    both = (w @ np.concatenate([num, den], axis=1).astype(np.float32)).astype(np.float64)
    s_num, s_den = both[:, : num.shape[1]], both[:, num.shape[1] :]
    defined = s_den > 0
    est = np.divide(s_num, s_den, out=np.zeros_like(s_num), where=defined)
    alpha = (1 - level) / 2
    q = [alpha, 1 - alpha]
    out: dict[str, Interval] = {}
    full = defined.all(axis=0)
    if full.any():  # every resample defined: one vectorised quantile call
        bounds = np.quantile(est[:, full], q, axis=0)
        for col, j in enumerate(np.flatnonzero(full)):
            out[names[j]] = Interval(float(bounds[0, col]), float(bounds[1, col]), n_resamples, 0)
    for j in np.flatnonzero(~full):
        vals = est[defined[:, j], j]
        if vals.size == 0:
            out[names[j]] = Interval(None, None, n_resamples, n_resamples)
            continue
        lo, hi = np.quantile(vals, q)
        out[names[j]] = Interval(float(lo), float(hi), n_resamples, int(n_resamples - vals.size))
    return {name: out[name] for name in names}


def bootstrap_ratio(ratio: GroupRatio, **kw) -> Interval:
    """Interval of a single metric (see :func:`bootstrap_ratios`)."""
    return bootstrap_ratios({"m": ratio}, **kw)["m"]

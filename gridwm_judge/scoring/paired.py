"""Paired differences between two conditions of the same groups, with a paired bootstrap CI.

The controlled analyses (Oracle-State arms, prompt styles) ask the same groups under two
conditions, so their difference is paired: one resample draws groups (or whole environments)
once and recomputes both conditions' metrics on that draw, and the interval is the percentile
interval of the drawn differences (paper Appendix D.4 / D.6; the paper leaves the method
unstated, this is the group bootstrap of Appendix A.5 applied to both arms at once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    cluster_sums,
    resample_weights,
)
from gridwm_judge.seeds import BOOTSTRAP_SEED


@dataclass(frozen=True)
class PairedDifference:
    """``value`` = metric(a) - metric(b) on the shared groups (None when either is undefined);
    ``ci`` its paired percentile interval (resamples where either arm is undefined left out)."""

    value: float | None
    ci: Interval


def paired_difference(
    a: GroupRatio,
    b: GroupRatio,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = DEFAULT_LEVEL,
    clusters: Sequence[str] | Mapping[str, str] | None = None,
) -> PairedDifference:
    """metric(a) - metric(b) with a paired bootstrap CI; ``a`` and ``b`` must share groups.

    ``clusters`` (the environment of each group) resamples environments instead of groups.
    """
    if a.groups != b.groups:
        raise ValueError(
            "paired_difference needs both arms over the same groups; got "
            f"{len(a.groups)} and {len(b.groups)} groups that differ"
        )
    va, vb = a.value, b.value
    value = None if va is None or vb is None else va - vb
    draws = _paired_draws(a, b, n_resamples=n_resamples, seed=seed, clusters=clusters)
    defined = ~np.isnan(draws)
    if not defined.any():
        return PairedDifference(value, Interval(None, None, n_resamples, n_resamples))
    alpha = (1 - level) / 2
    lo, hi = np.quantile(draws[defined], [alpha, 1 - alpha])
    return PairedDifference(
        value, Interval(float(lo), float(hi), n_resamples, int(n_resamples - defined.sum()))
    )


def _paired_draws(a: GroupRatio, b: GroupRatio, *, n_resamples: int, seed: int,
                  clusters: Sequence[str] | Mapping[str, str] | None) -> np.ndarray:
    """Per resample, metric(a) - metric(b) on one draw (NaN where either is undefined)."""
    num = np.stack([a.num, b.num], axis=1).astype(np.float64)
    den = np.stack([a.den, b.den], axis=1).astype(np.float64)
    num, den = cluster_sums(a.groups, num, den, clusters)
    if num.shape[0] == 0:
        return np.full(n_resamples, np.nan)
    w = resample_weights(num.shape[0], n_resamples, seed).astype(np.float64)
    s_num, s_den = w @ num, w @ den
    ok = (s_den > 0).all(axis=1)
    est = np.divide(s_num, s_den, out=np.full_like(s_num, np.nan), where=s_den > 0)
    return np.where(ok, est[:, 0] - est[:, 1], np.nan)


__all__ = ["PairedDifference", "paired_difference"]

"""Can two judges be told apart?

For each pair of judges scored on the same groups of a config with Full-CF pairs (Task C-style:
C, CH, MC, MCH per representation; reference-aided: D, MD, the paper's D-R) and representation,
the per-group discrimination indicator at the neutral presentation (Full accepted and CF
rejected: IDR_raw's numerator, over the groups both judges' IDR_raw counts, under the config's
protocol) is compared the way a paired design must be:

- the difference in IDR_raw with a paired bootstrap CI (groups resampled, both judges' verdicts
  kept together);
- McNemar's test on the discordant groups (one judge discriminates, the other not), Holm-adjusted
  over every pair of the comparison;
- when they cannot be told apart, the groups McNemar's test needs to detect the observed
  difference at the observed share of discordant groups (Connor's formula, as ``gridwm-judge
  plan --paired``; power 0.8 at alpha 0.05 divided by the pairs compared, Holm's strictest
  step).

It reads the graded rows ``score`` writes beside scores.json (rows.jsonl), never a second copy of
the metric: the indicator is :func:`gridwm_judge.scoring.causal.causal_metrics`'s own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from gridwm_judge.scoring import power
from gridwm_judge.scoring.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES
from gridwm_judge.scoring.causal import causal_metrics
from gridwm_judge.scoring.grading import GradedRow, verdicts
from gridwm_judge.scoring.significance import holm, mcnemar
from gridwm_judge.scoring.task_scores import canonical_rows, protocol_of
from gridwm_judge.task_table import ALL_TASKS, task_spec

PAIRED_RECIPES = ("presentation_invariance", "reference_aided")
PAIRED_TASKS = tuple(s.name for s in ALL_TASKS if s.recipe in PAIRED_RECIPES)


@dataclass(frozen=True)
class JudgePair:
    """Judges ``a`` and ``b`` on the groups both were scored on, for one task and
    representation. ``n_a_only`` groups only ``a`` discriminates, ``n_b_only`` only ``b``."""

    task: str
    representation: str
    a: str
    b: str
    groups: int
    idr_a: float
    idr_b: float
    ci: tuple[float, float]
    n_a_only: int
    n_b_only: int
    p_value: float
    p_holm: float
    method: str
    family_size: int
    """Pairs compared together (Holm's family: same task and representation)."""

    @property
    def difference(self) -> float:
        return self.idr_a - self.idr_b

    @property
    def discordance(self) -> float:
        return (self.n_a_only + self.n_b_only) / self.groups if self.groups else 0.0

    @property
    def distinguishable(self) -> bool:
        """The CI excludes 0 and McNemar rejects after Holm."""
        return not (self.ci[0] <= 0.0 <= self.ci[1]) and self.p_holm < 0.05

    @property
    def groups_needed(self) -> int | None:
        """Groups that detect the observed difference at the observed discordance, at alpha
        0.05 over the pairs compared (None: no difference was seen)."""
        d = abs(self.difference)
        if d == 0:
            return None
        return power.paired_n_observed(d, max(self.discordance, d),
                                       alpha=0.05 / max(self.family_size, 1))


def read_graded(path: str | Path) -> list[GradedRow]:
    """The graded rows of a rows.jsonl written by ``score``."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(GradedRow(**json.loads(line)))
    return out


def discrimination(rows: Sequence[GradedRow], task: str, representation: str
                   ) -> dict[str, bool]:
    """group -> discriminated (Full accepted and CF rejected), over the groups IDR_raw
    counts for one judge's rows of ``task`` and ``representation``."""
    sel = canonical_rows([r for r in rows if r.task == task
                          and r.representation == representation])
    if not sel:
        return {}
    res = causal_metrics(verdicts(sel), [r.group_id for r in sel],
                         [r.variant for r in sel], protocol=protocol_of(task_spec(task)))
    idr = res.ratios["idr_raw"]
    return {str(g): bool(n) for g, n, d in zip(idr.groups, idr.num, idr.den, strict=True) if d}


def _paired_ci(x: np.ndarray, y: np.ndarray, n_resamples: int, seed: int
               ) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_resamples, x.size))
    diffs = x[idx].mean(axis=1) - y[idx].mean(axis=1)
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    return float(lo), float(hi)


def compare_pairs(graded: Mapping[str, Sequence[GradedRow]], *,
                  n_resamples: int = DEFAULT_RESAMPLES, seed: int = BOOTSTRAP_SEED
                  ) -> list[JudgePair]:
    """Every pair of ``graded``'s judges (judge -> its graded rows) on every paired task and
    representation both answered, Holm-adjusted within each task and representation."""
    out: list[JudgePair] = []
    tasks = sorted({r.task for rows in graded.values() for r in rows if r.task in PAIRED_TASKS})
    for task in tasks:
        reps = sorted({r.representation for rows in graded.values() for r in rows
                       if r.task == task})
        for rep in reps:
            ind = {j: discrimination(rows, task, rep) for j, rows in graded.items()}
            out.extend(compare_indicators(ind, task, rep, n_resamples=n_resamples, seed=seed))
    return out


def compare_indicators(ind: Mapping[str, Mapping[str, bool]], task: str, representation: str,
                       *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = BOOTSTRAP_SEED
                       ) -> list[JudgePair]:
    """Every pair of judges of one task and representation from their per-group
    discrimination (judge -> group -> discriminated, :func:`discrimination`), over the groups
    both have, Holm-adjusted over the pairs: what a leaderboard reads from published rows."""
    found = []
    for a, b in combinations(sorted(j for j in ind if ind[j]), 2):
        shared = sorted(set(ind[a]) & set(ind[b]))
        if not shared:
            continue
        x = np.array([ind[a][g] for g in shared], dtype=float)
        y = np.array([ind[b][g] for g in shared], dtype=float)
        n_a, n_b = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
        t = mcnemar(n_b, n_a)
        found.append((a, b, len(shared), float(x.mean()), float(y.mean()),
                      _paired_ci(x, y, n_resamples, seed), n_a, n_b, t))
    adjusted = holm([f[-1].p_value for f in found]) if found else []
    return [JudgePair(task, representation, a, b, n, ia, ib, ci, n_a, n_b, t.p_value,
                      float(p), t.method, len(found))
            for (a, b, n, ia, ib, ci, n_a, n_b, t), p in zip(found, adjusted, strict=True)]

"""Comparisons across judges: composite vs split (Wilcoxon signed-rank over judges), Holm over
the family of compared metrics. ``score`` runs it over the judges it scores, ``report`` over
the union of the runs it shows."""

from __future__ import annotations

from collections.abc import Mapping

from gridwm_judge.records import JudgeScores
from gridwm_judge.schema import REPRESENTATIONS
from gridwm_judge.scoring.significance import holm, wilcoxon

COMPARED = ("jacc_neu", "p_active", "idr_raw")


def compare_judges(judges: Mapping[str, JudgeScores]) -> dict:
    """{"C_composite_vs_split": {metric: {statistic, p_value, p_holm, method, n_judges,
    n_nonzero}}} over the judges scored on both representations."""
    tests = {}
    for metric in COMPARED:
        x, y = [], []
        for scores in judges.values():
            a, b = (scores.results.value(task="C", name=metric, representation=rep)
                    for rep in REPRESENTATIONS)
            if a is not None and b is not None:
                x.append(a)
                y.append(b)
        if len(x) >= 2:
            t = wilcoxon(x, y)
            tests[metric] = {
                "statistic": t.statistic,
                "p_value": t.p_value,
                "method": t.method,
                "n_judges": len(x),
                "n_nonzero": t.n,
            }
    if tests:
        adj = holm([t["p_value"] for t in tests.values()])
        for t, p in zip(tests.values(), adj, strict=True):
            t["p_holm"] = float(p)
    return {"C_composite_vs_split": tests}

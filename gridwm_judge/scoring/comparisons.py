"""Comparisons across judges: composite vs split (Wilcoxon signed-rank over judges), Holm over
the family of compared metrics. ``score`` runs it over the judges it scores, ``report`` over
the union of the runs it shows.

Each test is a result of Task C (``name`` "wilcoxon", ``condition`` the compared metric,
``representation`` "split" against ``baseline`` "composite"; ``value`` the statistic,
``denominator`` the nonzero differences, ``p_value``, ``method``), beside its ``p_holm`` and
the ``n_judges`` compared."""

from __future__ import annotations

from collections.abc import Mapping

from gridwm_judge.records import JudgeScores
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.schema import REPRESENTATIONS
from gridwm_judge.scoring.significance import holm, wilcoxon

COMPARED = ("jacc_neu", "p_active", "idr_raw")
TASK = "C"
SCOPE = {"task": TASK, "world": "minigrid", "representation": REPRESENTATIONS[1],
         "baseline": REPRESENTATIONS[0]}
"""Where a composite-vs-split test sits among the results (split against composite)."""


def compare_judges(judges: Mapping[str, JudgeScores]) -> Results:
    """The Wilcoxon test of each metric in ``COMPARED`` (with its Holm-adjusted p and the
    number of judges) over the judges scored on both representations; none below 2 judges."""
    tests = {}
    for metric in COMPARED:
        x, y = [], []
        for scores in judges.values():
            a, b = (scores.results.value(task=TASK, name=metric, representation=rep)
                    for rep in REPRESENTATIONS)
            if a is not None and b is not None:
                x.append(a)
                y.append(b)
        if len(x) >= 2:
            tests[metric] = (wilcoxon(x, y), len(x))
    out: list[MetricResult] = []
    adjusted = holm([t.p_value for t, _n in tests.values()]) if tests else ()
    for (metric, (t, n)), p in zip(tests.items(), adjusted, strict=True):
        scope = {**SCOPE, "condition": metric}
        out += [MetricResult(**scope, name="wilcoxon", value=t.statistic, denominator=t.n,
                             p_value=t.p_value, method=t.method),
                MetricResult(**scope, name="p_holm", value=float(p)),
                MetricResult(**scope, name="n_judges", value=float(n))]
    return Results(out)

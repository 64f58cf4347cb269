"""The local controls' tables: perception (Task B), state tracking (Task E) and action use
(Task A) beside each other (paper Table 4), and a world's next-state task on its own (MiniWorld's
MA, which has no B or E). The tasks are found by recipe in the task table."""

from __future__ import annotations

from gridwm_judge.formats import p_is
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import Table, fdiff, shown
from gridwm_judge.report.tables import (
    MINIWORLD_NOTE,
    NOT_RUN,
    control,
    coverage_note,
    invalid,
    metric_of,
)
from gridwm_judge.task_table import task_spec, world_task

RECIPES = ("next_state", "perception", "state_tracking")
"""The control recipes, Table 4's tasks A, B, E."""
A_NOTE = ("Acc_A1 chance = 0.25. Delta = Acc_orig - Acc_shuffled/masked, paired by question; "
          "invalid answers count as incorrect")


def _delta(entry: JudgeEntry, task: str, condition: str) -> str:
    """Delta_<condition> as a difference of proportions with its CI and the paired questions
    behind it, then McNemar's test of the paired answers."""
    text = fdiff(metric_of(control(entry, task), f"delta_{condition}"), "paired questions")
    test = entry.results.one(task=task, name="mcnemar", condition=condition)
    if test is not None and test.p_value is not None:
        text += f", McNemar {p_is(test.p_value)} (n = {test.denominator})"
    return text


def controls(data: ReportData, world: str = "minigrid") -> Table:
    """Paper Table 4: B_Acc@0.90, B_MeanScore, E_Acc, Acc_A1 and the deltas per judge; "not
    run" where the judge was not asked the task."""
    a, b, e_task = (world_task(r, world) for r in RECIPES)
    rows = []
    for e in data.judges:
        ca, cb, ce = (control(e, t) for t in (a, b, e_task))
        rows.append(
            (
                e.label,
                metric_of(cb, "b_acc_090") if cb else NOT_RUN,
                shown(metric_of(cb, "b_mean_score"), unit="items") if cb else NOT_RUN,
                metric_of(ce, "e_acc") if ce else NOT_RUN,
                metric_of(ca, "acc_a1") if ca else NOT_RUN,
                _delta(e, a, "shuffle") if ca else NOT_RUN,
                _delta(e, a, "mask") if ca else NOT_RUN,
                f"{a} {invalid(e, a)}, {b} {invalid(e, b)}, {e_task} {invalid(e, e_task)}",
            )
        )
    return Table(
        "controls",
        "Local controls: perception, state tracking, action use (paper Table 4)",
        ("judge", "B_Acc@0.90", "B_MeanScore", "E_Acc", "Acc_A1", "Delta_shuffle",
         "Delta_mask", "invalid"),
        tuple(rows),
        (f"{A_NOTE} (B score 0); 'not run': the judge was not asked this task.",
         *coverage_note(data, (a, b, e_task))),
    )


def next_state(data: ReportData, world: str = "miniworld") -> Table:
    """A world's next-state task alone (MiniWorld's MA): Acc_A1 and the deltas per judge
    that was scored on it."""
    a = world_task("next_state", world)
    rows = []
    for e in data.judges:
        ca = control(e, a)
        if ca is None:
            continue
        rows.append((e.label, metric_of(ca, "acc_a1"), _delta(e, a, "shuffle"),
                     _delta(e, a, "mask"), invalid(e, a)))
    config = task_spec(a).config
    return Table(
        config,
        f"MiniWorld (3D) Task A: next first-person view given the action (config {config})",
        ("judge", "Acc_A1", "Delta_shuffle", "Delta_mask", f"invalid {a}"),
        tuple(rows),
        (MINIWORLD_NOTE, f"{A_NOTE}.", *coverage_note(data, (a,))),
    )

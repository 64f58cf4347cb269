"""MiniWorld (3D) tables: its own section of the report, never pooled with MiniGrid's."""

from __future__ import annotations

from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.table import Table
from gridwm_judge.report.tables import (
    MINIWORLD_NOTE,
    _m,
    _with_p,
    coverage_note,
    invalid,
    task_c,
    task_d,
)


def miniworld_c(data: ReportData) -> Table:
    t = task_c(data, "MC", "miniworld_c", "MiniWorld (3D) Task C: correctness and causal "
               "sensitivity on first-person storyboards (config miniworld_c)")
    return Table(t.key, t.title, t.columns, t.rows, (MINIWORLD_NOTE, *t.notes))


def miniworld_d(data: ReportData) -> Table:
    t = task_d(data, "MD", "miniworld_d", "MiniWorld (3D) reference-aided Task D on "
               "first-person storyboards (config miniworld_d)")
    return Table(t.key, t.title, t.columns, t.rows, (MINIWORLD_NOTE, *t.notes))


def miniworld_a(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        a = e.scores.block("MA")
        if a is None:
            continue
        mc = a.get("mcnemar", {})
        rows.append((e.label, _m(a, "acc_a1"), _with_p(_m(a, "delta_shuffle"), mc.get("shuffle")),
                     _with_p(_m(a, "delta_mask"), mc.get("mask")), invalid(e, "MA")))
    return Table(
        "miniworld_a",
        "MiniWorld (3D) Task A: next first-person view given the action (config miniworld_a)",
        ("judge", "Acc_A1", "Delta_shuffle", "Delta_mask", "invalid MA"),
        tuple(rows),
        (MINIWORLD_NOTE, "Acc_A1 chance = 0.25. Delta = Acc_orig - Acc_shuffled/masked, paired by "
         "question; invalid answers count as incorrect.", *coverage_note(data, ("MA",))),
    )

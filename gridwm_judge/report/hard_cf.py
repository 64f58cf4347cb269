"""Hard counterfactuals beside the paper's: per judge and family, IDR_raw, p_active
and Acc_cf on a paper config and on its hard counterpart (``TaskSpec.paper``: C and CH; a
MiniWorld pair the same way), each with its CI, and the best shortcut's IDR_raw on each.

The figures are the composite items' causal block (the scope of the shortcut ceiling,
:data:`gridwm_judge.report.shortcuts.SCOPE`), whole config ("all") then per family. A judge
that reads the trajectory keeps its IDR_raw on the hard config; one that leans on a static cue
loses it there, and the shortcut columns show how much a rule that ignores the trajectory gets
on each.
"""

from __future__ import annotations

from typing import Any

from gridwm_judge.report import shortcuts
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import Cell, Table
from gridwm_judge.report.tables import metric_of
from gridwm_judge.scoring.scopes import Scope
from gridwm_judge.task_table import ALL_TASKS

PAIRS: tuple[tuple[str, str], ...] = tuple((t.paper, t.name) for t in ALL_TASKS if t.paper)
"""(paper task, hard task) pairs, in task-table order."""
METRICS = ("idr_raw", "p_active", "acc_cf")


def asked(data: ReportData) -> bool:
    return any(data.asked((hard,)) for _, hard in PAIRS)


def _scope(entry: JudgeEntry, task: str, family: str) -> Scope | None:
    blk = shortcuts.ceiling_scope(entry, task)
    if blk is None or family == "all":
        return blk
    return blk.family(family)


def _families(data: ReportData, tasks: tuple[str, str]) -> list[str]:
    fams: set[str] = set()
    for e in data.judges:
        for t in tasks:
            blk = shortcuts.ceiling_scope(e, t)
            fams |= set(blk.families() if blk is not None else ())
    return ["all", *sorted(fams)]


def _best(data: ReportData, task: str, family: str) -> Cell | str:
    return shortcuts.best_cell(
        shortcuts.best_shortcut(data, task, None if family == "all" else family))


def table(data: ReportData) -> Table:
    """One row per (judge, pair, family): the paper config's figures, then the hard one's."""
    rows = []
    for paper, hard in PAIRS:
        if not data.asked((hard,)):
            continue
        for fam in _families(data, (paper, hard)):
            for e in data.judges:
                if shortcuts.is_shortcut(e) or not e.asked((paper, hard)):
                    continue
                cells: list[Any] = [e.label, f"{paper} / {hard}", fam]
                for task in (paper, hard):
                    blk = _scope(e, task, fam)
                    cells += [metric_of(blk, m) for m in METRICS]
                    cells.append(_best(data, task, fam))
                rows.append(tuple(cells))
    cols = ("judge", "configs", "family",
            *(f"{side} {m}" for side in ("paper", "hard") for m in
              (*("IDR_raw", "p_active", "Acc_cf"), "best shortcut IDR_raw")))
    notes = ["Composite items at the neutral presentation, per family (groups: Full-CF pairs). "
             "A hard CF keeps Full's objects and target in its first frame and fails because "
             "of where things are along the way; the static-cue gate rejected groups that "
             "baseline:first-frame or a NoCue mark separates. The last-frame rule reads the "
             "outcome and is not gated: it may still score on the hard config."]
    if not any(shortcuts.is_shortcut(e) for e in data.judges):
        notes.append(shortcuts.NOT_RUN_NOTE)
    return Table("hard_counterfactuals",
                 "Hard counterfactuals beside the paper's: IDR_raw, p_active, Acc_cf per family",
                 cols, tuple(rows), tuple(notes))

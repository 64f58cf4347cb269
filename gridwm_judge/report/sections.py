"""Which tables a report holds: MiniGrid's, then MiniWorld's own section when any judge was
asked a MiniWorld task, then the Oracle-State section when any judge was asked it."""

from __future__ import annotations

from gridwm_judge.report import oracle_state
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.miniworld_tables import miniworld_a, miniworld_c, miniworld_d
from gridwm_judge.report.table import Table
from gridwm_judge.report.tables import (
    composite_split,
    controls,
    headline,
    stability,
    task_c,
    task_d,
)
from gridwm_judge.task_table import MINIWORLD_TASKS


def all_tables(data: ReportData) -> tuple[Table, ...]:
    """The MiniGrid tables, then MiniWorld's own section when any judge answered it, then the
    Oracle-State section when any judge was asked it."""
    tables = (
        headline(data),
        task_c(data),
        composite_split(data),
        controls(data),
        task_d(data),
        stability(data),
    )
    asked = any((cov := e.scores.coverage.get(t.name)) is not None and cov.asked
                for e in data.judges for t in MINIWORLD_TASKS)
    tables += ((miniworld_a(data), miniworld_c(data), miniworld_d(data),
                stability(data, "miniworld")) if asked else ())
    return tables + oracle_state.tables(data)

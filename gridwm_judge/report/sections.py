"""Which tables and figures a report holds: MiniGrid's, then MiniWorld's own section when any
judge was asked a MiniWorld task, then the prompt ablation's and the Oracle-State control's,
each when any judge was asked it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gridwm_judge.report import oracle_state as os_
from gridwm_judge.report import prompt_ablation as pa
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.miniworld_tables import miniworld_a, miniworld_c, miniworld_d
from gridwm_judge.report.plots import FIGURES
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
    prompt ablation's and the Oracle-State control's when any judge was asked them."""
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
    if pa.asked(data):
        tables += (pa.prompt_ablation(data), pa.prompt_ablation_paired(data))
    return tables + os_.tables(data)


def all_figures(data: ReportData) -> dict[str, Callable[[ReportData, Path], Path]]:
    """File name -> figure function: MiniGrid's, then the prompt ablation's and the
    Oracle-State control's when asked."""
    return {**FIGURES, **({pa.FIGURE: pa.fig_prompt_ablation} if pa.asked(data) else {}),
            **({os_.FIGURE: os_.fig_differences} if os_.asked(data) else {})}

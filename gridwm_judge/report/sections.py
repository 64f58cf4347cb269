"""Which tables and figures a report holds: MiniGrid's, then MiniWorld's own section when any
judge was asked a MiniWorld task (its headline stands beside MiniGrid's), then the prompt
ablation's and the Oracle-State control's, each when any judge was asked it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gridwm_judge.report import hard_cf, judge_pairs, shortcuts
from gridwm_judge.report import oracle_state as os_
from gridwm_judge.report import prompt_ablation as pa
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.miniworld_tables import (
    miniworld_asked,
    miniworld_section,
    miniworld_summary,
)
from gridwm_judge.report.plots import FIGURES, MINIWORLD_FIGURES
from gridwm_judge.report.table import Table
from gridwm_judge.report.tables import (
    composite_split,
    controls,
    headline,
    stability,
    task_c,
    task_d,
)
from gridwm_judge.task_table import ALL_TASKS, TASK_NAMES, TASKS


def minigrid_shown(data: ReportData) -> bool:
    """MiniGrid's tables and figures are drawn when a judge was asked a MiniGrid task, or when
    nothing else was asked (a report of MiniWorld or control runs alone has none of them)."""
    others = tuple(t.name for t in ALL_TASKS if t not in TASKS)
    return data.asked(TASK_NAMES) or not data.asked(others)


def all_tables(data: ReportData) -> tuple[Table, ...]:
    """The MiniGrid tables, then MiniWorld's own section when any judge answered it, then the
    prompt ablation's and the Oracle-State control's when any judge was asked them, the hard
    counterfactuals beside the paper's when any judge was asked a hard config, then the
    shortcut ceiling and the judges beside it, then which pairs of judges can be told apart
    (two or more judges asked a Task C-style config)."""
    tables: tuple[Table, ...] = (headline(data),) if minigrid_shown(data) else ()
    tables += miniworld_summary(data)
    if minigrid_shown(data):
        tables += (task_c(data), composite_split(data), controls(data), task_d(data),
                   stability(data))
    tables += miniworld_section(data)
    if pa.asked(data):
        tables += (pa.prompt_ablation(data), pa.prompt_ablation_paired(data))
    tables += os_.tables(data)
    if hard_cf.asked(data):
        tables += (hard_cf.table(data),)
    tables += (shortcuts.ceiling(data), shortcuts.beside_judges(data))
    return tables + ((judge_pairs.table(data),) if judge_pairs.asked(data) else ())


def all_figures(data: ReportData) -> dict[str, Callable[[ReportData, Path], Path]]:
    """File name -> figure function: MiniGrid's, then MiniWorld's, the prompt ablation's and
    the Oracle-State control's, each when asked."""
    return {**(FIGURES if minigrid_shown(data) else {}),
            **(MINIWORLD_FIGURES if miniworld_asked(data) else {}),
            **({pa.FIGURE: pa.fig_prompt_ablation} if pa.asked(data) else {}),
            **({os_.FIGURE: os_.fig_differences} if os_.asked(data) else {})}

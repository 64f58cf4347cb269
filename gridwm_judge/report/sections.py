"""Which tables and figures a report holds: one registry, each entry naming the tasks it reads
(found by recipe and world in the task table) and drawn only when a judge was asked one of
them, so a report shows what was run and says what was not (:meth:`ReportData.not_run`).

Order: MiniGrid's headline and MiniWorld's beside it, MiniGrid's tables, MiniWorld's own
(never pooled with MiniGrid's), the prompt ablation's and the Oracle-State control's, the hard
counterfactuals beside the paper's, the shortcut ceiling and the judges beside it, and which
pairs of judges can be told apart. A new table is one entry here and a function in the module
of its kind (:mod:`.tables`, :mod:`.headline`, :mod:`.controls`, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Generic, TypeVar

from gridwm_judge.report import cost, hard_cf, judge_pairs, paper_release, shortcuts
from gridwm_judge.report import oracle_state as os_
from gridwm_judge.report import prompt_ablation as pa
from gridwm_judge.report.controls import controls, next_state
from gridwm_judge.report.headline import headline, tasks
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.plots import (
    fig_activation,
    fig_controls,
    fig_miniworld_controls,
    fig_shift,
    fig_stability,
)
from gridwm_judge.report.table import Table
from gridwm_judge.report.tables import composite_split, stability, task_c, task_d
from gridwm_judge.task_table import ALL_TASKS, task_spec, world_task

Drawn = TypeVar("Drawn")


@dataclass(frozen=True)
class Section(Generic[Drawn]):
    """A table (file stem ``name``) or a figure (file name ``name``): drawn when a judge was
    asked one of ``tasks`` (and ``shown`` says so, where given)."""

    name: str
    tasks: tuple[str, ...]
    draw: Drawn
    shown: Callable[[ReportData], bool] | None = None

    def wanted(self, data: ReportData) -> bool:
        return data.asked(self.tasks) and (self.shown is None or self.shown(data))


MG, MW = "minigrid", "miniworld"
A, C, D = tasks(MG)
B, E = world_task("perception", MG), world_task("state_tracking", MG)
MA, MC, MD = tasks(MW)
PA, OS = world_task("prompt_ablation", MG), world_task("oracle_state", MG)
HARD = tuple(hard for _paper, hard in hard_cf.PAIRS)
EVERY = tuple(t.name for t in ALL_TASKS)


def _config(task: str) -> str:
    return task_spec(task).config


VARIANT_TABLES: dict[str, Callable[..., Table]] = {
    "presentation_invariance": task_c, "reference_aided": task_d}
"""The table of a recipe drawn for any one of its tasks (``task=``)."""

TableSection = Section[Callable[[ReportData], Table]]
TABLES: tuple[TableSection, ...] = (
    Section("headline", (C, D), partial(headline, world=MG)),
    Section("miniworld_headline", (MA, MC, MD), partial(headline, world=MW)),
    Section(_config(C), (C,), partial(task_c, task=C)),
    Section("composite_split", (C,), composite_split),
    Section("controls", (A, B, E), partial(controls, world=MG)),
    Section(_config(D), (D,), partial(task_d, task=D)),
    Section("stability", (C, D), partial(stability, world=MG)),
    Section(_config(MA), (MA,), partial(next_state, world=MW)),
    Section(_config(MC), (MC,), partial(
        task_c, task=MC, title="MiniWorld (3D) Task C: correctness and causal sensitivity on "
        f"first-person storyboards (config {_config(MC)})")),
    Section(_config(MD), (MD,), partial(
        task_d, task=MD, title="MiniWorld (3D) reference-aided Task D on first-person "
        f"storyboards (config {_config(MD)})")),
    Section("miniworld_stability", (MC, MD), partial(
        stability, world=MW,
        title=f"MiniWorld (3D) presentation stability per probe family ({MC}, {MD})")),
    Section("prompt_ablation", (PA,), pa.prompt_ablation),
    Section("prompt_ablation_paired", (PA,), pa.prompt_ablation_paired),
    Section("oracle_state_stages", (OS,), os_.stages),
    Section("oracle_state_idr", (OS,), os_.idr),
    Section("oracle_state_differences", (OS,), os_.differences),
    Section("hard_counterfactuals", HARD, hard_cf.table),
    Section("paper_task_d_r", (paper_release.TASK,), paper_release.task_d_r),
    Section("paper_exams", paper_release.EXAMS, paper_release.paper_exams),
    Section("parse_agreement", paper_release.PAPER, paper_release.parse_agreement,
            shown=paper_release.has_published_parse),
    Section("shortcut_ceiling", EVERY, shortcuts.ceiling),
    Section("shortcut_vs_judges", EVERY, shortcuts.beside_judges),
    Section("judge_pairs", judge_pairs.PAIRED_TASKS, judge_pairs.table,
            shown=judge_pairs.asked),
    *(Section(t.config, (t.name,), partial(
        VARIANT_TABLES[t.recipe], task=t.name,
        title=f"{t.name} (config {t.config}, a variant of {t.variant_of}): {t.role}"))
      for t in ALL_TASKS if t.variant_of and t.recipe in VARIANT_TABLES),
    Section("cost", EVERY, cost.cost_table, shown=cost.reported_usage),
)
"""Every table a report may hold, in report order (a config that is a ``variant_of`` another
gets its recipe's table, before the cost)."""

FigureSection = Section[Callable[[ReportData, Path], Path]]
FIGURES: tuple[FigureSection, ...] = (
    Section("fig3a_activation_idr.png", (C,), fig_activation),
    Section("fig3b_composite_split.png", (C,), fig_shift),
    Section("fig4_stability.png", (C, D), fig_stability),
    Section("fig5_controls.png", (C, D, A, B, E), fig_controls),
    Section("miniworld_fig3a_activation_idr.png", (MC,), partial(
        fig_activation, task=MC, title=f"MiniWorld (3D) {MC}: activation vs raw intervention "
        "detection\n(Fig. 3a counterpart)")),
    Section("miniworld_fig3b_composite_split.png", (MC,), partial(
        fig_shift, task=MC, title=f"MiniWorld (3D) {MC}: composite -> split shift per judge\n"
        "(Fig. 3b counterpart)")),
    Section("miniworld_fig4_stability.png", (MC, MD), partial(
        fig_stability, world=MW,
        title=f"by probe family, MiniWorld (3D) {MC} and {MD} (Fig. 4 counterpart)")),
    Section("miniworld_fig5_idr_actions.png", (MA, MC, MD), fig_miniworld_controls),
    Section(pa.FIGURE, (PA,), pa.fig_prompt_ablation),
    Section(os_.FIGURE, (OS,), os_.fig_differences),
)
"""Every figure a report may hold; each is drawn over the judges asked its tasks."""


def all_tables(data: ReportData) -> tuple[Table, ...]:
    """The tables of the sections whose tasks a judge was asked, in report order."""
    return tuple(s.draw(data) for s in TABLES if s.wanted(data))


def all_figures(data: ReportData) -> dict[str, Callable[[ReportData, Path], Path]]:
    """File name -> figure function (over the judges asked its tasks), for the figures whose
    tasks a judge was asked."""
    def over(section: FigureSection) -> Callable[[ReportData, Path], Path]:
        return lambda d, path: section.draw(d.only(section.tasks), path)

    return {s.name: over(s) for s in FIGURES if s.wanted(data)}

"""Scoring recipes: how the rows of one kind of task are graded and scored.

A task's entry in :mod:`gridwm_judge.task_table` names its recipe; a new config that asks the
same kind of question (e.g. a second world's storyboards) reuses a recipe, a new kind of
question adds one here. A scorer returns the task's flat results
(:class:`~gridwm_judge.results.MetricResult`), each with its scope.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridwm_judge.results import MetricResult, Results
from gridwm_judge.scoring import task_scores
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.grading import (
    GradedRow,
    Grader,
    grade_choice,
    grade_label,
    grade_perception,
    grade_verdict,
)
from gridwm_judge.scoring.oracle_state import grade_staged, score_oracle_state
from gridwm_judge.scoring.prompt_ablation import score_prompt_ablation
from gridwm_judge.task_table import TaskSpec

TaskScorer = Callable[[Sequence[GradedRow], TaskSpec, Settings], Results]
"""One task's graded rows (one judge) -> its results."""


@dataclass(frozen=True)
class Recipe:
    grade: Grader
    score: TaskScorer


RECIPES: dict[str, Recipe] = {
    "next_state": Recipe(grade_choice, task_scores.score_task_a),
    "perception": Recipe(grade_perception, task_scores.score_task_b),
    "presentation_invariance": Recipe(grade_verdict, task_scores.score_task_c),
    "reference_aided": Recipe(grade_verdict, task_scores.score_task_d),
    "state_tracking": Recipe(grade_label, task_scores.score_task_e),
    "prompt_ablation": Recipe(grade_verdict, score_prompt_ablation),
    "oracle_state": Recipe(grade_staged, score_oracle_state),
}


NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "next_state": (("delta_shuffle", "shuffled-action rows"),
                   ("delta_mask", "masked-action rows")),
    "presentation_invariance": (("vcc_rep", "split storyboards"),),
}
"""recipe -> (figure, the rows it needs) for the figures a recipe gives only when its items
hold those rows (an imported exam may not: :func:`not_defined`)."""


def not_defined(spec: TaskSpec, results: Results) -> list[MetricResult]:
    """For an imported config (the paper's release), each figure of its recipe's
    :data:`NEEDS` that its items could not give, as an ``undefined`` result saying why (its
    ``detail``: the rows it lacks): a metric is "not defined on these items", never left out
    silently or invented."""
    if not spec.imported:
        return []
    return [MetricResult(spec.name, spec.world, name, None, status="undefined", detail=rows,
                         note=f"not defined on these items: the release holds no {rows}")
            for name, rows in NEEDS.get(spec.recipe, ())
            if not results.select(task=spec.name, name=name)]


def recipe_for(spec: TaskSpec) -> Recipe:
    if spec.recipe not in RECIPES:
        raise ValueError(
            f"task {spec.name!r} names unknown recipe {spec.recipe!r}; "
            f"expected one of {', '.join(RECIPES)}"
        )
    return RECIPES[spec.recipe]

"""lmms-eval hook functions for the GridWM-Judge task YAMLs beside this file
(``lmms-eval --include_path <this folder> --tasks gridwm_task_c ...``; MiniWorld:
``gridwm_miniworld_c`` etc. over a build of the ``miniworld`` profile).

The model sees the row's images in the dataset's order and the prompt unchanged. Each answer
is graded by the package's parser and grader (:func:`~gridwm_judge.integrations.items.
grade_response`); every metric's per-document value is that graded row, and each aggregation
computes the task's figures over all rows with the scorer's own recipe, so IDR, p_active, NS,
JCR and VCC_rep are group-level metrics, equal to ``gridwm-judge score``'s point estimates for
the same answers. Task A and MiniWorld's MA print accuracy per action condition only
(``acc_a1`` for orig, ``acc_shuffle``, ``acc_mask``: each condition's rows alone, so their
clustered standard errors are the condition's) and no ``accuracy`` pooled over the three.
lmms-eval passes only the generated text, so a truncated answer cannot be told apart here (it
is graded as ``ok``); ``gridwm-judge eval`` records truncation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from gridwm_judge.integrations.items import (
    CONDITION_FIGURES,
    Figures,
    grade_response,
    pooled_accuracy,
    task_figures,
)
from gridwm_judge.schema import EVIDENCE, REPRESENTATIONS
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.score import ROW_COLUMNS
from gridwm_judge.scoring.task_scores import C_PROBE_FAMILIES, D_PROBE_FAMILIES
from gridwm_judge.task_table import ALL_TASKS, TaskSpec, task_spec

_RECIPE_FIGURES: dict[str, tuple[Figures, ...]] = {
    "next_state": (Figures((*CONDITION_FIGURES["next_state"], "delta_shuffle", "delta_mask")),),
    "perception": (Figures(("b_mean_score", "b_acc_090")),),
    "presentation_invariance": (
        Figures(("idr_raw", "p_active"), representation=REPRESENTATIONS),
        Figures(("ns", "jcr"), probe=tuple(f.name for f in C_PROBE_FAMILIES),
                representation=("composite",)),
        Figures(("vcc_rep",))),
    "reference_aided": (Figures(("idr_raw", "idr_cond", "p_active")),
                        Figures(("ns", "jcr"), probe=tuple(f.name for f in D_PROBE_FAMILIES))),
    "state_tracking": (Figures(("e_acc", "e_mean_score")),),
    "oracle_state": (Figures(("joint", "idr_raw", "p_active"), side=EVIDENCE),
                     Figures(("vcc_oracle", "vcc_pixel_state"))),
}
"""By scoring recipe, which of its figures a YAML lists: metric names of the results'
registry at the scopes the recipe gives them (the names follow the bridges' one rule,
:func:`~gridwm_judge.integrations.items.flat_name`); a name outside the registry is a
ValueError naming it and the task, never a metric that prints NaN."""
_STYLE_FIGURES = ("idr_raw", "p_active", "acc_full", "acc_cf")
"""A prompt style's figures (its YAML holds that style's rows only: the styles' budgets
differ, and lmms-eval has one per task); the paired differences between styles are
``gridwm-judge score``'s."""


def figures_of(spec: TaskSpec, style: str = "") -> tuple[str, ...]:
    """The figures the YAML of ``spec`` (of its rows in prompt ``style``) lists in
    ``metric_list``, after ``accuracy`` where it has one (:func:`metrics_of`), by its scoring
    recipe: MiniWorld's MA / MC / MD list the figures of A / C / D (the same metric
    functions). A style ``spec`` is not asked in is a ValueError."""
    where = f"lmms-eval's figures of {spec.config}" + (f" in style {style!r}" if style else "")
    if style:
        if style not in spec.styles:
            raise ValueError(f"{spec.config} has no prompt style {style!r}; expected one of "
                             f"{', '.join(spec.styles) or 'none'}")
        return Figures(_STYLE_FIGURES, side=(style,)).names(where)
    if spec.recipe not in _RECIPE_FIGURES:
        raise ValueError(f"no lmms-eval figures for {spec.config}'s recipe {spec.recipe!r}; "
                         f"expected one of {', '.join(_RECIPE_FIGURES)}")
    also = Figures(("idr_raw", "p_active"), protocol=spec.also_protocols)
    figures = (*_RECIPE_FIGURES[spec.recipe], *((also,) if spec.also_protocols else ()))
    return tuple(name for f in figures for name in f.names(where))


FIGURES: dict[str, tuple[str, ...]] = {
    **{t.name: figures_of(t) for t in ALL_TASKS if not t.styles},
    **{f"{t.name}/{style}": figures_of(t, style) for t in ALL_TASKS for style in t.styles},
}
""":func:`figures_of` each YAML, keyed by task (and ``TASK/STYLE`` for a task asked in prompt
styles)."""


def metrics_of(spec: TaskSpec, style: str = "") -> tuple[str, ...]:
    """The ``metric_list`` of the YAML of ``spec`` (in prompt ``style``): ``accuracy`` (the
    share of correct answers over all rows) first, except for a task whose rows are one
    question asked under several action conditions (A, MA), then its figures."""
    figures = figures_of(spec, style)
    return ("accuracy", *figures) if pooled_accuracy(spec) else figures


def metric_names(key: str) -> tuple[str, ...]:
    """:func:`metrics_of` the task of :data:`FIGURES` key ``key`` (``TASK`` or
    ``TASK/STYLE``)."""
    task, _, style = key.partition("/")
    return metrics_of(task_spec(task), style)


def figure_set(row: Mapping[str, Any]) -> str:
    """The :data:`FIGURES` key of a graded row: its task, with its prompt style if it has one."""
    style = row.get("prompt_style") or ""
    return f"{row['task']}/{style}" if style else str(row["task"])


def doc_to_visual(doc: Mapping[str, Any]) -> list:
    """The row's images, in the dataset's order, as RGB PIL images."""
    return [image.convert("RGB") for image in doc["images"]]


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping | None = None) -> str:
    """The prompt, unchanged (no pre- or post-prompt: the answer format is part of it)."""
    return doc["prompt"]


def _audit(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: doc[k] for k in ROW_COLUMNS if k in doc}


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, dict]:
    """The graded row of this document under every metric name of its task, except the
    figures of another action condition (an orig row is not in ``acc_shuffle``'s list)."""
    row = grade_response(results[0] if results else None, _audit(doc)).to_json()
    task = task_spec(str(row["task"]))
    own = CONDITION_FIGURES.get(task.recipe, {})
    return {name: row for name in metric_names(figure_set(row))
            if own.get(name, row["action_condition"]) == row["action_condition"]}


def _rows(results: Sequence[Mapping[str, Any]]) -> list[GradedRow]:
    return [GradedRow(**r) for r in results]


def agg_accuracy(results: Sequence[Mapping[str, Any]]) -> float:
    """Share of correct answers (an invalid answer is incorrect)."""
    rows = _rows(results)
    return sum(r.correct for r in rows) / len(rows) if rows else math.nan


def _figure(name: str):
    def aggregate(results: Sequence[Mapping[str, Any]]) -> float:
        value = task_figures(_rows(results)).get(name)
        return math.nan if value is None else float(value)  # NaN: undefined on this set

    aggregate.__name__ = f"agg_{name}"
    aggregate.__doc__ = f"{name} over all documents' graded rows (NaN when undefined)."
    return aggregate


def _docs_in(style: str):
    def process_docs(dataset):
        return dataset.filter(lambda s: s == style, input_columns="prompt_style")

    process_docs.__name__ = f"docs_{style}"
    process_docs.__doc__ = f"The rows asked in prompt style {style!r} (a YAML's process_docs)."
    return process_docs


for _name in sorted({n for names in FIGURES.values() for n in names}):
    globals()[f"agg_{_name}"] = _figure(_name)  # the YAMLs' ``!function utils.agg_NAME``
for _style in sorted({s for t in ALL_TASKS for s in t.styles}):
    globals()[f"docs_{_style}"] = _docs_in(_style)

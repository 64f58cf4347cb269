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
    grade_response,
    pooled_accuracy,
    printed_names,
    task_figures,
)
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.score import ROW_COLUMNS
from gridwm_judge.task_table import ALL_TASKS, TaskSpec, task_spec


def figures_of(spec: TaskSpec, style: str = "") -> tuple[str, ...]:
    """The figures the YAML of ``spec`` (of its rows in prompt ``style``) lists in
    ``metric_list``, after ``accuracy`` where it has one (:func:`metrics_of`): the figures both
    bridges print (:func:`~gridwm_judge.integrations.items.printed_names`, by its scoring
    recipe: MiniWorld's MA / MC / MD list the figures of A / C / D). A style ``spec`` is not
    asked in is a ValueError; so is a metric outside the results' registry, naming the task."""
    return printed_names(spec, style)


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

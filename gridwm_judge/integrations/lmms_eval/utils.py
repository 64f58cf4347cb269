"""lmms-eval hook functions for the GridWM-Judge task YAMLs beside this file
(``lmms-eval --include_path <this folder> --tasks gridwm_task_c ...``; MiniWorld:
``gridwm_miniworld_c`` etc. over a build of the ``miniworld`` profile).

The model sees the row's images in the dataset's order and the prompt unchanged. Each answer
is graded by the package's parser and grader (:func:`~gridwm_judge.integrations.items.
grade_response`); every metric's per-document value is that graded row, and each aggregation
computes the task's figures over all rows with the scorer's own recipe, so IDR, p_active, NS,
JCR and VCC_rep are group-level metrics, equal to ``gridwm-judge score``'s point estimates for
the same answers. lmms-eval passes only the generated text, so a truncated answer cannot be
told apart here (it is graded as ``ok``); ``gridwm-judge eval`` records truncation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from gridwm_judge.integrations.items import grade_response, task_figures
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.score import ROW_COLUMNS
from gridwm_judge.task_table import MINIWORLD_TASKS, TASKS

_RECIPE_FIGURES: dict[str, tuple[str, ...]] = {
    "next_state": ("acc_a1", "delta_shuffle", "delta_mask"),
    "perception": ("b_mean_score", "b_acc_090"),
    "presentation_invariance": (
        "idr_raw_composite", "idr_raw_split", "p_active_composite", "p_active_split",
        "ns_temporal_composite", "ns_visual_composite", "ns_framing_composite",
        "jcr_temporal_composite", "jcr_visual_composite", "jcr_framing_composite", "vcc_rep"),
    "reference_aided": ("idr_raw", "idr_cond", "p_active", "ns_framing", "ns_visual",
                        "jcr_framing", "jcr_visual"),
    "state_tracking": ("e_acc", "e_mean_score"),
}
FIGURES: dict[str, tuple[str, ...]] = {
    t.name: _RECIPE_FIGURES[t.recipe] for t in (*TASKS, *MINIWORLD_TASKS)}
"""The figures each task's YAML lists in ``metric_list`` (besides ``accuracy``), by its scoring
recipe: MiniWorld's MA / MC / MD list the figures of A / C / D (the same metric functions)."""


def doc_to_visual(doc: Mapping[str, Any]) -> list:
    """The row's images, in the dataset's order, as RGB PIL images."""
    return [image.convert("RGB") for image in doc["images"]]


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping | None = None) -> str:
    """The prompt, unchanged (no pre- or post-prompt: the answer format is part of it)."""
    return doc["prompt"]


def _audit(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: doc[k] for k in ROW_COLUMNS if k in doc}


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, dict]:
    """The graded row of this document under every metric name of its task."""
    row = grade_response(results[0] if results else None, _audit(doc)).to_json()
    return {name: row for name in ("accuracy", *FIGURES[row["task"]])}


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


agg_acc_a1 = _figure("acc_a1")
agg_delta_shuffle = _figure("delta_shuffle")
agg_delta_mask = _figure("delta_mask")
agg_b_mean_score = _figure("b_mean_score")
agg_b_acc_090 = _figure("b_acc_090")
agg_idr_raw_composite = _figure("idr_raw_composite")
agg_idr_raw_split = _figure("idr_raw_split")
agg_p_active_composite = _figure("p_active_composite")
agg_p_active_split = _figure("p_active_split")
agg_ns_temporal_composite = _figure("ns_temporal_composite")
agg_ns_visual_composite = _figure("ns_visual_composite")
agg_ns_framing_composite = _figure("ns_framing_composite")
agg_jcr_temporal_composite = _figure("jcr_temporal_composite")
agg_jcr_visual_composite = _figure("jcr_visual_composite")
agg_jcr_framing_composite = _figure("jcr_framing_composite")
agg_vcc_rep = _figure("vcc_rep")
agg_idr_raw = _figure("idr_raw")
agg_idr_cond = _figure("idr_cond")
agg_p_active = _figure("p_active")
agg_ns_framing = _figure("ns_framing")
agg_ns_visual = _figure("ns_visual")
agg_jcr_framing = _figure("jcr_framing")
agg_jcr_visual = _figure("jcr_visual")
agg_e_acc = _figure("e_acc")
agg_e_mean_score = _figure("e_mean_score")

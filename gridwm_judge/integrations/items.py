"""What every framework bridge needs from the package, with no framework imported: the dataset's
items as plain values, one answer graded the way ``gridwm-judge score`` grades it, and a task's
headline figures computed by the scorer's own recipe.

The figures come from the same recipe function ``score`` runs (:mod:`gridwm_judge.scoring.
recipes`), without the bootstrap and the LES fit, so a framework's printed IDR / NS / JCR /
VCC equal the point estimates in ``scores.json`` for the same answers by construction.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from gridwm_judge import results as registry
from gridwm_judge.dataset_io import load_task
from gridwm_judge.item_hash import item_digest, stored_image_bytes
from gridwm_judge.judges.base import status_for
from gridwm_judge.parsing import parse_answer
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.schema import ACTION_CONDITIONS, EVIDENCE, PROMPT_STYLES, REPRESENTATIONS
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.grading import GradedRow, graded_row
from gridwm_judge.scoring.oracle_state import STAGE_METRICS
from gridwm_judge.scoring.prompt_ablation import PAIRED_METRICS, PAIRS
from gridwm_judge.scoring.recipes import recipe_for
from gridwm_judge.scoring.score import ROW_COLUMNS
from gridwm_judge.scoring.task_scores import C_PROBE_FAMILIES, D_PROBE_FAMILIES, accuracy_name
from gridwm_judge.task_table import TaskSpec, task_spec

if TYPE_CHECKING:
    import pyarrow as pa

BRIDGE_JUDGE = "bridge"
"""Judge name on graded rows built inside a framework (the framework knows the model)."""
_BATCH = 32
CONDITION_FIGURES: dict[str, dict[str, str]] = {
    "next_state": {accuracy_name(c): c for c in ACTION_CONDITIONS},
}
"""By scoring recipe, the figures that one action condition's rows alone define (figure ->
condition): Task A's and MiniWorld's MA accuracy under orig (``acc_a1``), shuffle
(``acc_shuffle``) and mask (``acc_mask``). These tasks ask each question three ways, so an
accuracy over all their rows would pool the true action with a wrong and a hidden one:
:func:`pooled_accuracy` is False for them and the bridges print accuracy per condition only."""


def pooled_accuracy(spec: TaskSpec) -> bool:
    """Whether a bridge prints the share of correct answers over all of ``spec``'s rows: not
    where the rows are one question asked under several conditions (:data:`CONDITION_FIGURES`)."""
    return spec.recipe not in CONDITION_FIGURES


@dataclass(frozen=True)
class Item:
    """One model-facing dataset row: prompt and encoded images in the dataset's order, the
    audit columns scoring needs (never shown to a model) and the item digest."""

    uid: str
    task: str
    prompt: str
    images: tuple[bytes, ...]
    audit: Mapping[str, Any]
    item_digest: str


def load_items(dataset: str, config: str, representation: str | None = None) -> list[Item]:
    """Every row of ``config`` (a local build folder or a Hub id) as an :class:`Item`, in the
    dataset's order; ``representation`` keeps rows of that representation (and rows that have
    none), as ``gridwm-judge eval --representation`` does."""
    spec = task_spec(config)
    if representation is not None and representation not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {representation!r}; "
                         f"expected one of {', '.join(REPRESENTATIONS)}")
    ds = load_task(dataset, spec.config)
    cols = ["prompt", "images", *(c for c in ROW_COLUMNS if c in ds.column_names)]
    out: list[Item] = []
    for batch in ds.select_columns(cols).with_format("arrow").iter(batch_size=_BATCH):
        for row in cast("pa.Table", batch).to_pylist():  # the arrow format's batches
            uid = str(row["uid"])
            if representation is not None and row.get("representation") not in (
                    "", None, representation):
                continue
            images = tuple(stored_image_bytes(im, uid) for im in row.pop("images") or ())
            prompt = row.pop("prompt")
            row["task"] = spec.name
            out.append(Item(uid, spec.name, prompt, images, row,
                            item_digest(spec.name, prompt, images)))
    return out


def image_data_uri(data: bytes) -> str:
    """A ``data:`` URI of stored image bytes, unchanged (no decoding, no re-encoding)."""
    if data.startswith(b"\x89PNG"):
        mime = "image/png"
    elif data.startswith(b"\xff\xd8"):
        mime = "image/jpeg"
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    else:
        raise ValueError(f"unknown image encoding (first bytes {data[:8]!r}); "
                         "expected PNG, JPEG or WebP as the builder stores them")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def grade_response(raw: str | None, audit: Mapping[str, Any], *, truncated: bool = False,
                   judge: str = BRIDGE_JUDGE) -> GradedRow:
    """Grade one answer that came back for the row ``audit`` (its audit columns with uid and
    task): status, the one parser, the task's grader, as ``score`` does."""
    spec = task_spec(str(audit["task"]))
    status = status_for(raw, truncated)
    parsed = parse_answer(spec.name, raw, truncated=status == "truncated",
                          style=str(audit.get("prompt_style") or ""))
    grade = recipe_for(spec).grade(parsed.value, audit)
    return graded_row(judge, audit, status, parsed.mode, parsed.value, grade)


def task_results(rows: Sequence[GradedRow]) -> Results:
    """One task's results from its graded rows, by the task's recipe (no bootstrap, no LES
    fit: point estimates)."""
    tasks = sorted({r.task for r in rows})
    if not tasks:
        return Results()
    if len(tasks) > 1:
        raise ValueError(f"task_results takes the rows of one task; got {', '.join(tasks)}")
    spec = task_spec(tasks[0])
    return recipe_for(spec).score(list(rows), spec, Settings(with_les=False, intervals=False))


def flat_name(name: str, *, probe: str | None = None, representation: str | None = None,
              side: str | None = None, baseline: str | None = None,
              protocol: str | None = None) -> str:
    """The one naming rule of a figure in a framework's summary: the metric, then its probe
    family, representation, arm or style (``side``), ``side-baseline`` for a paired
    difference, and a protocol besides its task's own, joined by ``_`` (unset parts left
    out)."""
    parts = [name, probe, representation,
             side if baseline is None else f"{side}-{baseline}", protocol]
    return "_".join(p for p in parts if p)


def figure_name(r: MetricResult) -> str:
    """A figure's name in a framework's summary (:func:`flat_name`): ``ns_framing_composite``,
    ``joint_pixel_state``, ``idr_raw_structured_verdict-direct``; a causal figure under a
    protocol besides its task's own ends with it (the paper's D-R: ``idr_raw_eligible_pairs``;
    probe families are always read over the verdicts given, and keep their names)."""
    extra = (r.protocol if r.probe is None and r.protocol in task_spec(r.task).also_protocols
             else None)
    return flat_name(r.name, probe=r.probe, representation=r.representation,
                     side=r.arm or r.style, baseline=r.baseline, protocol=extra)


def known_figures(names: Iterable[str], where: str) -> tuple[str, ...]:
    """``names``, each a figure of the results' registry (:data:`gridwm_judge.results.
    FIGURE_NAMES`, read now); any other name is a ValueError naming it and ``where`` it came
    from (a bridge that printed it would print NaN forever)."""
    out = tuple(names)
    for name in out:
        if name not in registry.METRIC_NAMES:
            raise ValueError(f"unknown metric name {name!r} in {where}; expected a figure of "
                             f"gridwm_judge.results.FIGURE_NAMES: "
                             f"{', '.join(registry.FIGURE_NAMES)}")
        if name not in registry.FIGURE_NAMES:
            raise ValueError(f"metric {name!r} in {where} is not a figure (a count, flag, "
                             "detail or test): a bridge prints figures only")
    return out


PRINT_GROUPS: dict[str, str] = {
    "task_metrics": "The figures of a task that asks no verdict (A: accuracy per action "
                    "condition and its drops; B: mean score and share at 0.9; E: accuracy "
                    "and mean score).",
    "idr": "IDR_raw / IDR_cond / IDR_rev at phi0 (per representation for Task C, per evidence "
           "arm or prompt style for the controls).",
    "p_active": "Share of groups whose Full trajectory is judged a success.",
    "ns": "Nuisance Stability per presentation family (and representation, Task C).",
    "jcr": "Joint Consistency Rate per presentation family (and representation, Task C).",
    "vcc_rep": "Verdict consistency of composite and split representations.",
    "stages": "Oracle-State stage accuracies per evidence arm: task type, objective, verdict "
              "and joint (all three right).",
    "accept_reject": "Full accepted (acc_full) and CF rejected (acc_cf) per evidence arm or "
                     "prompt style.",
    "vcc_arms": "VCC_oracle (State-arm verdict = Pixel-arm verdict, paper Eq. 29) and the same "
                "agreement for Pixel+State.",
    "style_differences": "Paired differences between prompt styles (a-b) of IDR_raw, acc_full "
                         "and acc_cf, over groups answered in every style.",
}
"""The groups a bridge prints figures in, and what each holds: inspect_ai prints each group as
one metric of that name; lmms-eval lists their figures one by one."""


@dataclass(frozen=True)
class Figures:
    """Figures a bridge prints in ``group`` (of :data:`PRINT_GROUPS`): each metric of
    ``metrics`` at each scope of the product of the scope values given (metric by metric, then
    probe, representation, side, protocol); ``pairs`` (side, baseline) names paired
    differences instead of levels."""

    group: str
    metrics: tuple[str, ...]
    probe: tuple[str | None, ...] = (None,)
    representation: tuple[str | None, ...] = (None,)
    side: tuple[str | None, ...] = (None,)
    protocol: tuple[str | None, ...] = (None,)
    pairs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.group not in PRINT_GROUPS:
            raise ValueError(f"unknown figure group {self.group!r}; expected one of "
                             f"{', '.join(PRINT_GROUPS)}")

    def named(self, where: str) -> dict[str, str]:
        """Their :func:`flat_name` names, each with its metric's name (a metric outside the
        registry is a ValueError naming it and ``where`` it was asked)."""
        sides = self.pairs or tuple((s, None) for s in self.side)
        return {flat_name(m, probe=p, representation=r, side=s, baseline=b, protocol=q): m
                for m in known_figures(self.metrics, where)
                for p, r, (s, b), q in itertools.product(self.probe, self.representation,
                                                         sides, self.protocol)}

    def in_style(self, style: str) -> Figures | None:
        """These figures of prompt style ``style`` alone (None when they are none: figures of
        no style, or differences between styles)."""
        return None if self.pairs or style not in self.side else replace(self, side=(style,))


_IDR = ("idr_raw", "idr_cond", "idr_rev")
_C_PROBES = tuple(f.name for f in C_PROBE_FAMILIES)
PRINTED: dict[str, tuple[Figures, ...]] = {
    "next_state": (Figures("task_metrics", (*CONDITION_FIGURES["next_state"], "delta_shuffle",
                                            "delta_mask")),),
    "perception": (Figures("task_metrics", ("b_mean_score", "b_acc_090")),),
    "presentation_invariance": (
        Figures("idr", _IDR, representation=REPRESENTATIONS),
        Figures("p_active", ("p_active",), representation=REPRESENTATIONS),
        Figures("ns", ("ns",), probe=_C_PROBES, representation=REPRESENTATIONS),
        Figures("jcr", ("jcr",), probe=_C_PROBES, representation=REPRESENTATIONS),
        Figures("vcc_rep", ("vcc_rep",))),
    "reference_aided": (
        Figures("idr", _IDR), Figures("p_active", ("p_active",)),
        Figures("ns", ("ns",), probe=tuple(f.name for f in D_PROBE_FAMILIES)),
        Figures("jcr", ("jcr",), probe=tuple(f.name for f in D_PROBE_FAMILIES))),
    "state_tracking": (Figures("task_metrics", ("e_acc", "e_mean_score")),),
    "oracle_state": (
        Figures("stages", STAGE_METRICS, side=EVIDENCE),
        Figures("idr", _IDR, side=EVIDENCE),
        Figures("p_active", ("p_active",), side=EVIDENCE),
        Figures("accept_reject", ("acc_full", "acc_cf"), side=EVIDENCE),
        Figures("vcc_arms", ("vcc_oracle", "vcc_oracle_given_success",
                             "vcc_oracle_given_failure", "vcc_pixel_state",
                             "vcc_pixel_state_given_success",
                             "vcc_pixel_state_given_failure"))),
    "prompt_ablation": (
        Figures("idr", _IDR, side=PROMPT_STYLES),
        Figures("p_active", ("p_active",), side=PROMPT_STYLES),
        Figures("accept_reject", ("acc_full", "acc_cf"), side=PROMPT_STYLES),
        Figures("style_differences", PAIRED_METRICS, pairs=PAIRS)),
}
"""By scoring recipe, the figures both bridges print (metric names of the results' registry at
the scopes the recipe gives them): the one list a new figure joins to be printed by inspect_ai
and lmms-eval. Figures the recipe also writes (acc_full per representation, flips, NoCue
accuracy, ...) are left to ``gridwm-judge score``."""


def printed(spec: TaskSpec, style: str = "") -> tuple[Figures, ...]:
    """The figures the bridges print for ``spec`` (of its rows in prompt ``style`` alone, for
    lmms-eval's one YAML per style): :data:`PRINTED` of its recipe at the scopes its rows can
    have, and IDR and p_active under each protocol it also reads (the paper's D-R:
    ``idr_raw_eligible_pairs``). An unknown recipe or a style ``spec`` is not asked in is a
    ValueError."""
    if spec.recipe not in PRINTED:
        raise ValueError(f"no printed figures for {spec.config}'s recipe {spec.recipe!r}; "
                         f"expected one of {', '.join(PRINTED)}")
    also = ((Figures("idr", _IDR, protocol=spec.also_protocols),
             Figures("p_active", ("p_active",), protocol=spec.also_protocols))
            if spec.also_protocols else ())
    figures = tuple(f for f in (_fitted(f, spec) for f in (*PRINTED[spec.recipe], *also))
                    if f is not None)
    if not style:
        return figures
    if style not in spec.styles:
        raise ValueError(f"{spec.config} has no prompt style {style!r}; expected one of "
                         f"{', '.join(spec.styles) or 'none'}")
    return tuple(f for f in (g.in_style(style) for g in figures) if f is not None)


def _fitted(f: Figures, spec: TaskSpec) -> Figures | None:
    """``f`` at the scopes ``spec``'s rows can have: no probe family where the rows are not
    ``probed``; composite storyboards alone (and no composite-vs-split agreement) where they
    are not also ``split``."""
    if f.probe != (None,) and not spec.probed:
        return None
    if not spec.split and "split" in f.representation:
        return replace(f, representation=tuple(r for r in f.representation if r != "split"))
    if not spec.split and f.group == "vcc_rep":
        return None
    return f


def printed_metrics(spec: TaskSpec, style: str = "", group: str | None = None
                    ) -> dict[str, str]:
    """The :func:`flat_name` names of :func:`printed` (of one ``group`` alone when given),
    each with its metric's name."""
    where = f"the printed figures of {spec.config}" + (f" in style {style!r}" if style else "")
    return {name: metric for f in printed(spec, style) if group in (None, f.group)
            for name, metric in f.named(where).items()}


def printed_names(spec: TaskSpec, style: str = "", group: str | None = None
                  ) -> tuple[str, ...]:
    """The :func:`flat_name` names of :func:`printed` (of one ``group`` alone when given)."""
    return tuple(printed_metrics(spec, style, group))


def summary_figures(results: Results) -> Results:
    """The figures a framework prints: every figure of the whole task (per representation,
    probe family, arm, style; paired differences), not its per-family or per-condition rows,
    which are left to ``gridwm-judge score``."""
    return Results(r for r in results
                   if r.is_figure and r.family is None and r.condition is None)


def task_figures(rows: Sequence[GradedRow]) -> dict[str, float | None]:
    """The point estimates of one task's figures by :func:`figure_name`: ``idr_raw_composite``,
    ``ns_temporal_split``, ``vcc_rep`` (Task C), ``idr_raw``, ``jcr_framing`` (Task D),
    ``acc_a1``, ``joint_pixel_state`` (Oracle-State), ``p_active_structured_verdict`` (prompt
    ablation) ... None where a metric is undefined (its set is empty)."""
    return {figure_name(r): r.value for r in summary_figures(task_results(rows))}

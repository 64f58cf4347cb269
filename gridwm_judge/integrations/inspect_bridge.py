"""How inspect_ai asks and scores a dataset config: :func:`gridwm_task` builds the inspect Task
of one config with the metrics its recipe prints (:func:`inspect_metrics`). The ``@task``
functions, one per config of the task table, are :mod:`gridwm_judge.integrations.inspect_tasks`
(generated from the table, registered through inspect's package entry point), so with the
``inspect`` extra (``pip install -e ".[inspect]"`` in a clone)::

    inspect eval gridwm_judge/task_c -T dataset=PATH_OR_HUB_ID --model MODEL

MiniWorld's configs (``miniworld_a``, ``miniworld_c``, ``miniworld_d``, ``miniworld_c_hard``;
a build of the ``miniworld`` profile) are tasks of their own, scored by the same recipes as
Tasks A, C and D. So are the controlled analyses: ``oracle_state`` (its State arm is text
only: a sample with no image) and ``prompt_ablation``, whose three prompt styles are asked in
one eval, each row with its style's budget (the task's budget, or ``--max-tokens``, times the
style's factor, as ``gridwm-judge eval`` does); their per-arm / per-style figures and the
styles' paired differences are printed, the bootstrap CIs and McNemar tests are left to
``gridwm-judge score``. Task A and MA print accuracy per action condition only (``acc_a1``
for orig, ``acc_shuffle``, ``acc_mask``, with their clustered standard errors) and no accuracy
pooled over the three.

Each sample is one dataset row: the row's images as inspect image content in the dataset's
order, then the prompt unchanged (the order the package's own judges send). Decoding is the
task table's: temperature 0 and the task's max tokens. The scorer reads the answer with the
package's one parser and grader; the metrics (IDR, p_active, NS, JCR, VCC_rep) are computed
over whole groups by the scorer's own recipe (:func:`gridwm_judge.integrations.items.
task_figures`) from the graded rows the scorer stores in each score's metadata.

A sample whose generation errored is not scored by inspect, just as ``score`` never scores an
errored request. This module imports inspect_ai at the top: it is loaded by inspect itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import cast

from inspect_ai import Task
from inspect_ai import __version__ as inspect_version
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    GenerateConfig,
)
from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from gridwm_judge import __version__
from gridwm_judge.dataset_io import dataset_fingerprint
from gridwm_judge.integrations.items import (
    CONDITION_FIGURES,
    PRINT_GROUPS,
    Item,
    figure_name,
    grade_response,
    image_data_uri,
    load_items,
    pooled_accuracy,
    printed,
    printed_names,
    summary_figures,
    task_results,
)
from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.results import MetricResult
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.task_table import TaskSpec, task_spec

GRADED_KEY = "gridwm_graded"
"""Score metadata key holding the graded row (what the group metrics are computed from)."""


def _sample(item: Item) -> Sample:
    content: list[Content] = [ContentImage(image=image_data_uri(b)) for b in item.images]
    content.append(ContentText(text=item.prompt))
    messages: list[ChatMessage] = [ChatMessageUser(content=content)]
    return Sample(
        input=messages,
        target=str(item.audit.get("answer") or ""),
        id=item.uid,
        metadata={**item.audit, "item_digest": item.item_digest},
    )


def _graded(scores: list[SampleScore]) -> list[GradedRow]:
    return [GradedRow(**s.score.metadata[GRADED_KEY]) for s in scores
            if s.score.metadata and GRADED_KEY in s.score.metadata]


def _figures(select: Callable[[MetricResult], bool]) -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        figures = summary_figures(task_results(_graded(scores)))
        return {figure_name(r): float(r.value) for r in figures
                if select(r) and r.value is not None}

    return compute


@metric
def condition_stderr() -> Metric:
    """Standard error of each action condition's accuracy (``acc_a1_stderr``,
    ``acc_shuffle_stderr``, ``acc_mask_stderr``), over that condition's samples only,
    clustered by trajectory group."""
    clustered = cast(MetricProtocol, stderr(cluster="group_id"))  # it reads SampleScores

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {}
        for recipe_figures in CONDITION_FIGURES.values():
            for name, condition in recipe_figures.items():
                mine = [s for s in scores
                        if (s.sample_metadata or {}).get("action_condition") == condition]
                if mine:
                    out[f"{name}_stderr"] = cast(float, clustered(mine))
        return out

    return compute


def _printed(group: str) -> Callable[[MetricResult], bool]:
    """The figures of ``group`` that their task prints (:func:`~gridwm_judge.integrations.
    items.printed_names`: the figures lmms-eval lists for the same task)."""
    return lambda r: figure_name(r) in printed_names(task_spec(r.task), group=group)


def _group_metric(group: str) -> Callable[[], Metric]:
    def factory() -> Metric:
        return _figures(_printed(group))

    factory.__name__ = factory.__qualname__ = group
    factory.__doc__ = PRINT_GROUPS[group]
    return metric(name=group)(factory)


METRICS: dict[str, Callable[[], Metric]] = {
    "accuracy": accuracy,
    "stderr": stderr,
    "condition_stderr": condition_stderr,
    **{group: _group_metric(group) for group in PRINT_GROUPS},
}
"""The metrics a task may print, by the name :func:`gridwm_task` takes: the share of correct
answers with its standard error, each action condition's standard error, and the figure groups
of :data:`~gridwm_judge.integrations.items.PRINT_GROUPS` (a task prints the figures of a group
that its recipe prints, and nothing for another group)."""


def inspect_metrics(spec: TaskSpec) -> tuple[str, ...]:
    """The metrics :func:`gridwm_task` prints for ``spec`` (names of :data:`METRICS`): accuracy
    with its standard error (per action condition for the tasks asked under several), then the
    groups of the figures it prints, in order."""
    overall = ("accuracy", "stderr") if pooled_accuracy(spec) else ("condition_stderr",)
    return (*overall, *dict.fromkeys(f.group for f in printed(spec)))


@scorer(metrics=[accuracy(), stderr()])
def gridwm_answer() -> Callable:
    """Parse and grade with the package's parser and grader; correct = 1, else 0."""

    async def score(state: TaskState, target: Target) -> Score:
        raw = state.output.completion if state.output else None
        truncated = bool(state.output) and state.output.stop_reason == "max_tokens"
        audit = {**state.metadata, "uid": str(state.sample_id)}
        row = grade_response(raw, audit, truncated=truncated)
        return Score(
            value=1.0 if row.correct else 0.0,
            answer=None if row.parsed is None else str(row.parsed),
            explanation=f"status {row.status}, parse {row.parse_mode}, gold {row.gold!r}",
            metadata={GRADED_KEY: row.to_json()},
        )

    return score


def _active_budget() -> int | None:
    """The eval's max_tokens (the task's, or ``--max-tokens``): inspect has no public reader
    for the generate config a solver runs under, so this reads its context variable. An
    inspect without it gets the table's budgets, with a warning (``--max-tokens`` is then not
    applied to styled rows)."""
    try:
        from inspect_ai.model._generate_config import active_generate_config
    except ImportError:
        warnings.warn(f"inspect_ai {inspect_version} has no active_generate_config: prompt-style "
                      "rows get the task table's budgets, not --max-tokens", stacklevel=2)
        return None
    return active_generate_config().max_tokens


@solver
def generate_in_style_budget() -> Solver:
    """Generate with the row's prompt-style budget (the prompt ablation's rationale style gets
    4x): the eval's max_tokens is the task's budget, scaled per row as ``eval`` scales it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = task_spec(str(state.metadata["task"]))
        style = str(state.metadata.get("prompt_style") or "")
        return await generate(state, max_tokens=spec.budget(style, _active_budget()))

    return solve


def gridwm_task(config: str, dataset: str, representation: str | None = None, *,
                metrics: Sequence[str] | None = None) -> Task:
    """The inspect Task of one dataset config, printing ``metrics`` (names of
    :data:`METRICS`; default :func:`inspect_metrics` of the config)."""
    spec = task_spec(config)
    printed_names(spec)  # a figure outside the results' registry is an error now, not NaN later
    metrics = inspect_metrics(spec) if metrics is None else metrics
    unknown = [n for n in metrics if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown inspect metric(s) {unknown}; expected some of "
                         f"{', '.join(METRICS)}")
    empty = [n for n in metrics if n in PRINT_GROUPS and not printed_names(spec, group=n)]
    if empty:
        raise ValueError(f"{spec.config} prints no figures in {', '.join(empty)}; its groups "
                         f"are {', '.join(g for g in inspect_metrics(spec) if g in PRINT_GROUPS)}")
    items = load_items(dataset, spec.config, representation)
    if not items:
        raise ValueError(f"dataset {dataset!r} config {spec.config!r} has no rows "
                         f"for representation {representation!r}")
    return Task(
        dataset=MemoryDataset([_sample(i) for i in items], name=f"gridwm-judge/{spec.config}",
                              location=str(dataset)),
        solver=generate_in_style_budget() if spec.styles else generate(),
        scorer=gridwm_answer(),
        metrics=[METRICS[n]() for n in metrics],
        config=GenerateConfig(temperature=0.0, max_tokens=spec.max_tokens),
        name=spec.config,
        metadata={
            "gridwm_task": spec.name,
            "gridwm_config": spec.config,
            "dataset": str(dataset),
            "dataset_fingerprint": dataset_fingerprint(dataset),
            "representation": representation,
            "max_tokens": spec.max_tokens,
            "prompt_version": PROMPT_VERSION,
            "package_version": __version__,
        },
    )

"""The figures the benchmark publishes: one Hub task id per headline figure of a config.

A benchmark repo on the Hub declares its tasks in ``eval.yaml`` and a model's scores point at
them by task id (``.eval_results/*.yaml``); a leaderboard ranks judges by one of them. Which
figures those are is decided here, once, from the task table: per scoring recipe, the figures
the report's headline reads (a causal config's IDR_raw and JAcc_neu, the least stable probe
family's NS and JCR, VCC; Task A's accuracy; Task E's). A config's task ids are
``<config>-<figure>``, e.g. ``task_c_hard-idr_raw``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gridwm_judge.results import MetricResult, Results
from gridwm_judge.task_table import TaskSpec, task_spec

LEAST = "_min"
"""A figure named ``<metric>_min`` is the least of ``metric`` over the probe families (the
headline's NS_min, JCR_min): the value, CI and groups of that family's result."""

RECIPE_FIGURES: dict[str, tuple[tuple[str, str], ...]] = {
    "presentation_invariance": (
        ("idr_raw", "IDR_raw: the share of Full-CF pairs whose verdict follows the "
                    "counterfactual (composite storyboards, eligible pairs)"),
        ("jacc_neu", "JAcc_neu: the share of groups whose successful (Full) trajectory is "
                     "judged a success at the neutral presentation (composite; a judge that "
                     "always says Yes scores 1: read it beside IDR_raw)"),
        ("ns" + LEAST, "NS_min: the least Normalized Stability over the presentation probe "
                       "families (composite)"),
        ("jcr" + LEAST, "JCR_min: the least Judgment Consistency Rate over the presentation "
                        "probe families (composite)"),
        ("vcc_rep", "VCC: the share of items answered alike as a composite storyboard and as "
                    "split frames"),
    ),
    "reference_aided": (
        ("idr_raw", "IDR_raw: the share of Full-CF pairs judged Success / Fail as the "
                    "counterfactual says, against a successful reference (all groups)"),
        ("jacc_neu", "JAcc_neu: the share of groups whose successful (Full) query is judged "
                     "Success (all groups; a judge that always says Success scores 1: read it "
                     "beside IDR_raw)"),
    ),
    "next_state": (("acc_a1", "Acc_A1: accuracy of the action-conditioned next state "
                              "(A-D)"),),
    "state_tracking": (("e_acc", "E accuracy: the first picked-up object's identity and "
                                 "status"),),
}
"""recipe -> (figure, what it measures) of the figures published per config, in order. A
recipe not named here (Task B's perception, the controls) publishes none. All figures are
proportions in [0, 1], higher is better."""

PROBED = ("ns" + LEAST, "jcr" + LEAST)
"""Figures over presentation probes: a config that is not ``probed`` publishes none."""
SPLIT_ONLY = ("vcc_rep",)
"""Figures over composite and split storyboards: a config without ``split`` ones has none."""


@dataclass(frozen=True)
class Headline:
    """One published figure of one config: its Hub task id and how it is read from results."""

    config: str
    task: str
    figure: str
    description: str

    @property
    def id(self) -> str:
        return f"{self.config}-{self.figure}"

    @property
    def metric(self) -> str:
        return self.figure.removesuffix(LEAST)

    def pick(self, results: Results) -> MetricResult | None:
        """This figure among one judge's ``results``: the config's headline scope (composite
        storyboards where the task has representations, the task's own protocol), or for a
        ``_min`` figure the least over that scope's probe families; None when not defined."""
        spec = task_spec(self.task)
        found = [r for r in results.select(task=self.task, name=self.metric, family=None,
                                           condition=None, arm=None, style=None, baseline=None)
                 if r.value is not None and (r.probe is not None) == self.figure.endswith(LEAST)]
        for want in ({"protocol": spec.protocol}, {}):
            scoped = [r for r in found if all(getattr(r, k) == v for k, v in want.items())]
            for rep in ("composite", None):
                chosen = [r for r in scoped if r.representation == rep]
                if chosen:
                    return min(chosen, key=lambda r: r.value or 0.0)
        return None


def figures_of(spec: TaskSpec) -> tuple[tuple[str, str], ...]:
    """The (figure, description) pairs ``spec``'s config publishes."""
    figures = RECIPE_FIGURES.get(spec.recipe, ())
    dropped = (() if spec.probed else PROBED) + (() if spec.split else SPLIT_ONLY)
    return tuple(f for f in figures if f[0] not in dropped)


def headlines(configs: Iterable[str]) -> tuple[Headline, ...]:
    """Every published figure of ``configs`` (config names or task names), in the given order."""
    out = []
    for name in configs:
        spec = task_spec(name)
        out.extend(Headline(spec.config, spec.name, fig, text) for fig, text in figures_of(spec))
    return tuple(out)


def headline(task_id: str, configs: Sequence[str]) -> Headline:
    """The headline of Hub task id ``task_id`` (``<config>-<figure>``) among ``configs``; a
    ValueError names the known ids."""
    known = headlines(configs)
    for h in known:
        if h.id == task_id:
            return h
    raise ValueError(f"unknown headline {task_id!r}; expected one of "
                     f"{', '.join(h.id for h in known) or 'none'}")


BENCHMARK_NAME = "GridWM-Judge"
FRAMEWORK = "gridwm-judge"
"""``evaluation_framework`` of eval.yaml and ``.eval_results`` entries: this package."""
EVAL_YAML = "eval.yaml"
_DESCRIPTION = (
    "GridWM-Judge tests whether a vision-language model judge changes its verdict for the "
    "right reason: MiniGrid and MiniWorld trajectories whose outcome the simulator knows, "
    "with matched variants (Full success, NoCue evidence removal, CF counterfactual failure) "
    "and presentation probes (frame order, noise/style, prompt framing, composite vs split "
    "images). Every figure is a proportion in [0, 1], higher is better; task ids are "
    "<config>-<figure>.")


def eval_yaml(configs: Iterable[str], split: str) -> str:
    """The benchmark's ``eval.yaml`` (the Hub's keys: ``name``, ``description``,
    ``evaluation_framework``, ``tasks`` of ``id`` / ``config`` / ``split``) for a dataset
    holding ``configs``; each task's meaning is a comment above it."""
    import yaml

    head = yaml.safe_dump({"name": BENCHMARK_NAME, "description": _DESCRIPTION,
                           "evaluation_framework": FRAMEWORK},
                          sort_keys=False, width=96, allow_unicode=True)
    found = headlines(configs)
    lines = [head.rstrip("\n"),
             "tasks:" if found else "tasks: []  # no config here publishes a figure"]
    for h in found:
        lines.append(f"  # {h.description}")
        lines.append(f"  - id: {h.id}\n    config: {h.config}\n    split: {split}")
    return "\n".join(lines) + "\n"

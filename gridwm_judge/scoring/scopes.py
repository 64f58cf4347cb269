"""Named views over a judge's flat results: one causal block, one probe family.

A causal block (a representation of Task C, Task D, a prompt style, an Oracle-State arm, one
environment family of any of them) is the set of results sharing one scope; the diagnosis and
the report read its figures, counts and flags through :class:`CausalScope` instead of
rebuilding the scope in every reader. :func:`causal_scopes` lists a world's causal scopes by
recipe, in task-table order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gridwm_judge.results import MetricResult, Results
from gridwm_judge.scoring.causal import DEGENERATE_FLAGS
from gridwm_judge.task_table import ALL_TASKS, task_spec, world_of

IDR_COND_RULE = {"undefined": "undefined", "descriptive": "unstable", "ok": "ok"}
"""An IDR_cond result's status as the reporting rule names it."""
_NARROWER = ("family", "probe", "condition", "baseline")
"""Scope fields that narrow a scope further (its own figures have them unset)."""
IDR_COND_STATUS = {rule: status for status, rule in IDR_COND_RULE.items()}
"""The reporting rule's name (:func:`.causal.idr_cond_status`) as an IDR_cond result's status."""


@dataclass(frozen=True)
class Scope:
    """The results of one scope (``where``: task and the scope fields that are set)."""

    label: str
    where: Mapping[str, Any]
    results: Results

    @property
    def task(self) -> str:
        return str(self.where["task"])

    def metric(self, name: str) -> MetricResult | None:
        return self.results.one(name=name, **self.where)

    def value(self, name: str) -> float | None:
        r = self.metric(name)
        return None if r is None else r.value

    def count(self, name: str) -> int | None:
        v = self.value(name)
        return None if v is None else int(v)

    def families(self) -> tuple[str, ...]:
        """The environment families of its per-family rows, sorted."""
        fams = self.results.select(**self.where).values_of("family")
        return tuple(sorted(f for f in fams if f is not None))

    @property
    def descriptive(self) -> bool:
        """Whether its figures are descriptive by the reporting rule (too few groups)."""
        return any(r.status == "descriptive" and r.is_figure
                   for r in self.results.select(**self.where)
                   if all(getattr(r, k) is None for k in _NARROWER if k not in self.where))

    def family(self, fam: str) -> Scope:
        """Its row for one environment family (its figures are None where there is none)."""
        return type(self)(fam, {**self.where, "family": fam}, self.results)


class CausalScope(Scope):
    """A causal block: JAcc_neu ... IDR_rev, G_active, its pairs, flags and families."""

    @property
    def g_active(self) -> int:
        return self.count("g_active") or 0

    @property
    def degenerate_flags(self) -> tuple[str, ...]:
        return tuple(f for f in DEGENERATE_FLAGS if self.value(f))

    @property
    def degenerate(self) -> str | None:
        flags = self.degenerate_flags
        return flags[0] if flags else None

    @property
    def idr_cond_status(self) -> str:
        r = self.metric("idr_cond")
        return "undefined" if r is None else IDR_COND_RULE[r.status]

    def probes(self) -> tuple[ProbeScope, ...]:
        """Its presentation-probe families (NS, JCR, Flip, LES), in scoring order."""
        # stability reads the verdicts given (eligible pairs) whatever the block's protocol
        where = {k: v for k, v in self.where.items() if k != "protocol"}
        names = self.results.select(name="ns", **where).values_of("probe")
        return tuple(ProbeScope(p, {**where, "probe": p}, self.results)
                     for p in names if p is not None)


class ProbeScope(Scope):
    """A presentation-probe family's stability figures: NS, JCR, Flip, rows, levels, LES."""

    @property
    def les(self) -> MetricResult | None:
        return self.metric("les")


def causal_scope(results: Results, task: str, **fields: Any) -> CausalScope | None:
    """The causal block of ``task`` at ``fields`` (e.g. ``representation="composite"``), None
    when the judge has none. A task scored under several protocols (the paper's D-R) gives
    its entry's own protocol's block unless ``protocol`` is named."""
    label = "/".join([task, *(str(v) for v in fields.values())])
    spec = task_spec(task)
    if spec.also_protocols and "protocol" not in fields:
        fields = {**fields, "protocol": spec.protocol}
    where = {"task": task, **fields}
    scope = CausalScope(label, where, results)
    return scope if scope.metric("g_active") is not None else None


def causal_scopes(results: Results, world: str = "minigrid") -> Iterator[CausalScope]:
    """Every causal scope of ``world`` by recipe, in task-table order: presentation_invariance
    per representation ("C/composite", "MC/split"), reference_aided as the task ("D", "MD")."""
    for spec in ALL_TASKS:
        if world_of(spec.name) != world:
            continue
        if spec.recipe == "presentation_invariance":
            reps = results.select(task=spec.name, name="g_active").values_of("representation")
            for rep in reps:
                if rep is not None:
                    yield CausalScope(f"{spec.name}/{rep}",
                                      {"task": spec.name, "representation": rep}, results)
        elif spec.recipe == "reference_aided":
            scope = causal_scope(results, spec.name)
            if scope is not None:
                yield scope

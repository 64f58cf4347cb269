"""The scores as a flat list of typed metric results, and the one way to read them.

Every figure the scorer produces is one :class:`MetricResult`: which task and world it belongs
to, its scope (the representation, environment family, probe family, evidence arm, prompt
style, condition, the baseline a difference is taken against, the protocol: each None where it
does not apply), its name (one of :data:`METRIC_NAMES`), value, group-bootstrap CI (and the
environment-level one where computed), numerator, denominator, number of groups and status.
Readers pick results by fields with :meth:`Results.select` / :meth:`Results.one`; nobody walks
a tree of dicts or builds a name from a path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

SCORES_SCHEMA = Path(__file__).resolve().parent / "schemas" / "scores.schema.json"
"""The JSON Schema of scores.json (format "gridwm-judge-scores/3"), shipped in the package;
generated from this module's names and :class:`MetricResult`'s fields
(:mod:`gridwm_judge.integrations.scores_schema`: ``python -m gridwm_judge.integrations.generate``
writes it, ``--check`` says whether it is current)."""


def scores_schema() -> dict[str, Any]:
    """The JSON Schema of scores.json, as a dict (validate with ``jsonschema``)."""
    return json.loads(SCORES_SCHEMA.read_text(encoding="utf-8"))


STATUSES = ("ok", "undefined", "descriptive")
"""``ok``: a figure; ``undefined``: its set is empty (value None); ``descriptive``: shown, but
by a reporting rule not to be read as a stable figure, and it drives no diagnosis alone:
IDR_cond below 10 active groups (shown with no interval), and a per-family or per-probe figure
over fewer than :data:`MIN_GROUPS` groups (:func:`reporting_status`)."""
MIN_GROUPS = 30
"""Below this many trajectory groups a per-family or per-probe figure is descriptive: its
interval is too wide to rank or diagnose on (at p = 0.5, +-0.18 at 30 groups)."""

SCOPE_FIELDS = ("representation", "family", "probe", "arm", "style", "condition", "baseline",
                "protocol")
"""Scope fields of a result: ``family`` is the environment family (a ``by family`` row),
``probe`` the presentation-probe family (temporal / visual / framing), ``condition`` a
presentation condition (Task D's ``clean-neutral``), a Task E question, a Task B component, an
LES level, an Oracle-State stage of a chance level, or the metric a comparison across judges
tests; ``baseline`` the arm, style or representation a paired difference or comparison is
taken against (``value`` is then scope minus baseline, or the test of the two)."""

CAUSAL_NAMES = ("jacc_neu", "acc_full", "acc_nocue", "acc_cf", "succ_c", "p_active", "idr_raw",
                "idr_cond", "idr_rev", "nocue_lift")
FIGURE_NAMES = (
    *CAUSAL_NAMES,
    "ns", "jcr", "flip",  # presentation stability
    "vcc_rep", "vcc_given_success", "vcc_given_failure",  # composite vs split
    "vcc_oracle", "vcc_oracle_given_success", "vcc_oracle_given_failure",  # Oracle-State arms
    "vcc_pixel_state", "vcc_pixel_state_given_success", "vcc_pixel_state_given_failure",
    "acc_a1", "acc_shuffle", "acc_mask", "delta_shuffle", "delta_mask",  # Task A
    "b_mean_score", "b_acc_090", "e_acc", "e_mean_score",  # Tasks B, E
    "task_type", "objective", "verdict", "joint",  # Oracle-State stages
)
"""Figures: a value (a ratio of group sums, or a paired difference of two) with its CIs."""
COUNT_NAMES = ("g_active", "n_pairs", "n_groups", "n_rows", "n_levels", "n_items", "n_invalid",
               "answered", "invalid", "strict", "groups_left_out", "n_judges")
"""Counts behind the figures (value = the count)."""
FLAG_NAMES = ("all_fail", "success_biased", "low_activation")
"""Degenerate-judge flags of a causal block (value 1 flagged, 0 not)."""
DETAIL_NAMES = ("les", "les_d_logit", "les_beta", "les_std_error", "les_sigma", "b_component",
                "chance_uniform", "chance_best_constant")
"""The leakage model's fit, Task B's component means, Oracle-State's chance levels."""
TEST_NAMES = ("mcnemar", "mcnemar_correct", "mcnemar_idr", "wilcoxon", "p_holm")
"""Tests: value = the statistic, denominator = n, ``p_value`` and ``method`` set (``p_holm``:
the Holm-adjusted p of the test in the same scope)."""
METRIC_NAMES = (*FIGURE_NAMES, *COUNT_NAMES, *FLAG_NAMES, *DETAIL_NAMES, *TEST_NAMES)
"""Every metric name a result may carry: one enumeration, the one source of the names that
scores.json's JSON Schema enumerates and the framework bridges print (a new metric is one line
in its part above; ``python -m gridwm_judge.integrations.generate`` then writes the schema)."""


def vocabulary() -> dict[str, tuple[str, ...]]:
    """The result fields whose values are a closed set, with that set (read when called): what
    :class:`MetricResult` accepts, :meth:`Results.select` asks for and the JSON Schema
    enumerates. A value outside it is a typo, never an empty match."""
    return {"name": METRIC_NAMES, "status": STATUSES}


_WHAT = {"name": "metric name", "status": "result status"}
ALWAYS_WRITTEN = ("task", "world", "name", "value", "status")
"""The fields :meth:`MetricResult.to_json` always writes (the schema's required ones); any
other is written only when set."""


@dataclass(frozen=True)
class MetricResult:
    """One figure of one judge: scope, name, value with its uncertainty, and status."""

    task: str
    world: str
    name: str
    value: float | None
    ci: tuple[float, float] | None = None
    ci_env: tuple[float, float] | None = None
    numerator: float | None = None
    denominator: float | None = None
    groups: int | None = None
    status: str = "ok"
    representation: str | None = None
    family: str | None = None
    probe: str | None = None
    arm: str | None = None
    style: str | None = None
    condition: str | None = None
    baseline: str | None = None
    protocol: str | None = None
    env_level: bool = False  # an environment-level bootstrap was run (ci_env may still be None)
    p_value: float | None = None  # tests and the LES fit
    method: str | None = None  # a test's method, the LES fit's status
    detail: str | None = None  # the LES level, a chance level's best constant answer
    note: str | None = None  # the LES fit's message

    def __post_init__(self) -> None:
        for key, known in vocabulary().items():
            value = getattr(self, key)
            if value not in known:
                raise ValueError(f"unknown {_WHAT[key]} {value!r}; expected one of "
                                 f"{', '.join(known)}")

    @property
    def is_figure(self) -> bool:
        return self.name in FIGURE_NAMES

    def to_json(self) -> dict[str, Any]:
        """Only the fields that are set (a None scope field, a False ``env_level`` is left
        out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ALWAYS_WRITTEN or (v is not None and v is not False):
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> MetricResult:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(obj) - known)
        if unknown:
            raise ValueError(f"metric result has unknown field {unknown[0]!r}")
        kw = dict(obj)
        for key in ("ci", "ci_env"):
            if kw.get(key) is not None:
                kw[key] = (float(kw[key][0]), float(kw[key][1]))
        return cls(**kw)


def reporting_status(r: MetricResult) -> MetricResult:
    """``r`` under the reporting rule: a figure of one environment family or one probe
    family over fewer than :data:`MIN_GROUPS` groups is ``descriptive`` (else unchanged)."""
    if (r.status == "ok" and r.is_figure and (r.family is not None or r.probe is not None)
            and r.groups is not None and r.groups < MIN_GROUPS):
        return replace(r, status="descriptive")
    return r


_FIELDS = frozenset(f.name for f in fields(MetricResult))
_UNSET = {f: None for f in SCOPE_FIELDS if f != "protocol"}


class Results(tuple):
    """An ordered, immutable collection of :class:`MetricResult` with field queries.

    ``select(task="C", name="idr_raw", representation="composite")`` keeps the results whose
    fields equal every given value (a given ``None`` asks that the field is unset); fields not
    given match anything. An unknown field, metric name or status is a ValueError naming the
    known ones (a typo would otherwise select nothing, silently). :meth:`one` (and
    ``value``) name one figure: a scope field not given there must be unset (``protocol``
    excepted, which only describes the figure).
    """

    def __new__(cls, items: Iterable[MetricResult] = ()) -> Results:
        return super().__new__(cls, tuple(items))

    def select(self, **where: Any) -> Results:
        bad = sorted(set(where) - _FIELDS)
        if bad:
            raise ValueError(f"unknown result field {bad[0]!r}; expected some of "
                             f"{', '.join(sorted(_FIELDS))}")
        for key, known in vocabulary().items():
            v = where.get(key)
            if v is not None and v not in known:
                raise ValueError(f"unknown result {key} {v!r}; expected one of "
                                 f"{', '.join(known)}")
        return Results(r for r in self if all(getattr(r, k) == v for k, v in where.items()))

    def one(self, **where: Any) -> MetricResult | None:
        """The one result matching ``where``, None when there is none; more than one is an
        error."""
        found = self.select(**{**_UNSET, **where})
        if len(found) > 1:
            raise LookupError(f"{len(found)} results match {where}; name the scope fully")
        return found[0] if found else None

    def value(self, **where: Any) -> float | None:
        r = self.one(**where)
        return None if r is None else r.value

    def values_of(self, key: str, **where: Any) -> tuple[Any, ...]:
        """The distinct values of field ``key`` among the matches, in first-seen order."""
        seen: dict[Any, None] = {}
        for r in self.select(**where):
            seen.setdefault(getattr(r, key), None)
        return tuple(seen)

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.values_of("task")

    def __iter__(self) -> Iterator[MetricResult]:
        return super().__iter__()

    def to_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self]

    @classmethod
    def from_json(cls, items: Iterable[Mapping[str, Any]]) -> Results:
        return cls(MetricResult.from_json(o) for o in items)

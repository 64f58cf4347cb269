"""One task's results as a recipe emits them, in scoring order, with their intervals
bootstrapped together at the end: one resample matrix and one product per set of groups (and
environment map) instead of one per figure.

Figures over the same groups (a scope's metrics) are resampled jointly, so their intervals
come from the same draws; a figure over a subset of the task's groups (one environment
family's) is resampled from its own groups only, exactly as if it were bootstrapped alone.

A recipe adds figures (:meth:`Batch.figures`: ratios of group sums whose CIs the batch
computes), counts, tests and other results (:meth:`Batch.add`), each with its scope, and
returns :meth:`Batch.results`, where the reporting rule sets each result's status
(:func:`~gridwm_judge.results.reporting_status`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gridwm_judge.results import MetricResult, Results, reporting_status
from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.bootstrap import (
    BOOTSTRAP_SEED,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    bootstrap_ratios,
)
from gridwm_judge.scoring.significance import TestResult
from gridwm_judge.task_table import task_spec, world_of

Where = Mapping[str, Any]
"""A result's scope fields (``representation``, ``family``, ``probe``, ``protocol`` ...)."""
Clusters = Mapping[str, str]
"""group -> environment: an environment-level bootstrap resamples these."""


@dataclass(frozen=True)
class Settings:
    """How a task's figures get their intervals. ``intervals=False`` gives point estimates
    only (the framework bridges): no group bootstrap is run and every ``ci`` is None."""

    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    level: float = DEFAULT_LEVEL
    with_les: bool = True
    intervals: bool = True

    def __post_init__(self) -> None:
        check_resamples(self.n_resamples)


def check_resamples(n: int | None) -> None:
    """Refuse a number of bootstrap resamples below 1 (None: the default) in one line."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"the number of bootstrap resamples (--n-resamples) must be a whole "
                         f"number >= 1, got {n!r}")


def interval(ci: Interval) -> tuple[float, float] | None:
    """A bootstrap interval as a result's CI (None when no resample was defined)."""
    if ci.low is None or ci.high is None:
        return None
    return (ci.low, ci.high)


class Batch:
    """Collects one task's results in order; :meth:`results` fills in the figures' CIs."""

    def __init__(self, settings: Settings, task: str):
        spec = task_spec(task)
        self.settings = settings
        self.base: dict[str, Any] = {"task": spec.name, "world": world_of(spec.name)}
        self._out: list[MetricResult] = []
        self._pending: list[tuple[GroupRatio, int, str, Clusters | None]] = []

    def figures(self, ratios: Mapping[str, GroupRatio], where: Where, *,
                clusters: Clusters | None = None, no_ci: tuple[str, ...] = (),
                status: Mapping[str, str] | None = None) -> None:
        """A figure per ratio (name -> ratio) at ``where``: value, numerator, denominator and
        groups now, its group CI (and with ``clusters`` its environment CI) at the end;
        ``no_ci`` names figures shown without one, ``status`` a figure's reporting status."""
        for name, r in ratios.items():
            value = r.value
            given = (status or {}).get(name)
            self._out.append(MetricResult(
                **self.base, **where, name=name, value=value, numerator=r.total_num,
                denominator=r.total_den, groups=int((r.den > 0).sum()),
                status=given or ("undefined" if value is None else "ok"),
                env_level=clusters is not None))
            if value is not None and name not in no_ci:
                at = len(self._out) - 1
                self._pending.append((r, at, "ci", None))
                if clusters is not None:
                    self._pending.append((r, at, "ci_env", clusters))

    def add(self, name: str, value: float | None, where: Where, *, status: str | None = None,
            **fields: Any) -> None:
        """A result computed elsewhere (a count, a flag, a paired difference, a fit);
        ``status`` defaults to ``undefined`` for a missing value."""
        self._out.append(MetricResult(
            **self.base, **where, name=name, value=value,
            status=status or ("undefined" if value is None else "ok"), **fields))

    def count(self, name: str, n: int | None, where: Where) -> None:
        self.add(name, None if n is None else float(n), where)

    def test(self, name: str, t: TestResult, where: Where, *, numerator: float | None = None,
             p_holm: float | None = None) -> None:
        """A test (statistic, n, p, method) and, when given, its Holm-adjusted p."""
        self.add(name, t.statistic, where, denominator=t.n, numerator=numerator,
                 p_value=t.p_value, method=t.method,
                 status="undefined" if t.p_value is None else "ok")
        if p_holm is not None:
            self.add("p_holm", float(p_holm), where)

    def results(self) -> Results:
        """Everything added, in order, with the pending intervals computed."""
        if self.settings.intervals:
            self._bootstrap()
        self._pending.clear()
        return Results(reporting_status(r) for r in self._out)

    def _bootstrap(self) -> None:
        s = self.settings
        batches: dict[tuple[int, tuple[str, ...]],
                      list[tuple[GroupRatio, int, str, Clusters | None]]] = {}
        for item in self._pending:
            batches.setdefault((id(item[3]), item[0].groups), []).append(item)
        for items in batches.values():
            cis = bootstrap_ratios({str(k): r for k, (r, *_rest) in enumerate(items)},
                                   n_resamples=s.n_resamples, seed=s.seed, level=s.level,
                                   clusters=items[0][3])
            for k, (_r, at, key, _c) in enumerate(items):
                self._out[at] = replace(self._out[at], **{key: interval(cis[str(k)])})

"""The shortcut ceiling: what rules that ignore the trajectory score, beside every judge.

The shortcut judges (``baseline:first-frame``, ``last-frame``, ``mask-artifact``,
``least-change``; :mod:`gridwm_judge.judges.shortcuts`) are judges like any other: their runs
are scored the usual way and this module only reads their scores. Per config and family it
shows each shortcut's IDR_raw, Acc_cf and NoCue lift (Acc_A1 on A / MA), each with its CI; and
per judge and config, the judge's IDR_raw beside the best shortcut's on the same config.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.judges.shortcuts import NAMES
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import DASH, Cell, Shown, Table, fci, fnum, fsigned, shown
from gridwm_judge.results import MetricResult
from gridwm_judge.scoring.scopes import Scope, causal_scope
from gridwm_judge.task_table import ALL_TASKS

SHORTCUT_JUDGES = tuple(f"baseline:{n}" for n in NAMES)
SCOPE: dict[str, dict[str, str]] = {
    "presentation_invariance": {"representation": "composite"},
    "reference_aided": {},
    "oracle_state": {"arm": "pixel"},
    "prompt_ablation": {"style": "direct"},
    "next_state": {},
}
"""Where a config's ceiling is read, by recipe: Task C's composite items, Task D's canonical
presentation, the Oracle-State Pixel arm, the prompt ablation's direct style, Task A's
items (orig action)."""
NOT_RUN_NOTE = (
    "No shortcut judge in this report. Run `gridwm-judge eval --tasks all --judge "
    "baseline:first-frame` (and last-frame, mask-artifact, least-change) on the same dataset "
    "and add their run folders to see how much of a judge's score a rule that ignores the "
    "trajectory already gets."
)


MIN_CI_GROUPS = 10
"""Below this many groups a family row's interval is left out (descriptive only)."""


def _described(r: MetricResult | None, n: int | None, unit: str | None = None,
               signed: bool = False) -> Shown | None:
    """A metric cell (with ``unit`` and ``signed`` as :class:`Shown` has them); without its
    interval when ``n`` is below ``MIN_CI_GROUPS``."""
    return shown(r, unit=unit, signed=signed, ci=n is None or n >= MIN_CI_GROUPS)


def is_shortcut(entry: JudgeEntry) -> bool:
    return entry.judge in SHORTCUT_JUDGES


def _name(entry: JudgeEntry) -> str:
    return entry.judge.split(":", 1)[1]


def ceiling_scope(entry: JudgeEntry, task: str, rep: str = "composite") -> Scope | None:
    """The scope a ceiling reads for ``task`` (None when the judge has none); ``rep`` names
    the representation of a Task C-style config."""
    spec = next(t for t in ALL_TASKS if t.name == task)
    fields = SCOPE.get(spec.recipe)
    if fields is None:
        return None
    if spec.recipe == "presentation_invariance":
        fields = {"representation": rep}
    if spec.recipe == "next_state":
        scope = Scope(task, {"task": task}, entry.results)
        return scope if scope.metric("acc_a1") is not None else None
    return causal_scope(entry.results, task, **fields)


def _metric(scope: Scope | None, name: str) -> MetricResult | None:
    return None if scope is None else scope.metric(name)


def _tasks(data: ReportData) -> list[str]:
    return [t.name for t in ALL_TASKS if t.recipe in SCOPE and data.asked((t.name,))]


def _headline_metric(task: str) -> str:
    spec = next(t for t in ALL_TASKS if t.name == task)
    return "acc_a1" if spec.recipe == "next_state" else "idr_raw"


def best_shortcut(data: ReportData, task: str, family: str | None = None,
                  rep: str = "composite") -> tuple[str, MetricResult] | None:
    """(shortcut name, metric) of the shortcut scoring highest on ``task`` (its IDR_raw, or
    Acc_A1 for A / MA), over the whole config or one ``family``, in representation ``rep``."""
    metric = _headline_metric(task)
    best = None
    for e in data.judges:
        if not is_shortcut(e):
            continue
        blk = ceiling_scope(e, task, rep)
        if family is not None and blk is not None:
            blk = blk.family(family)
        r = _metric(blk, metric)
        if r is not None and r.value is not None and (
                best is None or best[1].value is None or r.value > best[1].value):
            best = (_name(e), r)
    return best


def short(r: MetricResult | None) -> Cell | str:
    """``0.500 [0.21, 0.79]``, sorted by its value."""
    if r is None or r.value is None:
        return DASH
    return Cell(fnum(r.value) + (f" {fci(r.ci)}" if r.ci else ""), r.value)


def best_cell(best: tuple[str, MetricResult] | None) -> Cell | str:
    """The best shortcut's figure and name, ``0.500 [0.21, 0.79] (last-frame)``."""
    return DASH if best is None else Cell(f"{short(best[1])} ({best[0]})", best[1].value)


def ceiling(data: ReportData) -> Table:
    """Per config and family, each shortcut's figures (``M`` cells carry the CIs)."""
    rows = []
    for task in _tasks(data):
        metric = _headline_metric(task)
        for e in (e for e in data.judges if is_shortcut(e)):
            blk = ceiling_scope(e, task)
            if not blk:
                continue
            scopes: Sequence[tuple[str, Scope]] = [("all", blk),
                                                   *((f, blk.family(f)) for f in blk.families())]
            for fam, b in scopes:
                n = b.count("n_pairs")
                n = n if n is not None else b.count("n_items")
                if metric == "acc_a1":
                    a1 = _metric(b, "acc_a1")
                    n = n if n is not None else int(a1.denominator or 0) if a1 else 0
                names = ("acc_a1",) if metric == "acc_a1" else ("idr_raw", "acc_cf")
                cells: dict[str, Shown | None] = {k: _described(_metric(b, k), n) for k in names}
                if metric != "acc_a1":  # a difference: its numerator is a net count
                    cells["nocue_lift"] = _described(_metric(b, "nocue_lift"), n,
                                                     unit="groups", signed=True)
                rows.append((task, fam, _name(e), n, cells.get("idr_raw", DASH),
                             cells.get("acc_cf", DASH), cells.get("nocue_lift", DASH),
                             cells.get("acc_a1", DASH)))
    notes = [
        "What rules that read only what a judge sees, but never follow the trajectory, score "
        "(groups: Full-CF pairs, or A items). first-frame: Fail when the target is absent from "
        "the first frame; last-frame: Success when the trajectory ends at the target; "
        "mask-artifact: Success when a NoCue mark shows, else last-frame; least-change: the "
        "candidate closest to the current frame. NoCue lift = Pr(NoCue accepted) - Pr(Full "
        "accepted): 0 when a verdict carries no sign of the NoCue manipulation.",
        "Scopes: C / MC composite items, D / MD canonical presentation, OS Pixel arm, PA "
        "direct style, A / MA orig action.",
        f"Rows of fewer than {MIN_CI_GROUPS} groups (items) show no interval: they are "
        "descriptive (a bootstrap over so few groups gives intervals that look tight).",
        "D, OS and PA name no mission: the verdict rules take the target's colour from where "
        "the reference storyboard ends, so where the target's colour changes between seeds "
        "(KeyCorridor's object, Memory's) they read a successful query as a failure and their "
        "figures there are lower bounds.",
    ]
    if not rows:
        notes.insert(0, NOT_RUN_NOTE)
    return Table(
        "shortcut_ceiling",
        "Shortcut ceiling: what a rule that ignores the trajectory scores",
        ("config", "family", "shortcut", "groups", "IDR_raw", "Acc_cf", "NoCue lift", "Acc_A1"),
        tuple(rows), tuple(notes))


def beside_judges(data: ReportData) -> Table:
    """Each (non-shortcut) judge's IDR_raw (Acc_A1 on A / MA) beside the best shortcut's."""
    rows = []
    for task in _tasks(data):
        metric = _headline_metric(task)
        best = best_shortcut(data, task)
        for e in data.judges:
            if is_shortcut(e):
                continue
            m = _metric(ceiling_scope(e, task), metric)
            if m is None:
                continue
            gap = (DASH if best is None or m.value is None or best[1].value is None
                   else fsigned(m.value - best[1].value))
            rows.append((e.label, task, metric, short(m), best_cell(best), gap))
    notes = () if any(is_shortcut(e) for e in data.judges) else (NOT_RUN_NOTE,)
    return Table(
        "shortcut_vs_judges",
        "Judges beside the best shortcut",
        ("judge", "config", "metric", "judge's", "best shortcut's", "judge - shortcut"),
        tuple(rows),
        ("A judge's figure means little where a shortcut scores as well: the last column is "
         "what the judge adds over the best rule that ignores the trajectory (same config and "
         "scope as the ceiling table).", *notes))

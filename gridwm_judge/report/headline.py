"""The headline of a world: one row per judge, the question the benchmark asks (does the judge
change its verdict for the right reason?) on the world's Task C-style config, with its
stability, the best shortcut beside it and the world's own failure-mode flags.

One function draws every world's headline; what differs between worlds (which columns, how
the scope is named, the notes) is a :class:`Layout`, one per world, and the tasks are found by
recipe in the task table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gridwm_judge.records import MODE_LABELS
from gridwm_judge.report import shortcuts
from gridwm_judge.report.failures import causal_scopes, flags
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import (
    DASH,
    DESCRIPTIVE,
    DESCRIPTIVE_NOTE,
    Cell,
    Table,
    fci,
    fnum,
)
from gridwm_judge.report.tables import (
    MINIWORLD_NOTE,
    control,
    coverage_note,
    least_stable,
    value,
)
from gridwm_judge.results import MetricResult
from gridwm_judge.scoring.scopes import CausalScope, causal_scope
from gridwm_judge.task_table import world_of, world_task

NEXT_STATE, CAUSAL, REFERENCE = "next_state", "presentation_invariance", "reference_aided"
SUGGESTED_NOTE = (f"Suggested: a mode whose evidence rests only on descriptive figures "
                  f"({DESCRIPTIVE}), not raised.")
HEADLINE_NOTE = ("groups: the Full-CF pairs of the scope (IDR_raw's groups). Brackets: 95% "
                 "group-bootstrap CI.")


def tasks(world: str) -> tuple[str, str, str]:
    """``world``'s tasks of Task A's, C's and D's recipes (A, C, D; MA, MC, MD)."""
    a, c, d = (world_task(r, world) for r in (NEXT_STATE, CAUSAL, REFERENCE))
    return a, c, d


@dataclass(frozen=True)
class Row:
    """What a headline row can show for one judge, by column name."""

    judge: JudgeEntry
    scope: str | None
    cells: dict[str, Any]


@dataclass(frozen=True)
class Layout:
    """A world's headline: its file key and title, its columns (header, cell name) in order,
    whether the judge's label carries a scope other than the first, and its notes."""

    key: str
    title: str
    columns: tuple[tuple[str, str], ...]
    scope_in_label: bool
    notes: Callable[[str, str, str], tuple[str, ...]]
    covered: Callable[[str, str, str], tuple[str, ...]]


def _minigrid_notes(a: str, c: str, d: str) -> tuple[str, ...]:
    return (
        f"Task {c} composite (eligible pairs; for a judge without it, the scope in brackets). "
        "NS_min / JCR_min: the least stable probe family. Shortcut IDR: the best shortcut "
        "judge's IDR_raw on the same config (a rule that ignores the trajectory; see "
        "shortcut_ceiling). "
        "Flags: " + ", ".join(MODE_LABELS.values()) + f" (see failure_modes.md). {SUGGESTED_NOTE}",)


def _miniworld_notes(a: str, c: str, d: str) -> tuple[str, ...]:
    return (
        MINIWORLD_NOTE,
        f"Scope: {c} composite (eligible pairs), else {c} split, else {d}. Shortcut IDR: the "
        "best shortcut judge's IDR_raw on the same config (see shortcut_ceiling). NS_min / "
        f"JCR_min: the least stable probe family of that scope. IDR_raw {d}: "
        "reference-aided, all groups. Acc_A1 chance = 0.25. Flags: MiniWorld's own failure "
        "modes (" + ", ".join(MODE_LABELS.values()) + f"; see failure_modes.md). {SUGGESTED_NOTE}",
    )


_MA, _MC, _MD = tasks("miniworld")
LAYOUTS: dict[str, Layout] = {
    "minigrid": Layout(
        "headline", "Headline: does the judge change its verdict for the right reason?",
        (("judge", "judge"), ("groups", "groups"), ("JAcc_neu", "jacc_neu"),
         ("p_active", "p_active"),
         ("IDR_raw", "idr_raw"), ("Acc_cf", "acc_cf"), ("NS_min", "ns_min"),
         ("JCR_min", "jcr_min"), ("shortcut IDR", "shortcut"), ("flags", "flags"),
         ("suggested", "suggested")),
        True, _minigrid_notes, lambda a, c, d: (c, d)),
    "miniworld": Layout(
        "miniworld_headline", "MiniWorld (3D) headline: the same question on first-person views",
        (("judge", "judge"), ("scope", "scope"), ("groups", "groups"), ("JAcc_neu", "jacc_neu"),
         ("p_active", "p_active"), ("IDR_raw", "idr_raw"), ("Acc_cf", "acc_cf"),
         ("shortcut IDR", "shortcut"), ("NS_min", "ns_min"), ("JCR_min", "jcr_min"),
         (f"IDR_raw {_MD}", "idr_reference"), (f"Acc_A1 {_MA}", "acc_a1"), ("flags", "flags"),
         ("suggested", "suggested")),
        False, _miniworld_notes, lambda a, c, d: (a, c, d)),
}
"""Each world's headline layout."""


def _scope(entry: JudgeEntry, world: str) -> tuple[str | None, CausalScope | None]:
    """The scope a row reads: the Task C-style config composite, else split, else D."""
    _a, c, d = tasks(world)
    found = {s.label: s for s in causal_scopes(entry, world)}
    label = next((s for s in (f"{c}/composite", f"{c}/split", d) if s in found), None)
    return label, None if label is None else found[label]


def _ratio(scope: CausalScope | None, name: str) -> Cell | str:
    """``value (num/den) [lo, hi]``: a headline figure with its count and interval."""
    r = None if scope is None else scope.metric(name)
    if r is None:
        return DASH
    ci = f" {fci(r.ci)}" if r.ci else ""
    return Cell(f"{fnum(r.value)} ({int(r.numerator or 0)}/{int(r.denominator or 0)}){ci}",
                r.value)


def _figure(scope: CausalScope | None, name: str) -> Cell | str:
    """``value [lo, hi]``."""
    return shortcuts.short(None if scope is None else scope.metric(name))


def _least(r: MetricResult | None) -> Cell | str:
    """The least stable probe family's figure, marked when it is descriptive."""
    if r is None:
        return DASH
    return Cell(fnum(r.value) + (DESCRIPTIVE if r.status == "descriptive" else ""), r.value)


def _number(v: float | None) -> Cell:
    return Cell(fnum(v), v)


def _row(data: ReportData, e: JudgeEntry, world: str) -> Row | None:
    a, _c, d = tasks(world)
    label, c = _scope(e, world)
    ma = control(e, a)
    needs_scope = LAYOUTS[world].scope_in_label
    if c is None and (needs_scope or ma is None):
        return None
    task, _, form = (label or "").partition("/")
    best = (None if shortcuts.is_shortcut(e) or label is None
            else shortcuts.best_shortcut(data, task, rep=form or "composite"))
    md = causal_scope(e.results, d)
    cells = {
        "judge": e.label,
        "scope": label or DASH,
        "groups": DASH if c is None else str(c.count("n_pairs")),
        "jacc_neu": _figure(c, "jacc_neu"),
        "p_active": _ratio(c, "p_active"),
        "idr_raw": _figure(c, "idr_raw"),
        "acc_cf": _figure(c, "acc_cf"),
        "ns_min": _least(least_stable(e, "ns", (label,), world)),
        "jcr_min": _least(least_stable(e, "jcr", (label,), world)),
        "shortcut": DASH if best is None else Cell(f"{fnum(best[1].value)} ({best[0]})",
                                                   best[1].value),
        "idr_reference": _number(value(md, "idr_raw")) if md else "not run",
        "acc_a1": _number(value(ma, "acc_a1")) if ma else "not run",
        "flags": ", ".join(flags(e, world)) or "none",
        "suggested": ", ".join(flags(e, world, "suggested")) or DASH,
    }
    first = f"{tasks(world)[1]}/composite"
    if needs_scope and label != first:
        cells["judge"] = f"{e.label} ({label})"
    return Row(e, label, cells)


def headline(data: ReportData, world: str = "minigrid") -> Table:
    """``world``'s headline; a judge whose every request errored is shown as such, never
    diagnosed."""
    layout = LAYOUTS[world]
    a, c, d = tasks(world)
    covered = layout.covered(a, c, d)
    rows = []
    for e in data.judges:
        row = _row(data, e, world)
        if row is not None:
            rows.append(tuple(row.cells[name] for _h, name in layout.columns))
            continue
        errored = sum(cov.errored for t, cov in e.scores.coverage.items()
                      if world_of(t) == world)
        if errored:
            cells = {"judge": e.label, "flags": f"no answers ({errored} requests errored)"}
            rows.append(tuple(cells.get(name, DASH) for _h, name in layout.columns))
    marked = any(DESCRIPTIVE in str(x) for r in rows for x in r)
    return Table(layout.key, layout.title, tuple(h for h, _n in layout.columns), tuple(rows),
                 (*layout.notes(a, c, d), HEADLINE_NOTE, *coverage_note(data, covered),
                  *((DESCRIPTIVE_NOTE,) if marked else ())))

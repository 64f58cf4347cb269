"""MiniWorld (3D) tables: a headline beside MiniGrid's and a section of its own, never pooled
with MiniGrid's; both only when a judge was asked a MiniWorld task."""

from __future__ import annotations

from dataclasses import replace

from gridwm_judge.report import shortcuts
from gridwm_judge.report.failures import SHORT, causal_scopes, flags
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import DASH, Table, fnum
from gridwm_judge.report.tables import (
    MINIWORLD_NOTE,
    _control,
    _m,
    _test,
    _v,
    _with_p,
    coverage_note,
    invalid,
    min_family,
    stability,
    task_c,
    task_d,
)
from gridwm_judge.scoring.scopes import causal_scope
from gridwm_judge.task_table import ALL_TASKS, task_spec, world_task

WORLD = "miniworld"
A, C, D = (world_task(r, WORLD) for r in ("next_state", "presentation_invariance",
                                          "reference_aided"))
"""MiniWorld's tasks of Task A's, C's and D's recipes (MA, MC, MD), from the task table."""

_NAMES = tuple(t.name for t in ALL_TASKS if t.world == WORLD)


def _asked(e: JudgeEntry) -> bool:
    return e.asked(_NAMES)


def miniworld_judges(data: ReportData) -> ReportData:
    """``data`` with only the judges that were asked a MiniWorld task (MiniWorld's figures
    show those, not MiniGrid-only judges as rows of "not run")."""
    return replace(data, judges=tuple(e for e in data.judges if _asked(e)))


def miniworld_asked(data: ReportData) -> bool:
    """Whether any judge of the report was asked a MiniWorld task (its tables and figures are
    drawn only then, so a MiniGrid report stays as it was)."""
    return any(_asked(e) for e in data.judges)


def miniworld_c(data: ReportData) -> Table:
    t = task_c(data, C, task_spec(C).config, "MiniWorld (3D) Task C: correctness and causal "
               f"sensitivity on first-person storyboards (config {task_spec(C).config})")
    return Table(t.key, t.title, t.columns, t.rows, (MINIWORLD_NOTE, *t.notes))


def miniworld_d(data: ReportData) -> Table:
    t = task_d(data, D, task_spec(D).config, "MiniWorld (3D) reference-aided Task D on "
               f"first-person storyboards (config {task_spec(D).config})")
    return Table(t.key, t.title, t.columns, t.rows, (MINIWORLD_NOTE, *t.notes))


def miniworld_a(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        a = _control(e, A)
        if a is None:
            continue
        rows.append((e.label, _m(a, "acc_a1"),
                     _with_p(_m(a, "delta_shuffle"), _test(e, A, "shuffle")),
                     _with_p(_m(a, "delta_mask"), _test(e, A, "mask")), invalid(e, A)))
    config = task_spec(A).config
    return Table(
        config,
        f"MiniWorld (3D) Task A: next first-person view given the action (config {config})",
        ("judge", "Acc_A1", "Delta_shuffle", "Delta_mask", f"invalid {A}"),
        tuple(rows),
        (MINIWORLD_NOTE, "Acc_A1 chance = 0.25. Delta = Acc_orig - Acc_shuffled/masked, paired by "
         "question; invalid answers count as incorrect.", *coverage_note(data, (A,))),
    )


def miniworld_headline(data: ReportData) -> Table:
    """MiniGrid's headline for MiniWorld: MC composite (else MC split, else MD), with MD's
    IDR_raw and MA's Acc_A1 beside it and MiniWorld's own failure-mode flags (the tasks by
    recipe from the task table)."""
    rows = []
    for e in data.judges:
        scopes = {s.label: s for s in causal_scopes(e, WORLD)}
        scope = next((s for s in (f"{C}/composite", f"{C}/split", D) if s in scopes), None)
        a = _control(e, A)
        if scope is None and a is None:
            errored = sum(cov.errored for t, cov in e.scores.coverage.items()
                          if t in _NAMES)
            if errored:  # never answered: shown as such, never diagnosed
                rows.append((e.label, DASH, *[DASH] * 9, f"no answers ({errored} requests "
                             "errored)"))
            continue
        c = scopes.get(scope) if scope else None
        p = _m(c, "p_active")
        md = causal_scope(e.results, D)
        task, _, form = (scope or "").partition("/")
        best = (None if shortcuts.is_shortcut(e) or scope is None
                else shortcuts.best_shortcut(data, task, rep=form or "composite"))
        rows.append((
            e.label,
            scope or DASH,
            fnum(_v(c, "jacc_neu"), 2),
            DASH if p is None else f"{fnum(p['value'], 2)} ({int(p['num'])}/{int(p['den'])})",
            fnum(_v(c, "idr_raw"), 2),
            fnum(_v(c, "acc_cf"), 2),
            DASH if best is None else f"{fnum(best[1]['value'], 2)} ({best[0]})",
            fnum(min_family(e, "ns", (scope,), WORLD), 2),
            fnum(min_family(e, "jcr", (scope,), WORLD), 2),
            fnum(_v(md, "idr_raw"), 2) if md else "not run",
            fnum(_v(a, "acc_a1"), 2) if a else "not run",
            ", ".join(flags(e, WORLD)) or "none",
        ))
    return Table(
        "miniworld_headline",
        "MiniWorld (3D) headline: the same question on first-person views",
        ("judge", "scope", "JAcc_neu", "p_active", "IDR_raw", "Acc_cf", "shortcut IDR",
         "NS_min", "JCR_min", f"IDR_raw {D}", f"Acc_A1 {A}", "flags"),
        tuple(rows),
        (
            MINIWORLD_NOTE,
            f"Scope: {C} composite (eligible pairs), else {C} split, else {D}. Shortcut IDR: the "
            "best shortcut judge's IDR_raw on the same config (see shortcut_ceiling). NS_min / "
            f"JCR_min: the least stable probe family of that scope. IDR_raw {D}: "
            "reference-aided, all groups. Acc_A1 chance = 0.25. Flags: MiniWorld's own failure "
            "modes (" + ", ".join(SHORT.values()) + "; see failure_modes.md).",
            *coverage_note(data, (A, C, D)),
        ),
    )


def miniworld_summary(data: ReportData) -> tuple[Table, ...]:
    """The MiniWorld headline, to stand beside MiniGrid's; () when no judge was asked."""
    return (miniworld_headline(data),) if miniworld_asked(data) else ()


def miniworld_section(data: ReportData) -> tuple[Table, ...]:
    """MiniWorld's own tables (its tasks of Task A's, C's and D's recipes, then stability); ()
    when no judge was asked."""
    if not miniworld_asked(data):
        return ()
    return (miniworld_a(data), miniworld_c(data), miniworld_d(data), stability(data, WORLD))

"""The causal and stability tables in the paper's shapes, for any world's task of the recipe,
read from the judges' results only (which tables a report holds: :mod:`.sections`).

- ``task_c`` (paper Table 2) of a Task C-style config (C, MC): per judge x representation,
  JAcc_neu, p_active, G_active, IDR_raw, IDR_cond, VCC_rep, degenerate status, invalid outputs.
- ``composite_split`` (Table 3): composite -> split shifts per judge and the Wilcoxon
  signed-rank tests across judges (Holm-adjusted).
- ``task_d`` (Table 13) of a reference-aided config (D, MD): group- and environment-bootstrap
  CIs.
- ``stability`` (Figure 4) of a world: NS, JCR, Flip and LES per probe family and scope.

Also the cells and notes every table module shares (coverage, "not run", invalid answers).
A world other than MiniGrid is never pooled into MiniGrid's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridwm_judge.formats import fles, fp, p_is
from gridwm_judge.report import shortcuts
from gridwm_judge.report.failures import causal_scopes
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import DASH, Table, fnum, fsigned
from gridwm_judge.results import MetricResult
from gridwm_judge.schema import REPRESENTATIONS
from gridwm_judge.scoring.scopes import CausalScope, ProbeScope, Scope, causal_scope
from gridwm_judge.task_table import task_spec, world_of

REPS = REPRESENTATIONS
NOT_RUN = "not run"
MINIWORLD_NOTE = "MiniWorld (3D): reported on its own, never pooled with MiniGrid's tables."
WORLD_NOTES: dict[str, tuple[str, ...]] = {"minigrid": (), "miniworld": (MINIWORLD_NOTE,)}
"""The note a world's own tables open with (MiniGrid's are the paper's: none)."""
ABBR = {"all_fail": "AF", "success_biased": "SB", "low_activation": "LA"}
DEGENERATE_NOTE = (
    "Degenerate: AF all-fail (p_active < 0.1), SB success-biased (p_active > 0.9 and "
    "Acc_cf < 0.1), LA low-activation (0 < G_active < 10: IDR_cond descriptive only)."
)


def metric_of(scope: Scope | None, name: str) -> MetricResult | None:
    """The metric ``name`` of ``scope``, a table cell as it is (None where there is none)."""
    return None if scope is None else scope.metric(name)


def value(scope: Scope | None, name: str) -> float | None:
    return None if scope is None else scope.value(name)


def control(entry: JudgeEntry, task: str) -> Scope | None:
    """A task's unscoped figures (A, B, E; MiniWorld's MA), None when it was not scored."""
    return Scope(task, {"task": task}, entry.results) if task in entry.results.tasks else None


def invalid(entry: JudgeEntry, task: str) -> str:
    """Invalid answers of a task as ``k/answered``; "not run" for a task the judge was never
    asked, "no answers" when every request errored; an incomplete coverage is named."""
    cov = entry.scores.coverage.get(task)
    if cov is None:
        return NOT_RUN
    if cov.asked == 0:
        return DASH
    if cov.answered == 0:
        return NOT_RUN if cov.errored == 0 else f"no answers ({cov.errored} errored)"
    text = f"{cov.invalid}/{cov.answered}"
    if not cov.complete:
        text += f" (answered {cov.answered}/{cov.asked})"
    return text


def coverage_note(data: ReportData, tasks: Sequence[str]) -> tuple[str, ...]:
    """A table note naming every judge whose coverage of ``tasks`` is incomplete, including a
    judge whose every request errored (it has no row in the table, so the note must say why)."""
    gaps = []
    for e in data.judges:
        for t in tasks:
            cov = e.scores.coverage.get(t)
            if cov is None or cov.answered == cov.asked:
                continue
            if cov.answered:
                why = " (image-only: text rows not asked)" if shortcuts.is_shortcut(e) else ""
                gaps.append(f"{e.label} {t} {cov.answered}/{cov.asked}{why}")
            elif cov.errored:
                gaps.append(f"{e.label} {t} 0/{cov.asked} ({cov.errored} errored)")
    if not gaps:
        return ()
    return ("Incomplete coverage (answered/asked; errored or unasked items are not scored, so "
            "these figures cover the answered items only): " + "; ".join(gaps) + ".",)


def c_causal(entry: JudgeEntry, rep: str, task: str = "C") -> CausalScope | None:
    return causal_scope(entry.results, task, representation=rep)


def deg_cs(entry: JudgeEntry, task: str = "C") -> str:
    parts = []
    for rep in REPS:
        c = c_causal(entry, rep, task)
        if c is None:
            parts.append(DASH)
        else:
            parts.append("+".join(ABBR[f] for f in c.degenerate_flags) or "ok")
    return "/".join(parts)


def _idr_cond(c: CausalScope | None) -> str:
    if not c:
        return DASH
    m = c.metric("idr_cond")
    if m is None or c.idr_cond_status == "undefined":
        return "undefined (G_active 0)"
    text = f"{fnum(m.value)} ({int(m.numerator or 0)}/{int(m.denominator or 0)})"
    return text + (" unstable" if c.idr_cond_status == "unstable" else "")


def task_c(data: ReportData, task: str = "C",
           title: str = "Task C: correctness and causal sensitivity (paper Table 2)") -> Table:
    """Paper Table 2 for ``task`` (MiniGrid's C, or another world's config of the same recipe,
    e.g. MiniWorld's MC, in a table of its own named by its config)."""
    rows = []
    for e in data.judges:
        vcc = e.results.one(task=task, name="vcc_rep")
        for rep in REPS:
            c = c_causal(e, rep, task)
            if c is None:
                continue
            rows.append(
                (
                    e.label,
                    rep,
                    metric_of(c, "jacc_neu"),
                    metric_of(c, "p_active"),
                    c.g_active,
                    metric_of(c, "idr_raw"),
                    _idr_cond(c),
                    vcc,
                    deg_cs(e, task),
                    invalid(e, task),
                )
            )
    return Table(
        task_spec(task).config,
        title,
        (
            "judge",
            "representation",
            "JAcc_neu",
            "p_active",
            "G_active",
            "IDR_raw",
            "IDR_cond",
            "VCC_rep",
            "degenerate C/S",
            f"invalid {task}",
        ),
        tuple(rows),
        (
            *WORLD_NOTES[world_of(task)],
            "Eligible-pairs protocol: p_active and IDR use groups whose Full and CF verdicts both "
            "parse; JAcc_neu uses every group (invalid = incorrect). Brackets: 95% group "
            "bootstrap CI.",
            DEGENERATE_NOTE,
            *coverage_note(data, (task,)),
        ),
    )


def _shift(e: JudgeEntry, name: str
           ) -> tuple[MetricResult | None, MetricResult | None, float | None]:
    composite, split = c_causal(e, "composite"), c_causal(e, "split")
    a, b = value(composite, name), value(split, name)
    delta = None if a is None or b is None else b - a
    return metric_of(composite, name), metric_of(split, name), delta


METRIC_LABEL = {"jacc_neu": "JAcc_neu", "p_active": "p_active", "idr_raw": "IDR_raw"}


def composite_split(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        if c_causal(e, "composite") is None or c_causal(e, "split") is None:
            continue
        cells: list[Any] = [e.label]
        for name in METRIC_LABEL:
            a, b, d = _shift(e, name)
            cells += [a, b, fsigned(d)]
        rows.append(tuple(cells))
    cells = ["Wilcoxon p (Holm)"]
    for name in METRIC_LABEL:
        where = {"task": "C", "representation": "split", "baseline": "composite",
                 "condition": name}
        t = data.comparisons.one(name="wilcoxon", **where)
        if t is None or t.p_value is None:
            cells += [DASH, DASH, "needs >= 2 judges"]
        else:
            p_holm = data.comparisons.value(name="p_holm", **where)
            cells += [
                f"n = {int(data.comparisons.value(name='n_judges', **where) or 0)} judges",
                f"{int(t.denominator or 0)} nonzero",
                f"{p_is(t.p_value)} (Holm {fp(t.p_value if p_holm is None else p_holm)})",
            ]
    rows.append(tuple(cells))
    cols = ["judge"]
    for label in METRIC_LABEL.values():
        cols += [f"{label} composite", f"{label} split", f"{label} shift"]
    return Table(
        "composite_split",
        "Composite -> split ablation across judges (paper Table 3)",
        tuple(cols),
        tuple(rows),
        (
            "Shift = split - composite. Wilcoxon signed-rank over judges (paired by judge), Holm "
            "over the three metrics; with few judges or ties the test has little power.",
        ),
    )


def task_d(data: ReportData, task: str = "D",
           title: str = "Reference-aided Task D (paper Table 13)") -> Table:
    """Paper Table 13 for ``task`` (MiniGrid's D, or e.g. MiniWorld's MD in its own table named
    by its config)."""
    rows = []
    for e in data.judges:
        d = causal_scope(e.results, task)
        if d is None:
            continue
        rows.append(
            (
                e.label,
                metric_of(d, "jacc_neu"),
                metric_of(d, "acc_cf"),
                metric_of(d, "p_active"),
                d.g_active,
                metric_of(d, "idr_raw"),
                _idr_cond(d),
                "+".join(ABBR[f] for f in d.degenerate_flags) or "ok",
                invalid(e, task),
            )
        )
    return Table(
        task_spec(task).config,
        title,
        (
            "judge",
            "JAcc_neu",
            "Acc_cf",
            "p_active",
            "G_active",
            "IDR_raw",
            "IDR_cond",
            "degenerate",
            f"invalid {task}",
        ),
        tuple(rows),
        (
            *WORLD_NOTES[world_of(task)],
            "All-groups protocol (invalid = incorrect), clean-neutral presentation. Brackets: "
            "95% group-bootstrap CI; env: environment-level bootstrap (registered env id).",
            DEGENERATE_NOTE,
            *coverage_note(data, (task,)),
        ),
    )


def family_blocks(entry: JudgeEntry, world: str = "minigrid"
                  ) -> list[tuple[str, str, ProbeScope]]:
    """(scope, probe family, its figures) of every causal scope of ``world`` (C per
    representation, then D; MiniWorld: MC per representation, then MD)."""
    return [(c.label, f.label, f) for c in causal_scopes(entry, world) for f in c.probes()]


def _les(fb: ProbeScope) -> str:
    les = fb.les
    if les is None:
        return "not fitted"
    if les.value is None:
        return f"{DASH} ({les.method})"
    p = les.p_value
    ptext = "" if p is None else f", {p_is(p)}"
    return f"{fles(les.value)} ({les.detail}{ptext}; {les.method})"


def stability(data: ReportData, world: str = "minigrid",
              title: str = "Presentation stability per probe family (paper Figure 4)") -> Table:
    """Figure 4's table for ``world``'s causal scopes (C per representation and D; MiniWorld:
    MC and MD), one row per judge, scope and probe family with two or more levels."""
    rows = []
    for e in data.judges:
        for scope, fam, fb in family_blocks(e, world):
            if not fb.count("n_rows") or (fb.count("n_levels") or 0) < 2:
                continue
            rows.append(
                (
                    e.label,
                    scope,
                    fam,
                    metric_of(fb, "ns"),
                    metric_of(fb, "jcr"),
                    metric_of(fb, "flip"),
                    _les(fb),
                    fb.count("n_rows"),
                )
            )
    return Table(
        "stability" if world == "minigrid" else f"{world}_stability",
        title,
        ("judge", "scope", "family", "NS", "JCR", "Flip", "LES (level, p; fit)", "rows"),
        tuple(rows),
        (
            "NS: agreement with the family baseline over (group, presentation) pairs; JCR: share "
            "of groups whose verdict never changes in the family. Full variant only. LES: largest "
            "|beta| of the mixed-effects logistic leakage model (logit scale).",
            *WORLD_NOTES[world],
        ),
    )


def least_stable(e: JudgeEntry, metric: str, scopes: Sequence[str | None],
                 world: str = "minigrid") -> MetricResult | None:
    """The least ``metric`` (NS, JCR) over the probe families of ``scopes`` in ``world``."""
    found = [fb.metric(metric) for s, _f, fb in family_blocks(e, world) if s in scopes]
    found = [r for r in found if r is not None and r.value is not None]
    return min(found, key=lambda r: r.value or 0.0) if found else None

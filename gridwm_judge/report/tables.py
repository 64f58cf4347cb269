"""The report's tables in the paper's shapes, built from scores.json blocks only.

- ``task_c`` (paper Table 2): per judge x representation, JAcc_neu, p_active, G_active,
  IDR_raw, IDR_cond, VCC_rep, degenerate status (composite/split), invalid outputs.
- ``composite_split`` (Table 3): composite -> split shifts per judge and the Wilcoxon
  signed-rank tests across judges (Holm-adjusted).
- ``controls`` (Table 4): B_Acc@0.90, B_MeanScore, E_Acc, Acc_A1, Delta_shuffle, Delta_mask.
- ``task_d`` (Table 13): reference-aided Task D, group- and environment-bootstrap CIs.
- ``stability`` (Figure 4): NS, JCR, Flip and LES per probe family and scope.
- ``headline``: the one-screen summary the quickstart prints.
- ``miniworld_a`` / ``_c`` / ``_d`` / ``_stability``: Task A, Tables 2 and 13 and Figure 4's
  table for MiniWorld's configs, only when a judge was asked them; MiniWorld is never pooled
  into the MiniGrid tables (the headline is MiniGrid's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridwm_judge.report import shortcuts
from gridwm_judge.report.failures import SHORT, causal_scopes, flags
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import DASH, Table, fmetric, fnum
from gridwm_judge.results import MetricResult
from gridwm_judge.schema import REPRESENTATIONS
from gridwm_judge.scoring.scopes import CausalScope, ProbeScope, Scope, causal_scope

REPS = REPRESENTATIONS
NOT_RUN = "not run"
MINIWORLD_NOTE = "MiniWorld (3D): reported on its own, never pooled with MiniGrid's tables."
ABBR = {"all_fail": "AF", "success_biased": "SB", "low_activation": "LA"}
DEGENERATE_NOTE = (
    "Degenerate: AF all-fail (p_active < 0.1), SB success-biased (p_active > 0.9 and "
    "Acc_cf < 0.1), LA low-activation (0 < G_active < 10: IDR_cond descriptive only)."
)


def _m(scope: Scope | None, name: str) -> dict | None:
    """The metric ``name`` of ``scope`` as a table cell (None where there is none)."""
    return None if scope is None else scope.cell(name)


def _v(scope: Scope | None, name: str) -> float | None:
    return None if scope is None else scope.value(name)


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


def task_c(data: ReportData, task: str = "C", key: str = "task_c",
           title: str = "Task C: correctness and causal sensitivity (paper Table 2)") -> Table:
    """Paper Table 2 for ``task`` (MiniGrid's C, or another world's config of the same recipe,
    e.g. MiniWorld's MC, in a table of its own)."""
    rows = []
    for e in data.judges:
        vcc = e.results.cell(task=task, name="vcc_rep")
        for rep in REPS:
            c = c_causal(e, rep, task)
            if c is None:
                continue
            rows.append(
                (
                    e.label,
                    rep,
                    _m(c, "jacc_neu"),
                    _m(c, "p_active"),
                    c.g_active,
                    _m(c, "idr_raw"),
                    _idr_cond(c),
                    vcc,
                    deg_cs(e, task),
                    invalid(e, task),
                )
            )
    return Table(
        key,
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
            "Eligible-pairs protocol: p_active and IDR use groups whose Full and CF verdicts both "
            "parse; JAcc_neu uses every group (invalid = incorrect). Brackets: 95% group "
            "bootstrap CI.",
            DEGENERATE_NOTE,
            *coverage_note(data, (task,)),
        ),
    )


def _shift(e: JudgeEntry, name: str) -> tuple[Any, Any, float | None]:
    a, b = _v(c_causal(e, "composite"), name), _v(c_causal(e, "split"), name)
    delta = None if a is None or b is None else b - a
    return _m(c_causal(e, "composite"), name), _m(c_causal(e, "split"), name), delta


METRIC_LABEL = {"jacc_neu": "JAcc_neu", "p_active": "p_active", "idr_raw": "IDR_raw"}


def composite_split(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        if c_causal(e, "composite") is None or c_causal(e, "split") is None:
            continue
        cells: list[Any] = [e.label]
        for name in METRIC_LABEL:
            a, b, d = _shift(e, name)
            cells += [a, b, None if d is None else f"{d:+.3f}"]
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
                f"p = {t.p_value:.3g} (Holm {t.p_value if p_holm is None else p_holm:.3g})",
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


def _with_p(m: dict | None, test: MetricResult | None) -> str:
    text = fmetric(m)
    if test is not None and test.p_value is not None:
        text += f", McNemar p = {test.p_value:.3g} (n = {test.denominator})"
    return text


def _test(entry: JudgeEntry, task: str, condition: str) -> MetricResult | None:
    return entry.results.one(task=task, name="mcnemar", condition=condition)


def _control(entry: JudgeEntry, task: str) -> Scope | None:
    """A control task's figures (A, B, E; MiniWorld's MA), None when it was not scored."""
    return Scope(task, {"task": task}, entry.results) if task in entry.results.tasks else None


def controls(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        a, b, ee = (_control(e, t) for t in ("A", "B", "E"))
        rows.append(
            (
                e.label,
                _m(b, "b_acc_090") if b else NOT_RUN,
                _m(b, "b_mean_score") if b else NOT_RUN,
                _m(ee, "e_acc") if ee else NOT_RUN,
                _m(a, "acc_a1") if a else NOT_RUN,
                _with_p(_m(a, "delta_shuffle"), _test(e, "A", "shuffle")) if a else NOT_RUN,
                _with_p(_m(a, "delta_mask"), _test(e, "A", "mask")) if a else NOT_RUN,
                f"A {invalid(e, 'A')}, B {invalid(e, 'B')}, E {invalid(e, 'E')}",
            )
        )
    return Table(
        "controls",
        "Local controls: perception, state tracking, action use (paper Table 4)",
        (
            "judge",
            "B_Acc@0.90",
            "B_MeanScore",
            "E_Acc",
            "Acc_A1",
            "Delta_shuffle",
            "Delta_mask",
            "invalid",
        ),
        tuple(rows),
        (
            "Acc_A1 chance = 0.25. Delta = Acc_orig - Acc_shuffled/masked, paired by question; "
            "invalid answers count as incorrect (B score 0); 'not run': the judge was not asked "
            "this task.",
            *coverage_note(data, ("A", "B", "E")),
        ),
    )


def task_d(data: ReportData, task: str = "D", key: str = "task_d",
           title: str = "Reference-aided Task D (paper Table 13)") -> Table:
    """Paper Table 13 for ``task`` (MiniGrid's D, or e.g. MiniWorld's MD in its own table)."""
    rows = []
    for e in data.judges:
        d = causal_scope(e.results, task)
        if d is None:
            continue
        rows.append(
            (
                e.label,
                _m(d, "jacc_neu"),
                _m(d, "acc_cf"),
                _m(d, "p_active"),
                d.g_active,
                _m(d, "idr_raw"),
                _idr_cond(d),
                "+".join(ABBR[f] for f in d.degenerate_flags) or "ok",
                invalid(e, task),
            )
        )
    return Table(
        key,
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
    ptext = "" if p is None else f", p = {p:.3g}"
    return f"{les.value:.2f} ({les.detail}{ptext}; {les.method})"


def stability(data: ReportData, world: str = "minigrid") -> Table:
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
                    _m(fb, "ns"),
                    _m(fb, "jcr"),
                    _m(fb, "flip"),
                    _les(fb),
                    fb.count("n_rows"),
                )
            )
    return Table(
        "stability" if world == "minigrid" else f"{world}_stability",
        "Presentation stability per probe family (paper Figure 4)" if world == "minigrid"
        else "MiniWorld (3D) presentation stability per probe family (MC, MD)",
        ("judge", "scope", "family", "NS", "JCR", "Flip", "LES (level, p; fit)", "rows"),
        tuple(rows),
        (
            "NS: agreement with the family baseline over (group, presentation) pairs; JCR: share "
            "of groups whose verdict never changes in the family. Full variant only. LES: largest "
            "|beta| of the mixed-effects logistic leakage model (logit scale).",
            *((MINIWORLD_NOTE,) if world == "miniworld" else ()),
        ),
    )


def min_family(e: JudgeEntry, metric: str, scopes: Sequence[str | None],
               world: str = "minigrid") -> float | None:
    """The least ``metric`` (NS, JCR) over the probe families of ``scopes`` in ``world``."""
    vals = [_v(fb, metric) for s, _f, fb in family_blocks(e, world) if s in scopes]
    vals = [v for v in vals if v is not None]
    return min(vals) if vals else None


def headline(data: ReportData) -> Table:
    """Task C composite: correctness, causal sensitivity, stability and every flag."""
    rows = []
    for e in data.judges:
        c = c_causal(e, "composite") or c_causal(e, "split")
        rep = "C/composite" if c_causal(e, "composite") else "C/split"
        if c is None:
            scope = {s.label: s for s in causal_scopes(e)}
            c, rep = scope.get("D"), "D"
        if c is None:
            errored = sum(cov.errored for cov in e.scores.coverage.values())
            if errored:  # a judge that never answered is shown as such, never diagnosed
                rows.append((e.label, *[DASH] * 7, f"no answers ({errored} requests errored)"))
            continue
        p = _m(c, "p_active")
        task, _, form = rep.partition("/")
        best = (None if shortcuts.is_shortcut(e)
                else shortcuts.best_shortcut(data, task, rep=form or "composite"))
        rows.append(
            (
                e.label if rep == "C/composite" else f"{e.label} ({rep})",
                fnum(_v(c, "jacc_neu"), 2),
                f"{fnum(p['value'], 2)} ({int(p['num'])}/{int(p['den'])})",
                fnum(_v(c, "idr_raw"), 2),
                fnum(_v(c, "acc_cf"), 2),
                fnum(min_family(e, "ns", (rep,)), 2),
                fnum(min_family(e, "jcr", (rep,)), 2),
                DASH if best is None else f"{fnum(best[1]['value'], 2)} ({best[0]})",
                ", ".join(flags(e)) or "none",
            )
        )
    return Table(
        "headline",
        "Headline: does the judge change its verdict for the right reason?",
        ("judge", "JAcc_neu", "p_active", "IDR_raw", "Acc_cf", "NS_min", "JCR_min",
         "shortcut IDR", "flags"),
        tuple(rows),
        (
            "Task C composite (eligible pairs; for a judge without it, the scope in brackets). "
            "NS_min / JCR_min: the least stable probe family. Shortcut IDR: the best shortcut "
            "judge's IDR_raw on the same config (a rule that ignores the trajectory; see "
            "shortcut_ceiling). "
            "Flags: " + ", ".join(SHORT.values()) + " (see failure_modes.md).",
            *coverage_note(data, ("C", "D")),
        ),
    )

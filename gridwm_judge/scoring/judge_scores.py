"""One judge's scores: every task it answered scored by its recipe, then its failure modes
and degenerate-judge flags.

The one place that decides a failure mode's status, including the one exception: a judge that
reads the gold answer (the oracle) has Task A deltas of 0 by construction, so
"action-ignorant heuristic" is not applicable to it. The three degenerate-judge flags of the
causal scopes (all-fail, success-biased, low-activation) are listed after the five modes, each
with the numbers that raised it, so ``score``, scores.json and ``report`` name the same eight.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.formats import fcount, fnum
from gridwm_judge.records import MODE_LABELS, FailureModeRecord
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.causal import DEGENERATE_FLAGS
from gridwm_judge.scoring.diagnosis import ActionEvidence, CausalEvidence, FamilyEvidence, diagnose
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.recipes import not_defined, recipe_for
from gridwm_judge.scoring.scopes import causal_scopes
from gridwm_judge.task_table import ALL_TASKS, WORLDS, task_spec, world_of

ORACLE_NOT_APPLICABLE = {
    "action_ignorant_heuristic": (
        "not applicable: the oracle reads the gold answer under every action condition, "
        "so its deltas are 0 by construction"
    ),
}


def _action(results: Results, task: str) -> ActionEvidence:
    def value(name):
        return results.value(task=task, name=name)

    def p(condition):
        r = results.one(task=task, name="mcnemar", condition=condition)
        return None if r is None else r.p_value

    return ActionEvidence(value("acc_a1"), value("delta_shuffle"), value("delta_mask"),
                          p("shuffle"), p("mask"))


def _evidence(results: Results, world: str = "minigrid"):
    fams, causal, vccs, action = [], [], [], None
    for c in causal_scopes(results, world):
        causal.append(CausalEvidence(
            c.label, c.value("jacc_neu"), c.value("p_active"), c.g_active, c.value("idr_raw"),
            c.value("idr_cond"), c.idr_cond_status, c.degenerate,
        ))
        for f in c.probes():
            fit = f.les
            ns = f.metric("ns")
            fams.append(FamilyEvidence(
                c.label, f.label, f.value("ns"), f.value("jcr"), f.value("flip"),
                None if fit is None else fit.value, None if fit is None else fit.p_value,
                None if fit is None else fit.method, None if ns is None else ns.groups,
                f.descriptive,
            ))
    for spec in ALL_TASKS:
        if spec.name not in results.tasks or world_of(spec.name) != world:
            continue
        vcc = results.one(task=spec.name, name="vcc_rep")
        if spec.recipe == "presentation_invariance" and vcc is not None and (
                vcc.value is not None):
            vccs.append((f"{spec.name} composite-split", vcc.value))
        elif spec.recipe == "next_state":
            action = _action(results, spec.name)
    return fams, vccs, action, causal


def _ratio(m: MetricResult | None) -> str:
    if m is None:
        return f"{fnum(None)} ({fcount(None)}/{fcount(None)})"
    return f"{fnum(m.value)} ({fcount(m.numerator)}/{fcount(m.denominator)})"


def degenerate_modes(results: Results, world: str = "minigrid"
                     ) -> tuple[FailureModeRecord, ...]:
    """The degenerate-judge flags of ``world``'s causal scopes, one record each: flagged with
    the figures that raised it in each scope, clear, or not assessed (no causal scope)."""
    out = []
    scopes = list(causal_scopes(results, world))
    for flag in DEGENERATE_FLAGS:
        ev = []
        for c in scopes:
            if flag not in c.degenerate_flags:
                continue
            if flag == "low_activation":
                ev.append(f"G_active ({c.label}) = {c.g_active} < 10 of "
                          f"{c.count('n_pairs')} pairs")
            elif flag == "all_fail":
                ev.append(f"p_active ({c.label}) = {_ratio(c.metric('p_active'))} < 0.1")
            else:
                ev.append(f"p_active ({c.label}) = {_ratio(c.metric('p_active'))} > 0.9, "
                          f"Acc_cf = {_ratio(c.metric('acc_cf'))} < 0.1")
        status = "not assessed" if not scopes else "flagged" if ev else "clear"
        out.append(FailureModeRecord(flag, status, tuple(ev), world))
    return tuple(out)


def mode_line(modes: Sequence[FailureModeRecord]) -> str:
    """``misgrounded, all-fail; suggested: stability-trap`` (``none`` when nothing is raised,
    ``not assessed`` when nothing could be): the labels of the flagged modes, then of those
    resting on descriptive figures only. What ``score`` prints and the report's summary says."""
    raised = [m.label for m in modes if m.flagged]
    weak = [m.label for m in modes if m.status == "suggested"]
    if not raised and not weak and all(m.status == "not assessed" for m in modes):
        return "not assessed"
    return (", ".join(raised) or "none") + (f"; suggested: {', '.join(weak)}" if weak else "")


def failure_modes(results: Results, *, reads_gold: bool = False
                  ) -> tuple[FailureModeRecord, ...]:
    """Diagnose one judge from its results: MiniGrid's five
    modes and three degenerate flags always, then MiniWorld's own (``world="miniworld"``) when
    it answered any MiniWorld task; evidence names the scope by task ("MC/composite", "MD")."""
    out = []
    for world in WORLDS:
        if world != "minigrid" and not any(world_of(t) == world for t in results.tasks):
            continue
        fams, vccs, action, causal = _evidence(results, world)
        for m in diagnose(families=fams, vcc=vccs, action=action, causal=causal):
            status = ("suggested" if m.suggested
                      else {True: "flagged", False: "clear", None: "not assessed"}[m.flagged])
            evidence = tuple(m.evidence)
            if reads_gold and m.name in ORACLE_NOT_APPLICABLE and m.flagged is not None:
                status, evidence = "not applicable", (ORACLE_NOT_APPLICABLE[m.name], *evidence)
            out.append(FailureModeRecord(m.name, status, evidence, world))
        out.extend(degenerate_modes(results, world))
    assert tuple(dict.fromkeys(m.name for m in out)) == tuple(MODE_LABELS), "a mode lacks a label"
    return tuple(out)


def score_tasks(graded: Sequence[GradedRow], settings: Settings) -> Results:
    """The results of every task among ``graded``, task by task, each by its recipe."""
    out: list[MetricResult] = []
    for task in sorted({g.task for g in graded}):
        spec = task_spec(task)
        results = recipe_for(spec).score([g for g in graded if g.task == task], spec, settings)
        out.extend(results)
        out.extend(not_defined(spec, results))
    return Results(out)

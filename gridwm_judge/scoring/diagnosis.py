"""Failure-mode diagnosis (paper Appendix A.4): presentation leakage, representation
fragility, action-ignorant heuristic, causal misgrounding, stability trap.

Each mode is decided from the metrics with the thresholds below (the paper gives the
direction, not numbers: these are ours, kept in one place) and carries the evidence
sentences that triggered it, so a report can show why. A mode is ``None`` (not assessed)
when none of its metrics is available. A probe family's figures over fewer groups than the
reporting rule allows are descriptive (:data:`gridwm_judge.results.MIN_GROUPS`): a mode whose
evidence rests on them alone is *suggested*, not raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gridwm_judge.formats import fles, fnum, p_is

NS_LOW = 0.90  # NS_F below this: verdicts move under a semantics-preserving probe
FLIP_HIGH = 0.10  # Flip_F at or above this
LES_MIN = 0.5  # |beta| (logit) at or above this with p < ALPHA counts as leakage
ALPHA = 0.05
VCC_LOW = 0.90
ACC_A1_NONTRIVIAL = 0.40  # chance is 0.25 with four candidates
DELTA_SMALL = 0.05
IDR_LOW = 0.50
STABLE_HIGH = 0.90  # NS or JCR at or above this counts as "highly consistent"
CORRECT_LOW = 0.50
# low_activation alone is a caution on IDR_cond (reported with the causal block), not a mode.
FAILURE_MODES = (
    "presentation_leakage",
    "representation_fragility",
    "action_ignorant_heuristic",
    "causal_misgrounding",
    "stability_trap",
)


@dataclass(frozen=True)
class FamilyEvidence:
    """Presentation-family metrics of one scope (e.g. Task C composite, framing)."""

    scope: str
    family: str
    ns: float | None
    jcr: float | None
    flip: float | None
    les: float | None = None
    les_p: float | None = None
    les_status: str | None = None
    groups: int | None = None
    descriptive: bool = False  # its figures are descriptive (too few groups): suggest only

    def mark(self, sentence: str) -> str:
        """An evidence sentence, marked when it rests on descriptive figures."""
        return f"{sentence} (descriptive: {self.groups} groups)" if self.descriptive else sentence


@dataclass(frozen=True)
class CausalEvidence:
    """Correctness and causal metrics of one scope (e.g. Task C composite, Task D)."""

    scope: str
    jacc_neu: float | None
    p_active: float | None
    g_active: int
    idr_raw: float | None
    idr_cond: float | None
    idr_cond_status: str
    degenerate: str | None


@dataclass(frozen=True)
class ActionEvidence:
    acc_a1: float | None
    delta_shuffle: float | None
    delta_mask: float | None
    p_shuffle: float | None = None
    p_mask: float | None = None


@dataclass(frozen=True)
class FailureMode:
    name: str
    flagged: bool | None  # None: not assessed (no metric available)
    evidence: tuple[str, ...]
    suggested: bool = False  # not raised: its evidence rests on descriptive figures only


def _f(x: float | None) -> str:
    return "n/a" if x is None else fnum(x)


def _leakage(fams: Sequence[FamilyEvidence]) -> FailureMode:
    ev: list[str] = []
    weak: list[str] = []
    seen = False
    for f in fams:
        found = weak if f.descriptive else ev
        if f.ns is not None:
            seen = True
            if f.ns < NS_LOW:
                found.append(f.mark(f"NS_{f.family} ({f.scope}) = {_f(f.ns)} < {NS_LOW}"))
        if f.flip is not None:
            seen = True
            if f.flip >= FLIP_HIGH:
                found.append(f.mark(f"Flip_{f.family} ({f.scope}) = {_f(f.flip)} >= {FLIP_HIGH}"))
        if f.les is not None and f.les_p is not None and f.les >= LES_MIN and f.les_p < ALPHA:
            found.append(f.mark(
                f"LES_{f.family} ({f.scope}) = {fles(f.les)} ({p_is(f.les_p)}, fit {f.les_status})"
            ))
    return FailureMode("presentation_leakage", bool(ev) if seen else None, tuple(ev + weak),
                       suggested=not ev and bool(weak))


def _fragility(vcc: Sequence[tuple[str, float | None]]) -> FailureMode:
    vals = [(s, v) for s, v in vcc if v is not None]
    ev = tuple(f"VCC ({s}) = {_f(v)} < {VCC_LOW}" for s, v in vals if v < VCC_LOW)
    return FailureMode("representation_fragility", bool(ev) if vals else None, ev)


def _action(a: ActionEvidence | None) -> FailureMode:
    if a is None or a.acc_a1 is None:
        return FailureMode("action_ignorant_heuristic", None, ())
    if a.acc_a1 < ACC_A1_NONTRIVIAL:
        return FailureMode(
            "action_ignorant_heuristic",
            None,
            (f"Acc_A1 = {_f(a.acc_a1)} is near chance: not assessed",),
        )
    ev = []
    for name, d, p in (("shuffle", a.delta_shuffle, a.p_shuffle), ("mask", a.delta_mask, a.p_mask)):
        if d is not None and d < DELTA_SMALL:
            extra = "" if p is None else f", McNemar {p_is(p)}"
            ev.append(f"Delta_{name} = {_f(d)} < {DELTA_SMALL} with Acc_A1 = {_f(a.acc_a1)}{extra}")
    return FailureMode("action_ignorant_heuristic", bool(ev), tuple(ev))


def _misgrounding(causal: Sequence[CausalEvidence]) -> FailureMode:
    ev, seen = [], False
    for c in causal:
        if c.idr_raw is None:
            continue
        seen = True
        if c.idr_raw < IDR_LOW:
            ev.append(
                f"IDR_raw ({c.scope}) = {_f(c.idr_raw)} < {IDR_LOW} (p_active {_f(c.p_active)})"
            )
        if c.idr_cond_status == "ok" and c.idr_cond is not None and c.idr_cond < IDR_LOW:
            ev.append(
                f"IDR_cond ({c.scope}) = {_f(c.idr_cond)} < {IDR_LOW} (G_active {c.g_active})"
            )
    return FailureMode("causal_misgrounding", bool(ev) if seen else None, tuple(ev))


def _trap(fams: Sequence[FamilyEvidence], causal: Sequence[CausalEvidence]) -> FailureMode:
    stable: list[tuple[str, bool]] = []
    for f in fams:
        if f.ns is not None and f.ns >= STABLE_HIGH:
            stable.append((f.mark(f"NS_{f.family} ({f.scope}) = {_f(f.ns)}"), f.descriptive))
        elif f.jcr is not None and f.jcr >= STABLE_HIGH:
            stable.append((f.mark(f"JCR_{f.family} ({f.scope}) = {_f(f.jcr)}"), f.descriptive))
    weak = []
    for c in causal:
        if c.jacc_neu is not None and c.jacc_neu < CORRECT_LOW:
            weak.append(f"JAcc_neu ({c.scope}) = {_f(c.jacc_neu)}")
        if c.idr_raw is not None and c.idr_raw < IDR_LOW:
            weak.append(f"IDR_raw ({c.scope}) = {_f(c.idr_raw)}")
        if c.degenerate in ("all_fail", "success_biased"):
            weak.append(f"degenerate ({c.scope}): {c.degenerate}")
    if not fams or not causal:
        return FailureMode("stability_trap", None, ())
    raised = any(not d for _s, d in stable) and bool(weak)
    suggested = not raised and bool(stable) and bool(weak)
    ev = tuple([s for s, _d in stable] + weak) if raised or suggested else ()
    return FailureMode("stability_trap", raised, ev, suggested=suggested)


def diagnose(
    *,
    families: Sequence[FamilyEvidence] = (),
    vcc: Sequence[tuple[str, float | None]] = (),
    action: ActionEvidence | None = None,
    causal: Sequence[CausalEvidence] = (),
) -> tuple[FailureMode, ...]:
    """All five failure modes, in FAILURE_MODES order, each with its evidence."""
    return (
        _leakage(families),
        _fragility(vcc),
        _action(action),
        _misgrounding(causal),
        _trap(families, causal),
    )

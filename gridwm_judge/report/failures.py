"""The failure-mode summary of one judge: the scorer's five failure modes (presentation leakage,
representation fragility, action-ignorant heuristic, causal misgrounding, stability trap) plus
the three degenerate-judge flags (all-fail, success-biased, low-activation) of every causal
scope, each with the numbers that triggered it. MiniWorld's modes (scopes named by task, e.g.
"MC/composite") are summarized in a section of their own, never pooled with MiniGrid's.

The scorer decides every status (including "not applicable" for the oracle's action-ignorant
mode, see :mod:`gridwm_judge.scoring.judge_scores`); this module only gathers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gridwm_judge.formats import fcount, fnum
from gridwm_judge.report.inputs import JudgeEntry
from gridwm_judge.results import MetricResult
from gridwm_judge.scoring import scopes
from gridwm_judge.scoring.scopes import CausalScope
from gridwm_judge.task_table import world_of

MODES = (
    "presentation_leakage",
    "representation_fragility",
    "action_ignorant_heuristic",
    "causal_misgrounding",
    "stability_trap",
    "all_fail",
    "success_biased",
    "low_activation",
)
SHORT = {
    "presentation_leakage": "leakage",
    "representation_fragility": "rep-fragile",
    "action_ignorant_heuristic": "action-ignorant",
    "causal_misgrounding": "misgrounded",
    "stability_trap": "stability-trap",
    "all_fail": "all-fail",
    "success_biased": "success-biased",
    "low_activation": "low-activation",
}
DEGENERATE = ("all_fail", "success_biased", "low_activation")


@dataclass(frozen=True)
class ModeStatus:
    name: str
    status: str  # "flagged" | "suggested" | "clear" | "not assessed" | "not applicable"
    evidence: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        return self.status == "flagged"


def causal_scopes(entry: JudgeEntry, world: str = "minigrid") -> Iterator[CausalScope]:
    """The causal scopes of ``world`` by recipe: e.g. C per representation, then D."""
    return scopes.causal_scopes(entry.results, world)


def has_world(entry: JudgeEntry, world: str) -> bool:
    return any(world_of(t) == world for t in entry.results.tasks)


def _ratio(m: MetricResult | None) -> str:
    if m is None:
        return f"{fnum(None)} ({fcount(None)}/{fcount(None)})"
    return f"{fnum(m.value)} ({fcount(m.numerator)}/{fcount(m.denominator)})"


def _degenerate(entry: JudgeEntry, flag: str, world: str) -> ModeStatus:
    ev, seen = [], False
    for c in causal_scopes(entry, world):
        seen = True
        if flag not in c.degenerate_flags:
            continue
        scope = c.label
        if flag == "low_activation":
            ev.append(f"G_active ({scope}) = {c.g_active} < 10 of {c.count('n_pairs')} pairs")
        elif flag == "all_fail":
            ev.append(f"p_active ({scope}) = {_ratio(c.metric('p_active'))} < 0.1")
        else:
            ev.append(
                f"p_active ({scope}) = {_ratio(c.metric('p_active'))} > 0.9, "
                f"Acc_cf = {_ratio(c.metric('acc_cf'))} < 0.1"
            )
    if not seen:
        return ModeStatus(flag, "not assessed", ())
    return ModeStatus(flag, "flagged" if ev else "clear", tuple(ev))


def summarize(entry: JudgeEntry, world: str = "minigrid") -> tuple[ModeStatus, ...]:
    """All eight modes of one judge in ``world``, in MODES order."""
    out = []
    for name in MODES[:5]:
        m = entry.scores.mode(name, world)
        if m is None:
            out.append(ModeStatus(name, "not assessed", ()))
        else:
            out.append(ModeStatus(name, m.status, m.evidence))
    out.extend(_degenerate(entry, flag, world) for flag in DEGENERATE)
    return tuple(out)


def flags(entry: JudgeEntry, world: str = "minigrid", status: str = "flagged"
          ) -> tuple[str, ...]:
    """Short names of the modes in ``world`` with ``status``: the flagged ones, or with
    ``"suggested"`` those resting on descriptive figures only (never listed among the
    flagged: a summary shows them apart, :func:`summary_line`)."""
    return tuple(SHORT[m.name] for m in summarize(entry, world) if m.status == status)


def summary_line(entry: JudgeEntry, world: str = "minigrid") -> str:
    """``misgrounded, all-fail; suggested: stability-trap, leakage`` (``none`` when neither):
    every mode after "suggested:" is suggested, every one before it flagged."""
    raised, weak = flags(entry, world), flags(entry, world, "suggested")
    text = ", ".join(raised) or "none"
    return text + (f"; suggested: {', '.join(weak)}" if weak else "")


def _mode_table(entry: JudgeEntry, world: str) -> list[str]:
    lines = ["| mode | status | evidence |", "|---|---|---|"]
    for m in summarize(entry, world):
        ev = "; ".join(m.evidence) if m.evidence else "–"
        status = f"**{m.status}**" if m.flagged else m.status
        lines.append(f"| {m.name.replace('_', ' ')} | {status} | {ev.replace('|', '/')} |")
    return lines


def markdown(entries: tuple[JudgeEntry, ...]) -> str:
    lines = ["# Failure-mode summary", ""]
    lines.append(
        "Each judge's modes as the scorer decided them (thresholds in "
        "`gridwm_judge/scoring/diagnosis.py` and `causal.py`), with the numbers that "
        "triggered them. *not assessed*: the metrics it needs are missing or near chance; "
        "*suggested*: its evidence rests only on descriptive figures (a probe family of too "
        "few groups), so it is not raised."
    )
    for e in entries:
        lines += ["", f"## {e.label}", ""]
        if e.is_oracle:
            lines.append(
                "_Oracle: an upper-bound sanity judge that reads the gold answer; "
                "never a model result._"
            )
            lines.append("")
        lines += _mode_table(e, "minigrid")
    miniworld = [e for e in entries if has_world(e, "miniworld")]
    if miniworld:
        lines += ["", "# MiniWorld (3D) failure modes", "",
                  "Diagnosed on MiniWorld's tasks only (scopes MC/<representation>, MD; action "
                  "use from MA), never pooled with MiniGrid's modes above."]
    for e in miniworld:
        lines += ["", f"## {e.label} (MiniWorld)", "", *_mode_table(e, "miniworld")]
    return "\n".join(lines) + "\n"


def _json_modes(entry: JudgeEntry, world: str) -> list[dict]:
    extra = {} if world == "minigrid" else {"world": world}
    return [{"name": m.name, "status": m.status, "flagged": m.flagged,
             "evidence": list(m.evidence), **extra} for m in summarize(entry, world)]


def json_obj(entries: tuple[JudgeEntry, ...]) -> dict:
    """{judge: [mode]}: MiniGrid's modes, then MiniWorld's (marked "world": "miniworld")."""
    return {
        e.label: _json_modes(e, "minigrid")
        + (_json_modes(e, "miniworld") if has_world(e, "miniworld") else [])
        for e in entries
    }

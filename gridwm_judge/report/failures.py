"""The failure-mode summary of one judge: the scorer's five failure modes (presentation leakage,
representation fragility, action-ignorant heuristic, causal misgrounding, stability trap) plus
the three degenerate-judge flags (all-fail, success-biased, low-activation) of every causal
scope, each with the numbers that triggered it.

The scorer decides every status (including "not applicable" for the oracle's action-ignorant
mode, see :mod:`gridwm_judge.scoring.judge_scores`); this module only gathers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gridwm_judge.report.inputs import JudgeEntry
from gridwm_judge.report.table import fcount, fnum

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
    status: str  # "flagged" | "clear" | "not assessed" | "not applicable"
    evidence: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        return self.status == "flagged"


def causal_scopes(entry: JudgeEntry) -> Iterator[tuple[str, dict]]:
    """(scope, causal block) for Task C per representation, then Task D."""
    c = entry.tasks.get("C", {})
    for rep, blk in c.get("representations", {}).items():
        yield f"C/{rep}", blk["causal"]
    if "D" in entry.tasks:
        yield "D", entry.tasks["D"]["causal"]


def _ratio(m: dict) -> str:
    return f"{fnum(m.get('value'))} ({fcount(m.get('num'))}/{fcount(m.get('den'))})"


def _degenerate(entry: JudgeEntry, flag: str) -> ModeStatus:
    ev, seen = [], False
    for scope, c in causal_scopes(entry):
        seen = True
        if flag not in c.get("degenerate_flags", []):
            continue
        m = c["metrics"]
        if flag == "low_activation":
            ev.append(f"G_active ({scope}) = {c['g_active']} < 10 of {c['n_pairs']} pairs")
        elif flag == "all_fail":
            ev.append(f"p_active ({scope}) = {_ratio(m['p_active'])} < 0.1")
        else:
            ev.append(
                f"p_active ({scope}) = {_ratio(m['p_active'])} > 0.9, "
                f"Acc_cf = {_ratio(m['acc_cf'])} < 0.1"
            )
    if not seen:
        return ModeStatus(flag, "not assessed", ())
    return ModeStatus(flag, "flagged" if ev else "clear", tuple(ev))


def summarize(entry: JudgeEntry) -> tuple[ModeStatus, ...]:
    """All eight modes of one judge, in MODES order."""
    out = []
    for name in MODES[:5]:
        m = entry.scores.mode(name)
        if m is None:
            out.append(ModeStatus(name, "not assessed", ()))
        else:
            out.append(ModeStatus(name, m.status, m.evidence))
    out.extend(_degenerate(entry, flag) for flag in DEGENERATE)
    return tuple(out)


def flags(entry: JudgeEntry) -> tuple[str, ...]:
    """Short names of the flagged modes (for one-line summaries)."""
    return tuple(SHORT[m.name] for m in summarize(entry) if m.flagged)


def markdown(entries: tuple[JudgeEntry, ...]) -> str:
    lines = ["# Failure-mode summary", ""]
    lines.append(
        "Each judge's modes as the scorer decided them (thresholds in "
        "`gridwm_judge/scoring/diagnosis.py` and `causal.py`), with the numbers that "
        "triggered them. *not assessed*: the metrics it needs are missing or near chance."
    )
    for e in entries:
        lines += ["", f"## {e.label}", ""]
        if e.is_oracle:
            lines.append(
                "_Oracle: an upper-bound sanity judge that reads the gold answer; "
                "never a model result._"
            )
            lines.append("")
        lines += ["| mode | status | evidence |", "|---|---|---|"]
        for m in summarize(e):
            ev = "; ".join(m.evidence) if m.evidence else "–"
            status = f"**{m.status}**" if m.flagged else m.status
            lines.append(f"| {m.name.replace('_', ' ')} | {status} | {ev.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def json_obj(entries: tuple[JudgeEntry, ...]) -> dict:
    return {
        e.label: [
            {"name": m.name, "status": m.status, "flagged": m.flagged, "evidence": list(m.evidence)}
            for m in summarize(e)
        ]
        for e in entries
    }

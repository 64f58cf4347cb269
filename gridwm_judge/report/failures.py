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

from gridwm_judge.records import MODE_LABELS, FailureModeRecord
from gridwm_judge.report.inputs import JudgeEntry
from gridwm_judge.scoring import scopes
from gridwm_judge.scoring.judge_scores import degenerate_modes, mode_line
from gridwm_judge.scoring.scopes import CausalScope
from gridwm_judge.task_table import world_of

MODES = tuple(MODE_LABELS)
"""The five failure modes, then the three degenerate-judge flags, in the order shown."""


def causal_scopes(entry: JudgeEntry, world: str = "minigrid") -> Iterator[CausalScope]:
    """The causal scopes of ``world`` by recipe: e.g. C per representation, then D."""
    return scopes.causal_scopes(entry.results, world)


def has_world(entry: JudgeEntry, world: str) -> bool:
    return any(world_of(t) == world for t in entry.results.tasks)


def summarize(entry: JudgeEntry, world: str = "minigrid") -> tuple[FailureModeRecord, ...]:
    """All eight modes of one judge in ``world``, in MODES order, as scores.json records them
    (a scores.json written before it recorded the degenerate flags: those computed from its
    results by the scorer's own rule)."""
    recorded = {m.name: m for m in entry.scores.failure_modes if m.world == world}
    computed = {m.name: m for m in degenerate_modes(entry.results, world)}
    return tuple(recorded.get(name) or computed.get(name)
                 or FailureModeRecord(name, "not assessed", (), world) for name in MODES)


def flags(entry: JudgeEntry, world: str = "minigrid", status: str = "flagged"
          ) -> tuple[str, ...]:
    """Labels of the modes in ``world`` with ``status``: the flagged ones, or with
    ``"suggested"`` those resting on descriptive figures only (never listed among the
    flagged: a summary shows them apart, :func:`summary_line`)."""
    return tuple(m.label for m in summarize(entry, world) if m.status == status)


def summary_line(entry: JudgeEntry, world: str = "minigrid") -> str:
    """``misgrounded, all-fail; suggested: stability-trap, leakage``: what ``score`` prints
    for the judge (:func:`gridwm_judge.scoring.judge_scores.mode_line`)."""
    return mode_line(summarize(entry, world))


def _mode_table(entry: JudgeEntry, world: str) -> list[str]:
    lines = ["| mode | status | evidence |", "|---|---|---|"]
    for m in summarize(entry, world):
        ev = "; ".join(m.evidence) if m.evidence else "–"
        status = f"**{m.status}**" if m.flagged else m.status
        lines.append(f"| {m.label} | {status} | {ev.replace('|', '/')} |")
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
    return [{"name": m.name, "label": m.label, "status": m.status, "flagged": m.flagged,
             "evidence": list(m.evidence), **extra} for m in summarize(entry, world)]


def json_obj(entries: tuple[JudgeEntry, ...]) -> dict:
    """{judge: [mode]}: MiniGrid's modes, then MiniWorld's (marked "world": "miniworld")."""
    return {
        e.label: _json_modes(e, "minigrid")
        + (_json_modes(e, "miniworld") if has_world(e, "miniworld") else [])
        for e in entries
    }

"""Grade one dataset row against a judge's answer: the gold value, the parsed answer and
whether it is right, per kind of answer (a candidate letter, a verdict, a perception JSON, a
state label). Which grader a task uses is named by its recipe (:mod:`.recipes`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gridwm_judge.scoring._arrays import FAILURE, INVALID, SUCCESS
from gridwm_judge.scoring.controls import B_THRESHOLD, b_score, e_score

AUDIT = (
    "family",
    "env_id",
    "group_id",
    "item_id",
    "variant",
    "temporal",
    "visual",
    "framing",
    "representation",
    "probe_family",
    "action_condition",
    "question",
    "prompt_style",
    "evidence",
)
"""The audit columns a graded row carries (besides uid and task)."""


@dataclass(frozen=True)
class Grade:
    """gold value, ``verdict`` (verdict tasks: 1 / 0 / -1), ``correct``, ``score`` (S_B / S_E)."""

    gold: Any
    correct: bool
    verdict: int | None = None
    score: float | None = None


@dataclass(frozen=True)
class GradedRow:
    """One (judge, answered dataset row): its audit columns, how the answer parsed, its grade.

    ``verdict`` (verdict tasks) is 1 / 0 / -1; ``correct`` is the row's correctness (B:
    S_B >= 0.90); ``score`` is S_B (B) or S_E (E), else None. ``evidence`` is the
    Oracle-State arm ('' elsewhere). ``parse_mode`` is strict /
    recovered / invalid. Rows whose request never came back are not graded (not scored).
    """

    judge: str
    uid: str
    task: str
    family: str
    env_id: str
    group_id: str
    item_id: str
    variant: str
    temporal: str
    visual: str
    framing: str
    representation: str
    probe_family: str
    action_condition: str
    question: str
    status: str
    parse_mode: str
    parsed: Any
    gold: Any
    verdict: int | None
    correct: bool
    score: float | None
    prompt_style: str = ""  # the prompt ablation's style ("" elsewhere)
    evidence: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def _verdict_code(value: Any) -> int:
    return {"success": SUCCESS, "failure": FAILURE}.get(value, INVALID)


def grade_choice(value: Any, row: Mapping[str, Any]) -> Grade:
    gold = str(row["answer"]).strip().upper()
    return Grade(gold, value is not None and str(value).upper() == gold)


def grade_verdict(value: Any, row: Mapping[str, Any]) -> Grade:
    gold = int(row["label"])
    verdict = _verdict_code(value)
    return Grade(gold, verdict == gold, verdict=verdict)


def grade_perception(value: Any, row: Mapping[str, Any]) -> Grade:
    gold = json.loads(row["answer"])
    score = b_score(value if isinstance(value, dict) else None, gold)
    return Grade(gold, score >= B_THRESHOLD, score=score)


def grade_label(value: Any, row: Mapping[str, Any]) -> Grade:
    ans = json.loads(row["answer"])
    gold = str(ans["answer"] if isinstance(ans, dict) else ans).strip().lower()
    label = None if value is None else str(value).strip().lower()
    score = e_score(label, gold, str(row.get("question", "")))
    return Grade(gold, label is not None and label == gold, score=score)


Grader = Callable[[Any, Mapping[str, Any]], Grade]


def graded_row(judge: str, row: Mapping[str, Any], status: str, parse_mode: str, value: Any,
               g: Grade) -> GradedRow:
    """The graded row of one answered dataset row."""
    return GradedRow(
        judge=judge,
        uid=str(row["uid"]),
        task=str(row["task"]),
        **{k: str(row.get(k, "") or "") for k in AUDIT},
        status=status,
        parse_mode=parse_mode,
        parsed=value,
        gold=g.gold,
        verdict=g.verdict,
        correct=bool(g.correct),
        score=g.score,
    )


def verdicts(rows: Sequence[GradedRow]) -> list[int]:
    """The rows' verdicts as the metric functions read them (1 / 0 / -1); a row graded
    without a verdict counts as an invalid one."""
    return [INVALID if r.verdict is None else r.verdict for r in rows]

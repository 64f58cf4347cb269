"""Join predictions to dataset rows by uid, re-parse raw text, and grade every row.

The uid is the only join key (never position). Per judge: a uid absent from the dataset
or repeated in the predictions is a ValueError naming the first offenders; a dataset row
without a prediction is kept as ``parse_mode = "missing"`` (counted invalid) and reported
in the coverage. Raw text is re-parsed with :func:`gridwm_judge.parsing.parse_answer` so a
score never depends on a backend's own parsing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.scoring._arrays import FAILURE, INVALID, SUCCESS
from gridwm_judge.scoring.controls import b_components, b_score, e_score

AUDIT = (
    "uid",
    "task",
    "family",
    "env_id",
    "group_id",
    "item_id",
    "label",
    "answer",
    "variant",
    "temporal",
    "visual",
    "framing",
    "representation",
    "probe_family",
    "action_condition",
    "question",
)
MAX_NAMED = 5


@dataclass(frozen=True)
class GradedRow:
    """One (judge, dataset row): its audit columns, how the answer parsed, and its grade.

    ``verdict`` (C/D) is 1 / 0 / -1; ``correct`` is the row's correctness (B: S_B >= 0.90);
    ``score`` is S_B (B) or S_E (E), else None. ``parse_mode`` is strict / recovered /
    invalid, or missing when the judge has no prediction for the uid.
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

    def to_json(self) -> dict:
        return asdict(self)


def read_predictions(paths: Sequence[str | Path]) -> dict[str, list[dict]]:
    """judge -> prediction records, from one or more predictions.jsonl files."""
    by_judge: dict[str, list[dict]] = {}
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"predictions file {str(path)!r} does not exist")
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
                if not isinstance(rec, dict) or "uid" not in rec:
                    raise ValueError(f"{path}:{n}: a prediction record needs a 'uid' field")
                by_judge.setdefault(str(rec.get("judge") or "judge"), []).append(rec)
    return by_judge


def _gold(task: str, row: Mapping[str, Any]) -> Any:
    if task in ("C", "D"):
        return int(row["label"])
    if task == "A":
        return str(row["answer"]).strip().upper()
    if task == "B":
        return json.loads(row["answer"])
    ans = json.loads(row["answer"])
    return str(ans["answer"]).strip().lower() if isinstance(ans, dict) else str(ans).strip().lower()


def _verdict(value: Any) -> int:
    if value == "success":
        return SUCCESS
    if value == "failure":
        return FAILURE
    return INVALID


def parse_record(task: str, rec: Mapping[str, Any] | None) -> tuple[Any, str, str]:
    """(parsed value or None, parse mode, status) of one prediction record."""
    if rec is None:
        return None, "missing", "missing"
    from gridwm_judge.parsing import parse_answer

    parsed = parse_answer(task, rec.get("raw"))
    return parsed.value, parsed.mode, str(rec.get("status") or "ok")


def grade(judge: str, row: Mapping[str, Any], rec: Mapping[str, Any] | None) -> GradedRow:
    """Grade one dataset row against a judge's prediction record (None = missing)."""
    task = str(row["task"])
    value, mode, status = parse_record(task, rec)
    gold = _gold(task, row)
    verdict, score = None, None
    if task in ("C", "D"):
        verdict = _verdict(value)
        correct = verdict == gold
    elif task == "A":
        correct = value is not None and str(value).upper() == gold
    elif task == "B":
        score = b_score(value if isinstance(value, dict) else None, gold)
        correct = score >= 0.90
    else:
        label = None if value is None else str(value).strip().lower()
        score = e_score(label, gold, str(row.get("question", "")))
        correct = label is not None and label == gold
    return GradedRow(
        judge=judge,
        uid=str(row["uid"]),
        task=task,
        **{
            k: str(row.get(k, "") or "")
            for k in (
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
            )
        },
        status=status,
        parse_mode=mode,
        parsed=value,
        gold=gold,
        verdict=verdict,
        correct=bool(correct),
        score=score,
    )


@dataclass(frozen=True)
class Coverage:
    n_items: int
    n_predicted: int
    missing_uids: tuple[str, ...]  # the first few
    parse_modes: dict[str, int]
    statuses: dict[str, int]

    @property
    def n_missing(self) -> int:
        return self.n_items - self.n_predicted

    def to_json(self) -> dict:
        return {
            "n_items": self.n_items,
            "n_predicted": self.n_predicted,
            "n_missing": self.n_missing,
            "coverage": None if self.n_items == 0 else self.n_predicted / self.n_items,
            "missing_uids_head": list(self.missing_uids),
            "parse_modes": self.parse_modes,
            "statuses": self.statuses,
        }


def join_judge(
    judge: str, rows: Sequence[Mapping[str, Any]], records: Iterable[Mapping[str, Any]]
) -> tuple[list[GradedRow], dict[str, Coverage]]:
    """Grade every dataset row for one judge; coverage per task."""
    by_uid: dict[str, Mapping[str, Any]] = {}
    dups: list[str] = []
    for rec in records:
        uid = str(rec["uid"])
        if uid in by_uid and uid not in dups:
            dups.append(uid)
        by_uid[uid] = rec
    if dups:
        raise ValueError(
            f"judge {judge!r}: {len(dups)} duplicate uid(s) in the predictions, first: "
            + ", ".join(map(repr, dups[:MAX_NAMED]))
        )
    known = {str(r["uid"]) for r in rows}
    unknown = [u for u in by_uid if u not in known]
    if unknown:
        raise ValueError(
            f"judge {judge!r}: {len(unknown)} uid(s) not in the dataset, first: "
            + ", ".join(map(repr, unknown[:MAX_NAMED]))
        )
    graded = [grade(judge, r, by_uid.get(str(r["uid"]))) for r in rows]
    coverage: dict[str, Coverage] = {}
    for task in sorted({g.task for g in graded}):
        sub = [g for g in graded if g.task == task]
        modes: dict[str, int] = {}
        stats: dict[str, int] = {}
        for g in sub:
            modes[g.parse_mode] = modes.get(g.parse_mode, 0) + 1
            stats[g.status] = stats.get(g.status, 0) + 1
        missing = tuple(g.uid for g in sub if g.parse_mode == "missing")
        coverage[task] = Coverage(
            len(sub), len(sub) - len(missing), missing[:MAX_NAMED], modes, stats
        )
    return graded, coverage


def write_rows(path: str | Path, graded: Iterable[GradedRow]) -> int:
    """Write the per-row JSONL; returns the number of lines."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for g in graded:
            fh.write(json.dumps(g.to_json(), sort_keys=True) + "\n")
            n += 1
    return n


def b_component_means(graded: Sequence[GradedRow]) -> dict[str, float | None]:
    """Mean of each Task B component over the judge's B rows (invalid = 0)."""
    rows = [g for g in graded if g.task == "B"]
    if not rows:
        return {}
    sums: dict[str, float] = {}
    for g in rows:
        comp = b_components(g.parsed if isinstance(g.parsed, dict) else None, g.gold)
        for k, v in comp.items():
            sums[k] = sums.get(k, 0.0) + v
    return {k: v / len(rows) for k, v in sums.items()}

"""Join one judge's predictions to dataset rows by uid, parse the stored raw text, grade.

The uid is the only join key (never position). A uid absent from the dataset or repeated in
the predictions is a ValueError naming the first offenders. Only answered rows are graded:
a row whose request errored (nothing came back) or was never asked is counted in the coverage
and left out of every metric. Raw text is parsed here with the parser rules the scores record,
so a score never depends on a backend's own parsing and a better parser applies to old runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from gridwm_judge.atomic import atomic_open
from gridwm_judge.parsing import PUBLISHED_RULES, ParsedAnswer, ParseMode, parse_answer
from gridwm_judge.records import PredictionRecord, TaskCoverage, counts
from gridwm_judge.scoring.grading import GradedRow, graded_row
from gridwm_judge.scoring.recipes import recipe_for
from gridwm_judge.task_table import task_spec

MAX_NAMED = 5


@dataclass(frozen=True)
class JudgeJoin:
    """The graded answered rows of one judge and its coverage per task."""

    graded: tuple[GradedRow, ...]
    coverage: Mapping[str, TaskCoverage]


def _check_uids(judge: str, rows: Sequence[Mapping], records: Iterable[PredictionRecord]
                ) -> dict[str, PredictionRecord]:
    by_uid: dict[str, PredictionRecord] = {}
    dups: list[str] = []
    for rec in records:
        if rec.uid in by_uid and rec.uid not in dups:
            dups.append(rec.uid)
        by_uid[rec.uid] = rec
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
    return by_uid


def _published(judge: str, rec: PredictionRecord) -> ParsedAnswer:
    """The parse ``rec`` was published with; an answer published without one is refused."""
    if rec.published is None:
        raise ValueError(f"judge {judge!r}: --rules published reads the parse each answer was "
                         f"published with, and {rec.uid!r} has none (only runs written by "
                         "`gridwm-judge import-paper` carry one); use --rules committed")
    return ParsedAnswer(rec.published.value, cast(ParseMode, rec.published.mode))


def join_judge(judge: str, rows: Sequence[Mapping], records: Iterable[PredictionRecord], *,
               rules: str) -> JudgeJoin:
    """Grade every answered dataset row for one judge; coverage per task. ``rules``: a text
    rule set, or ``published`` (each answer's published parse). Answers published with a
    parse are also read with the default rules, and the rows where the two differ counted."""
    by_uid = _check_uids(judge, rows, records)
    graded: list[GradedRow] = []
    per_task: dict[str, list[tuple[str, str]]] = {}  # task -> [(status, parse mode)]
    unanswered: dict[str, list[str]] = {}
    disagree: dict[str, list[str]] = {}
    for row in rows:
        task, uid = str(row["task"]), str(row["uid"])
        rec = by_uid.get(uid)
        if rec is None or not rec.answered:
            status = "missing" if rec is None else rec.status
            per_task.setdefault(task, []).append((status, "unanswered"))
            unanswered.setdefault(task, []).append(uid)
            continue
        spec = task_spec(task)
        truncated, style = rec.status == "truncated", str(row.get("prompt_style") or "")
        if rules == PUBLISHED_RULES:
            parsed = _published(judge, rec)
        else:
            parsed = parse_answer(task, rec.raw, rules=rules, truncated=truncated, style=style)
        if rec.published is not None:
            ours = (parsed if rules == "committed" else
                    parse_answer(task, rec.raw, truncated=truncated, style=style))
            differ = disagree.setdefault(task, [])
            if ours.value != rec.published.value:
                differ.append(uid)
        grade = recipe_for(spec).grade(parsed.value, row)
        graded.append(graded_row(judge, row, rec.status, parsed.mode, parsed.value, grade))
        per_task.setdefault(task, []).append((rec.status, parsed.mode))
    coverage = {}
    for task in sorted(per_task):
        pairs = per_task[task]
        statuses = counts([s for s, _ in pairs])
        modes = counts([m for s, m in pairs if m != "unanswered"])
        answered = sum(1 for _, m in pairs if m != "unanswered")
        coverage[task] = TaskCoverage(
            asked=len(pairs),
            answered=answered,
            errored=statuses.get("error", 0),
            missing=statuses.get("missing", 0),
            invalid=modes.get("invalid", 0),
            parse_modes=modes,
            statuses=statuses,
            unanswered_head=tuple(unanswered.get(task, ())[:MAX_NAMED]),
            disagree=len(disagree[task]) if task in disagree else None,
            disagree_head=tuple(disagree.get(task, ())[:MAX_NAMED]),
        )
    return JudgeJoin(tuple(graded), coverage)


def write_rows(path: str | Path, graded: Iterable[GradedRow]) -> int:
    """Write the per-row JSONL; returns the number of lines."""
    n = 0
    with atomic_open(path) as fh:
        for g in graded:
            fh.write(json.dumps(g.to_json(), sort_keys=True) + "\n")
            n += 1
    return n

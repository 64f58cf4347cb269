"""The release's exam files as this package's dataset rows: one row per exam line, its prompt
and images the release's byte for byte, its gold mapped onto this package's answer formats and
its presentation axes onto the package's names; every other audit column that the release
does not record (seeds, actions, interventions, masks, gates) stays blank ("" / -1).

A row's ``uid`` is its config's task name before the release's own uid
(``RDR.DR.doorkey...``), so it can never meet a generated row's; the release's uid, file and
line are in the ``source`` column. A line that breaks the exam's form is a ReleaseError
naming the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from gridwm_judge.release.layout import Exam, Release, ReleaseError, json_lines, sha256_file
from gridwm_judge.schema import COLUMNS, VARIANTS, VISUAL, dataset_row, row_dict
from gridwm_judge.task_table import Choice, Verdict, task_spec
from gridwm_judge.tasks.task_d import CONDITIONS

FAMILIES: Mapping[str, str] = {
    "doorkey": "doorkey", "keycorridor": "keycorridor", "lavagap": "lavagap",
    "memory": "memory", "multiroom": "multiroom", "redblue": "redbluedoor",
    "redbluedoor": "redbluedoor", "unlockpickup": "unlockpickup",
    "blockedunlockpickup": "blockedunlockpickup",
}
"""The release's environment names -> this package's family names (``redblue`` is
RedBlueDoor)."""
FRAMINGS: Mapping[str, str] = {"neu": "neutral", "pos": "positive", "neg": "negative",
                               "neutral": "neutral", "positive": "positive",
                               "negative": "negative"}
"""The release's framing names -> this package's."""
PROBE_SETS: Mapping[tuple[str, str], str] = {(v, f): p for v, f, p in CONDITIONS.values()}
"""Task D's (visual, framing) -> the probe set it belongs to (the ``probe_family`` column)."""
VERDICT_WORDS: Mapping[str, int] = {"success": 1, "yes": 1, "fail": 0, "failure": 0, "no": 0}


class Line:
    """One exam line: its fields, read with the file and line named in every error, and the
    digest of the file it is in."""

    def __init__(self, exam: Exam, n: int, obj: Any, file_sha256: str):
        if not isinstance(obj, dict):
            raise ReleaseError(f"{exam.path}:{n} is not a JSON object")
        self.exam, self.n, self.obj, self.file_sha256 = exam, n, obj, file_sha256

    def where(self) -> str:
        return f"{self.exam.path}:{self.n}"

    def text(self, key: str) -> str:
        value = self.obj.get(key)
        if not isinstance(value, str) or not value:
            raise ReleaseError(f"{self.where()}: no {key!r} text (this exam's form is not the "
                               "release's)")
        return value

    def pick(self, key: str, names: Mapping[str, str]) -> str:
        value = self.text(key)
        if value.lower() not in names:
            raise ReleaseError(f"{self.where()}: {key} {value!r} is not one of "
                               f"{', '.join(sorted(set(names)))}")
        return names[value.lower()]


def exam_lines(release: Release, exam: Exam) -> Iterator[Line]:
    digest = sha256_file(release.file(exam.path))
    for n, obj in json_lines(release.root, exam.path):
        yield Line(exam, n, obj, digest)


def image_bytes(release: Release, line: Line, rel: str) -> bytes:
    """The bytes of an image an exam line names (relative to the exam's folder)."""
    path = release.file(f"{line.exam.folder}/{rel}")
    if not path.is_file():
        raise ReleaseError(f"{line.where()}: its image {line.exam.folder}/{rel} is missing from "
                           "this copy of the release")
    return path.read_bytes()


def blank_row(task: str, release: Release, line: Line) -> dict[str, Any]:
    """Every column blank ("" / -1) but the uid, task, prompt version and source."""
    uid = line.text("uid")
    row: dict[str, Any] = {name: (-1 if dtype == "int64" else "")
                           for name, (dtype, _) in COLUMNS.items()}
    schema = line.obj.get("schema_version")
    row.update(uid=f"{task}.{uid}", task=task,
               prompt_version=f"release:{schema}" if isinstance(schema, str) else "release",
               source=json.dumps(release.source(line.exam.path, line.n, uid, line.file_sha256),
                                 sort_keys=True))
    return row


def _options(task: str) -> tuple[str, ...]:
    """The answer words of a verdict or choice task (success first)."""
    fmt = task_spec(task).answer
    if not isinstance(fmt, (Verdict, Choice)):
        raise TypeError(f"task {task} is not asked as a verdict or a choice")
    return fmt.options


def _verdict_label(line: Line, key: str = "answer") -> int:
    word = line.text(key).strip().lower()
    if word not in VERDICT_WORDS:
        raise ReleaseError(f"{line.where()}: gold {line.obj.get(key)!r} is not Success / Fail "
                           "or Yes / No")
    return VERDICT_WORDS[word]


def task_d_r_row(release: Release, line: Line) -> dict[str, Any]:
    """A Task D-R line: one combined reference + query image, Success / Fail."""
    task = task_spec("paper_task_d_r").name
    row = blank_row(task, release, line)
    variant = line.pick("variant", {v: v for v in VARIANTS})
    visual = line.pick("visual", {v: v for v in VISUAL})
    framing = line.pick("framing", FRAMINGS)
    label = _verdict_label(line)
    if label != (0 if variant == "cf" else 1):
        raise ReleaseError(f"{line.where()}: gold {line.obj.get('answer')!r} does not fit "
                           f"variant {variant!r} (Full and NoCue succeed, CF fails)")
    if (visual, framing) not in PROBE_SETS:
        raise ReleaseError(f"{line.where()}: presentation {visual}/{framing} is not one of "
                           "Task D's four")
    group = line.text("group_id")
    row.update(
        family=line.pick("env_task", FAMILIES),
        group_id=group,
        item_id=f"{task}.{group}.{variant}",
        prompt=line.text("prompt"),
        images=[{"bytes": image_bytes(release, line, line.text("image")), "path": None}],
        answer=_options(task)[1 - label],
        label=label,
        variant=variant,
        temporal=line.pick("temporal", {"orig": "orig", "rev": "rev"})
        if "temporal" in line.obj else "orig",
        visual=visual,
        framing=framing,
        representation="composite",
        probe_family=PROBE_SETS[(visual, framing)],
        reference_group_id=line.text("reference_group_id"),
    )
    return row


def task_a_row(release: Release, line: Line) -> dict[str, Any]:
    """A Task A line: one image (current state left, 2x2 candidates right), a letter; the
    release holds the true-action condition only."""
    task = task_spec("paper_task_a").name
    row = blank_row(task, release, line)
    uid = line.text("uid")
    parts = uid.split(".")
    if len(parts) < 4 or not parts[-1].startswith("t") or not parts[-1][1:].isdigit():
        raise ReleaseError(f"{line.where()}: uid {uid!r} is not A.<env>.<group>.t<step>")
    letters = _options(task)
    answer = line.text("answer").strip().upper()
    if answer not in letters:
        raise ReleaseError(f"{line.where()}: gold {answer!r} is not one of {', '.join(letters)}")
    row.update(
        family=line.pick("env_task", FAMILIES), group_id=parts[2], item_id=f"{task}.{uid}",
        prompt=line.text("prompt"),
        images=[{"bytes": image_bytes(release, line, line.text("image")), "path": None}],
        answer=answer, action_condition="orig",
        action=line.text("action").split(" (", 1)[0], checkpoint=int(parts[-1][1:]),
    )
    return row


def task_c_row(release: Release, line: Line) -> dict[str, Any]:
    """A Task C line: one composite storyboard, asked Yes / No (the release's gold is written
    Success / Fail); rows with a framing are the framing probe set, the others the grid."""
    task = task_spec("paper_task_c").name
    row = blank_row(task, release, line)
    variant = line.pick("variant", {v: v for v in VARIANTS})
    label = _verdict_label(line)
    if label != (0 if variant == "cf" else 1):
        raise ReleaseError(f"{line.where()}: gold {line.obj.get('answer')!r} does not fit "
                           f"variant {variant!r} (Full and NoCue succeed, CF fails)")
    framed = "framing" in line.obj
    group = line.text("group_id")
    row.update(
        family=line.pick("env_task", FAMILIES), group_id=group,
        item_id=f"{task}.{group}.{variant}",
        prompt=line.text("prompt"),
        images=[{"bytes": image_bytes(release, line, line.text("image")), "path": None}],
        answer=_options(task)[1 - label], label=label, variant=variant,
        temporal=line.pick("temporal", {"orig": "orig", "rev": "rev"}),
        visual=line.pick("visual", {v: v for v in VISUAL}),
        framing=line.pick("framing", FRAMINGS) if framed else "neutral",
        representation="composite", probe_family="framing" if framed else "grid",
    )
    return row


E_QUESTIONS: Mapping[str, str] = {"identity_of_first_picked_object": "identity",
                                  "status_of_first_picked_object_at_checkpoint": "status"}
"""The release's Task E query types -> this package's questions."""


def task_e_row(release: Release, line: Line) -> dict[str, Any]:
    """A Task E line: a prefix storyboard and a JSON label (the release's ``answer_json``)."""
    task = task_spec("paper_task_e").name
    row = blank_row(task, release, line)
    gold = line.obj.get("answer_json")
    if not isinstance(gold, dict) or not isinstance(gold.get("answer"), str):
        raise ReleaseError(f"{line.where()}: no answer_json {{\"answer\": <label>}}")
    step = line.obj.get("query_step")
    row.update(
        family=line.pick("env_task", FAMILIES), group_id=line.text("group_id"),
        item_id=f"{task}.{line.text('uid')}",
        prompt=line.text("prompt"),
        images=[{"bytes": image_bytes(release, line, line.text("image")), "path": None}],
        answer=json.dumps({"answer": gold["answer"]}),
        question=line.pick("query_type", E_QUESTIONS),
        checkpoint=int(step) if isinstance(step, int) else -1,
    )
    return row


ROW_READERS: dict[str, Callable[[Release, Line], dict[str, Any]]] = {
    "paper_task_d_r": task_d_r_row,
    "paper_task_a": task_a_row,
    "paper_task_c": task_c_row,
    "paper_task_e": task_e_row,
}
"""config -> how one of its exam lines becomes a dataset row."""


def exam_rows(release: Release, exam: Exam) -> list[dict[str, Any]]:
    """Every row of one exam, in the file's order; a uid repeated is a ReleaseError."""
    read = ROW_READERS[exam.config]
    rows, seen = [], set()
    for line in exam_lines(release, exam):
        row = read(release, line)
        try:   # the row contract every config keeps
            row = row_dict(dataset_row(row, where=line.where()))
        except ValueError as exc:
            raise ReleaseError(str(exc)) from None
        if row["uid"] in seen:
            raise ReleaseError(f"{line.where()}: uid {row['uid']!r} is repeated")
        seen.add(row["uid"])
        rows.append(row)
    if not rows:
        raise ReleaseError(f"{exam.path} holds no exam line")
    return rows


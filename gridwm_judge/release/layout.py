"""The paper's public release as a folder on disk: which of its exams it holds, where its
published answers are, and whether its files are the ones its SHA256SUMS lists.

The release (``xinyuw922-pixel/Towards-Reliable-VLM-Judges``, MIT) keeps each task's exam
under ``datasets/minigrid/<task folder>/`` and the Task D-R judges' answers under
``frozen_outputs/minigrid/taskd-r/<model>/``; ``frozen_outputs/minigrid/taskd-r/SHA256SUMS``
lists the digests of the Task D-R exam, its images and those answers (paths from the
repository root). A copy may hold only some task folders (the repair branch holds Task D-R
alone): what it lacks is named, never guessed.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

RELEASE_REPO = "xinyuw922-pixel/Towards-Reliable-VLM-Judges"
RELEASE_BRANCH = "rebuttal-artifact-repair-2026-07-24"
RELEASE_LICENSE = "MIT"
CLONE_LINE = (f"git clone --branch {RELEASE_BRANCH} https://github.com/{RELEASE_REPO}.git")
"""How a user gets the release (the branch its README tells users to clone)."""

DR_FOLDER = "datasets/minigrid/taskd-r"
DR_OUTPUTS = "frozen_outputs/minigrid/taskd-r"
SUMS = f"{DR_OUTPUTS}/SHA256SUMS"


@dataclass(frozen=True)
class Exam:
    """One exam file of the release this package imports: the config it becomes and where it
    lies (from the repository root)."""

    config: str
    path: str

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0]


EXAMS: tuple[Exam, ...] = (
    Exam("paper_task_d_r", f"{DR_FOLDER}/task_d_r_exam.jsonl"),
    Exam("paper_task_a", "datasets/minigrid/taska/task_a_exam.jsonl"),
    Exam("paper_task_c", "datasets/minigrid/taskc/task_c_exam.jsonl"),
    Exam("paper_task_e", "datasets/minigrid/taske/task_e_exam_v13.jsonl"),
)
"""The exams imported, in the order they are written: Task D-R (the paper's Table 13, with
published answers) first."""

LEFT_OUT: Mapping[str, str] = {
    "datasets/minigrid/taskb": "Task B left out: its exam names an operational prompt that the "
    "release does not hold, so its items cannot be asked as the paper asked them",
    "datasets/minigrid/taskd": "legacy taskd/ left out: a demoted direct-judgment exam that no "
    "table of the paper uses (Task D-R is the paper's reference-aided Task D)",
}
"""Folders of the release that are not imported, each with why."""

_SUMS_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")


class ReleaseError(ValueError):
    """A copy of the release this package cannot import as it is (one line naming the file)."""


@dataclass(frozen=True)
class Provenance:
    """Where an imported copy came from: the release, its licence, the git commit and branch
    where the copy is a clone (``modified``: whether git sees local changes in it), and the
    digest of its SHA256SUMS."""

    release: str = RELEASE_REPO
    license: str = RELEASE_LICENSE
    revision: str | None = None
    branch: str | None = None
    modified: bool | None = None
    sums_sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Release:
    """A checked copy of the release: its root, which exams it holds, which it lacks, what
    it holds that is not imported (each with why), its provenance and the files its
    SHA256SUMS lists (path -> sha256; ``checked`` of them were in the copy)."""

    root: Path
    exams: tuple[Exam, ...]
    missing: tuple[Exam, ...]
    left_out: tuple[str, ...]
    provenance: Provenance = field(default_factory=Provenance)
    listed: Mapping[str, str] = field(default_factory=dict)
    checked: int = 0

    def file(self, rel: str) -> Path:
        return self.root / rel

    def source(self, path: str, line: int, uid: str, file_sha256: str) -> dict[str, Any]:
        """The ``source`` column of a row read from the file ``path`` (of digest
        ``file_sha256``) at ``line``."""
        p = self.provenance
        return {"release": p.release, "revision": p.revision, "modified": p.modified,
                "sums_sha256": p.sums_sha256, "license": p.license, "path": path,
                "file_sha256": file_sha256, "line": line, "uid": uid}


def json_lines(root: Path, rel: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of the release's JSONL file ``rel``; a
    line that is not JSON is a ReleaseError naming the file and the line."""
    with (root / rel).open(encoding="utf-8") as fh:
        for n, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                yield n, json.loads(text)
            except json.JSONDecodeError as exc:
                raise ReleaseError(f"{rel}:{n} is not a JSON line ({exc.msg})") from None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _git(root: Path, *args: str) -> str | None:
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def read_sums(path: Path) -> dict[str, str]:
    """path (from the repository root) -> sha256 of a SHA256SUMS file; a line that is not
    ``<64 hex>  <path>`` is a ReleaseError naming it."""
    listed: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        m = _SUMS_LINE.match(line)
        if not m:
            raise ReleaseError(f"{SUMS}:{n} is not a '<sha256>  <path>' line: {line[:80]!r}")
        listed[m.group(2)] = m.group(1)
    return listed


def _task_folder(rel: str) -> str:
    """The task folder a listed path belongs to (``datasets/minigrid/taskd-r``)."""
    return "/".join(rel.split("/")[:3])


def check_sums(root: Path, listed: Mapping[str, str]) -> int:
    """Every listed file of a task folder the copy holds exists and has its listed digest;
    the first that does not is a ReleaseError naming it. Returns how many were checked."""
    checked = 0
    for rel, digest in listed.items():
        if not (root / _task_folder(rel)).is_dir():
            continue
        path = root / rel
        if not path.is_file():
            raise ReleaseError(f"{rel} is listed in {SUMS} but missing from this copy of the "
                               f"release; get a complete copy ({CLONE_LINE})")
        if sha256_file(path) != digest:
            raise ReleaseError(f"{rel} differs from the release: its sha256 is not the one "
                               f"{SUMS} lists; get an unmodified copy ({CLONE_LINE})")
        checked += 1
    return checked


def open_release(path: str | Path) -> Release:
    """The release at ``path``, checked: a folder that is not the release, a Task D-R copy
    without its SHA256SUMS, or a file that differs from what SUMS lists is a ReleaseError."""
    root = Path(path)
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        raise ReleaseError(f"release folder {str(path)!r} {what}; clone the release with "
                           f"{CLONE_LINE}")
    exams = tuple(e for e in EXAMS if (root / e.path).is_file())
    if not exams:
        raise ReleaseError(
            f"{str(path)!r} is not the paper's release: it holds none of "
            f"{', '.join(e.path for e in EXAMS)}; clone it with {CLONE_LINE}")
    revision = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--untracked-files=no") if revision else None
    checked, listed, sums_sha256 = 0, {}, None
    if (root / DR_FOLDER).is_dir() or (root / DR_OUTPUTS).is_dir():
        sums = root / SUMS
        if not sums.is_file():
            raise ReleaseError(f"{SUMS} is missing: the Task D-R files cannot be checked; get a "
                               f"complete copy ({CLONE_LINE})")
        sums_sha256, listed = sha256_file(sums), read_sums(sums)
        checked = check_sums(root, listed)
    provenance = Provenance(revision=revision,
                            branch=_git(root, "rev-parse", "--abbrev-ref", "HEAD"),
                            modified=None if revision is None else bool(status),
                            sums_sha256=sums_sha256)
    missing = tuple(e for e in EXAMS if e not in exams)
    left_out = tuple(why for folder, why in LEFT_OUT.items() if (root / folder).is_dir())
    return Release(root, exams, missing, left_out, provenance, listed, checked)

"""A copy of the paper's release for tests: the release's real text files (``tests/data/
paper_release``: the Task D-R exam, the ten judges' answers and the authors' parse, exact copies
that the release's own SHA256SUMS checks) with synthetic PNGs under the release's image paths
and a SHA256SUMS of the copy's own (the release's lines for the text files, the synthetic
images' digests for the images).

The release is MIT-licensed (``tests/data/paper_release/LICENSE``); the Task A, C and E exams
are their first lines only.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

DATA = Path(__file__).resolve().parents[1] / "data" / "paper_release"
SUMS = "frozen_outputs/minigrid/taskd-r/SHA256SUMS"
DR = "datasets/minigrid/taskd-r"


def release_sums() -> dict[str, str]:
    """The release's own SHA256SUMS: path -> sha256."""
    out = {}
    for line in (DATA / SUMS).read_text(encoding="utf-8").splitlines():
        digest, path = line.split("  ", 1)
        out[path] = digest
    return out


def synthetic_png(seed: str, size: tuple[int, int] = (48, 32)) -> bytes:
    """A small PNG whose pixels follow from ``seed`` (the same seed, the same bytes)."""
    rng = np.random.default_rng(int(hashlib.sha256(seed.encode()).hexdigest()[:12], 16))
    pixels = rng.integers(0, 120, (size[1], size[0], 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


def exam_images(root: Path) -> list[str]:
    """Every image path (from the repository root) the copy's exams name."""
    out = []
    for exam in root.glob("datasets/minigrid/*/*.jsonl"):
        folder = exam.parent.relative_to(root).as_posix()
        for line in exam.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(f"{folder}/{json.loads(line)['image']}")
    return out


def make_release(dest: Path, *, only_dr: bool = False) -> Path:
    """A release copy at ``dest``: the text files, a synthetic PNG for every image the
    release's SUMS lists or an exam names (images the release shares share bytes here too),
    and the copy's own SHA256SUMS. ``only_dr``: Task D-R alone (as the repair branch)."""
    shutil.copytree(DATA, dest)
    if only_dr:
        for folder in ("taska", "taskc", "taske"):
            shutil.rmtree(dest / "datasets" / "minigrid" / folder)
    (dest / DR / "task_d_exam.jsonl").write_bytes((dest / DR / "task_d_r_exam.jsonl")
                                                   .read_bytes())  # the release's copy of it
    listed = release_sums()
    lines = []
    for path, digest in listed.items():
        if path.endswith(".png"):
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(synthetic_png(digest))
            digest = hashlib.sha256(target.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path}")
    (dest / SUMS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path in exam_images(dest):
        target = dest / path
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(synthetic_png(path))
    return dest

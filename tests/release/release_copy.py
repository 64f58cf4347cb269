"""A copy of the paper's release for tests: the release's real text files (``tests/data/
paper_release``: the Task D-R exam, the ten judges' answers and the authors' parse, exact copies
that the release's own SHA256SUMS checks) with synthetic PNGs under the release's image paths
(Task D-R's of the sizes its layout records, in the layout assumed in :func:`combined`; the
others small noise) and a SHA256SUMS of the copy's own (the release's lines for the text
files, the synthetic images' digests for the images).

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


def _rng(seed: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256(seed.encode()).hexdigest()[:12], 16))


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def synthetic_png(seed: str, size: tuple[int, int] = (48, 32)) -> bytes:
    """A small PNG whose pixels follow from ``seed`` (the same seed, the same bytes)."""
    pixels = _rng(seed).integers(0, 120, (size[1], size[0], 3), dtype=np.uint8)
    return _png(Image.fromarray(pixels))


def montage(frames: list[np.ndarray], side: int = 224) -> np.ndarray:
    """Frames set edge to edge as the release's generator does: max(4, min(8, round(sqrt n)))
    columns, empty cells black."""
    cols = max(4, min(8, round(len(frames) ** 0.5)))
    rows = -(-len(frames) // cols)
    out = np.zeros((rows * side, cols * side, 3), dtype=np.uint8)
    for k, f in enumerate(frames):
        r, c = divmod(k, cols)
        out[r * side:(r + 1) * side, c * side:(c + 1) * side] = f
    return out


def combined(reference: np.ndarray, query: np.ndarray) -> Image.Image:
    """The two storyboards on one canvas, reference above query: width = the wider + 48,
    height = both + 204 (the release's layout records). White, 24-px margins and a caption
    above each: this copy's assumption (the release's code for the canvas is not public)."""
    from PIL import ImageDraw

    width = max(reference.shape[1], query.shape[1]) + 48
    height = reference.shape[0] + query.shape[0] + 204
    canvas = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    draw.text((24, 30), "Reference trajectory", fill="black")
    canvas.paste(Image.fromarray(reference), (24, 78))
    y = 78 + reference.shape[0] + 24
    draw.text((24, y + 6), "Query trajectory", fill="black")
    canvas.paste(Image.fromarray(query), (24, y + 54))
    return canvas


_COMBINED: dict[str, bytes] = {}


def synthetic_combined(seed: str, layout: dict) -> bytes:
    """A Task D-R image of the sizes ``layout`` records: flat dark 224-px panels (a few
    trailing cells left black), cached per seed (the release's identical images stay so)."""
    if seed not in _COMBINED:
        rng = _rng(seed)

        def board(h: int, w: int) -> np.ndarray:
            cells = (h // 224) * (w // 224)
            n = max(1, cells - int(rng.integers(0, min(3, cells))))
            frames = [np.full((224, 224, 3), (20 + 3 * k % 90, 30, 40), dtype=np.uint8)
                      for k in range(n)]
            out = np.zeros((h, w, 3), dtype=np.uint8)
            grid = montage(frames)[:h, :w]
            out[:grid.shape[0], :grid.shape[1]] = grid
            return out

        _COMBINED[seed] = _png(combined(board(layout["reference_height"],
                                              layout["reference_width"]),
                                        board(layout["query_height"], layout["query_width"])))
    return _COMBINED[seed]


def exam_images(root: Path) -> list[str]:
    """Every image path (from the repository root) the copy's exams name."""
    out = []
    for exam in root.glob("datasets/minigrid/*/*.jsonl"):
        folder = exam.parent.relative_to(root).as_posix()
        for line in exam.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(f"{folder}/{json.loads(line)['image']}")
    return out


def make_release(dest: Path, *, only_dr: bool = False, drawn: bool = False) -> Path:
    """A release copy at ``dest``: the text files, a synthetic PNG for every image the
    release's SUMS lists or an exam names (images the release shares share bytes here too),
    and the copy's own SHA256SUMS. ``only_dr``: Task D-R alone (as the repair branch);
    ``drawn``: Task D-R's images drawn to the sizes their layout records (else small noise,
    which the import reads as not matching them: fast, where a test does not look)."""
    shutil.copytree(DATA, dest)
    if only_dr:
        for folder in ("taska", "taskc", "taske"):
            shutil.rmtree(dest / "datasets" / "minigrid" / folder)
    (dest / DR / "task_d_exam.jsonl").write_bytes((dest / DR / "task_d_r_exam.jsonl")
                                                   .read_bytes())  # the release's copy of it
    listed = release_sums()
    layouts = {f"{DR}/{line['image']}": line["layout"] for line in map(json.loads, (
        DATA / DR / "task_d_r_exam.jsonl").read_text(encoding="utf-8").splitlines())}
    lines = []
    for path, digest in listed.items():
        if path.endswith(".png"):
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(synthetic_combined(digest, layouts[path])
                               if drawn and path in layouts else synthetic_png(digest))
            digest = hashlib.sha256(target.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path}")
    (dest / SUMS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path in exam_images(dest):
        target = dest / path
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(synthetic_png(path))
    return dest

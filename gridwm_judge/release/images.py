"""Whether this package's pixel rules read the release's images as they are drawn, checked on
the images themselves before the shortcut ceiling is measured on them: the release's code for
the canvas around its storyboards is not public. Each image must cut (at bright gutters,
:func:`gridwm_judge.judges.pixels.panel_boxes`) into what its exam line records: a Task D-R
image into the reference and query storyboards of its ``layout`` (their sizes), a Task C
storyboard into its ``n_frames`` panels, a Task A image into the current state and four
candidates. Where one does not, the config's ceiling is reported as not measured rather than
as figures of a misread image."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gridwm_judge.judges import pixels
from gridwm_judge.release.exams import Line, exam_lines
from gridwm_judge.release.layout import Exam, Release

Shapes = list[tuple[int, int]]


def _d_r(line: Line) -> Callable[[Shapes], bool] | None:
    lay = line.obj.get("layout")
    keys = ("reference_height", "reference_width", "query_height", "query_width")
    if not isinstance(lay, dict) or not all(isinstance(lay.get(k), int) for k in keys):
        return None
    want = [(lay["reference_height"], lay["reference_width"]),
            (lay["query_height"], lay["query_width"])]
    return lambda found: found == want


def _c(line: Line) -> Callable[[Shapes], bool] | None:
    n = line.obj.get("n_frames")
    return None if not isinstance(n, int) else (lambda found: len(found) == n)


def _a(line: Line) -> Callable[[Shapes], bool] | None:
    return lambda found: len(found) >= 5


EXPECTED: Mapping[str, Callable[[Line], Callable[[Shapes], bool] | None]] = {
    "paper_task_d_r": _d_r, "paper_task_c": _c, "paper_task_a": _a,
}
"""config -> what an exam line says its image must cut into (configs a shortcut reads)."""


def panels_found(image: bytes) -> Shapes:
    """The (height, width) of each panel the pixel rules find in an image, in reading order."""
    from PIL import Image

    return [box[2].shape[:2] for box in pixels.panel_boxes(Image.open(io.BytesIO(image)))]


def unreadable(release: Release, exam: Exam, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The uids of an exam's imported rows whose image does not cut as its line records (a
    line that records nothing to check counts as unreadable); [] for a config no shortcut
    reads."""
    if exam.config not in EXPECTED:
        return []
    expect = {line.text("uid"): EXPECTED[exam.config](line)
              for line in exam_lines(release, exam)}
    found: dict[bytes, Shapes] = {}   # the release shows one image under several rows
    bad = []
    for row in rows:
        check = expect.get(json.loads(row["source"])["uid"])
        image = row["images"][0]["bytes"]
        if image not in found:
            found[image] = panels_found(image)
        if check is None or not check(found[image]):
            bad.append(row["uid"])
    return bad

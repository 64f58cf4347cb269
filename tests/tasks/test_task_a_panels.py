"""What a judge sees in built Task A / MiniWorld Task A rows: no distractor panel
equal to the current frame's, no two candidates equal, the profile's counts and balanced gold
letters. The panels are cut from the stored image with the choice panel's own geometry."""

from __future__ import annotations

import collections

import datasets
import numpy as np
import pytest

from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.render.layout import GAP_PX, caption_height
from gridwm_judge.tasks.task_a import LETTERS


def panel_cells(panel) -> tuple[np.ndarray, list[np.ndarray]]:
    """(current, [A, B, C, D]) cells of a :func:`~gridwm_judge.render.choice_panel` image:
    every cell is pw x ph (frames are pasted at its top left, scaled alike)."""
    a = np.asarray(panel.convert("RGB"))
    height, width = a.shape[:2]
    pw = (width - 6 * GAP_PX) // 3
    (ph,) = [p for p in range(1, height) if 2 * (p + caption_height(p)) + 3 * GAP_PX == height]
    cap = caption_height(ph)
    y0 = (height - ph - cap) // 2 + cap
    current = a[y0:y0 + ph, GAP_PX:GAP_PX + pw]
    x0 = pw + 5 * GAP_PX
    cells = []
    for k in range(4):
        r, c = divmod(k, 2)
        x, y = x0 + c * (pw + GAP_PX), GAP_PX + r * (ph + cap + GAP_PX) + cap
        cells.append(a[y:y + ph, x:x + pw])
    return current, cells


def check_config(folder, profile: str, config: str, view: tuple[int, int] | None = None) -> None:
    rows = datasets.load_dataset(str(folder), config, split="test")
    plan = get_profile(profile).plan(config)
    assert len(rows) == plan.expected_rows == 3 * plan.n_items
    orig = [r for r in rows if r["action_condition"] == "orig"]
    assert len(orig) == plan.n_items
    for row in orig:
        current, cells = panel_cells(row["images"][0])
        if view is not None:  # MiniWorld: candidates are the view, current view + map (1:1)
            assert current.shape[1] == view[0], current.shape
            current, cells = current[:view[1]], [c[:view[1]] for c in cells]
        gold = LETTERS.index(row["answer"])
        for k, cell in enumerate(cells):
            assert not np.array_equal(cell, current), (row["uid"], LETTERS[k], k == gold)
        assert len({c.tobytes() for c in cells}) == 4, row["uid"]
    overall = collections.Counter(r["answer"] for r in orig)
    by_family = collections.defaultdict(collections.Counter)
    for r in orig:
        by_family[r["family"]][r["answer"]] += 1
    for counts in (overall, *by_family.values()):
        assert max(counts[x] for x in LETTERS) - min(counts[x] for x in LETTERS) <= 1, counts


@pytest.mark.parametrize("profile", ["smoke", "quickstart"])
def test_built_task_a_panels(tmp_path, profile):
    build_dataset(tmp_path / "d", profile, configs=["task_a"])
    check_config(tmp_path / "d", profile, "task_a")


def test_built_miniworld_a_panels(tmp_path):
    pytest.importorskip("pyglet", reason="needs the 3d extra")
    from gridwm_judge.tasks.miniworld_c import VIEW_SIZE

    build_dataset(tmp_path / "d", "miniworld_smoke", configs=["miniworld_a"])
    check_config(tmp_path / "d", "miniworld_smoke", "miniworld_a", view=VIEW_SIZE)

"""Layouts respect size limits and numbering; visual probes are deterministic and mild."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from gridwm_judge.render import (
    COMPOSITE_MAX_PX,
    SPLIT_MAX_PX,
    apply_visual,
    choice_panel,
    composite,
    select_keyframes,
    split,
)
from gridwm_judge.render.layout import grid_shape


def _frames(n, h=480, w=240):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 255, (h, w, 3), dtype=np.uint8) for _ in range(n)]


@pytest.mark.parametrize("n", [1, 3, 5, 8, 12])
def test_composite_long_side_and_grid(n):
    img = composite(_frames(n, 480, 480))
    assert max(img.size) <= COMPOSITE_MAX_PX
    rows, cols = grid_shape(n)
    assert rows * cols >= n and cols <= 4 and (rows - 1) * cols < n


def test_split_sizes_and_count():
    imgs = split(_frames(5, 480, 480))
    assert len(imgs) == 5
    assert all(max(i.size) <= SPLIT_MAX_PX for i in imgs)
    # Numbered: the caption strips differ between images 1 and 2.
    a, b = (np.asarray(i)[:20] for i in imgs[:2])
    assert not np.array_equal(a, b)


def test_choice_panel_limits():
    f = _frames(5, 256, 512)
    panel = choice_panel(f[0], f[1:])
    assert max(panel.size) <= COMPOSITE_MAX_PX
    with pytest.raises(ValueError, match="4 candidates"):
        choice_panel(f[0], f[1:4])


def test_visual_probes_deterministic_and_mild():
    img = composite(_frames(4, 120, 120))
    for visual in ("noisy", "style"):
        a = apply_visual(img, visual, "uid-1")
        b = apply_visual(img, visual, "uid-1")
        c = apply_visual(img, visual, "uid-2")
        assert a.tobytes() == b.tobytes()
        assert a.tobytes() != c.tobytes()
        assert a.size == img.size
        diff = np.abs(np.asarray(a, np.int16) - np.asarray(img, np.int16))
        assert 0 < diff.mean() < 40
    assert apply_visual(img, "clean", "x").tobytes() == img.tobytes()
    with pytest.raises(ValueError, match="clean, noisy, style"):
        apply_visual(img, "blurry", "x")


def test_probe_does_not_touch_global_rng():
    np.random.seed(0)
    before = np.random.random()
    np.random.seed(0)
    apply_visual(Image.new("RGB", (8, 8)), "noisy", "k")
    assert np.random.random() == before


def test_select_keyframes_events_and_fill():
    events = [{"t": 3, "type": "pickup"}, {"t": 7, "type": "open"}, {"t": 1, "type": "see"},
              {"t": 19, "type": "terminal"}]
    idx = select_keyframes(20, events, max_frames=6)
    assert idx[0] == 0 and idx[-1] == 19 and len(idx) == 6
    assert {3, 7, 1} <= set(idx)
    assert select_keyframes(20, events, max_frames=3) == (0, 3, 19)
    prefix = select_keyframes(20, events, max_frames=8, end=5)
    assert prefix[-1] == 5 and max(prefix) == 5 and len(prefix) == 6
    assert select_keyframes(3, [], max_frames=8) == (0, 1, 2)
    # a required frame is kept before any event anchor
    assert select_keyframes(20, events, max_frames=3, required=(12,)) == (0, 12, 19)
    with pytest.raises(ValueError, match="required frame 21"):
        select_keyframes(20, events, required=(21,))
    with pytest.raises(ValueError, match="exceed max_frames=2"):
        select_keyframes(20, events, max_frames=2, required=(12,))
    with pytest.raises(ValueError, match="end=30"):
        select_keyframes(20, events, end=30)

"""Group frames: one per state, shared keyframes across variants, NoCue masks pass N1."""

from __future__ import annotations

import numpy as np
import pytest

from gridwm_judge.render import FOG_RGB, crop_box, keyframes, render_frames
from gridwm_judge.render.masks import check_nocue_mask, mask_pixel_iou
from gridwm_judge.worlds.minigrid import generate_groups, replay_envs


@pytest.fixture(scope="module")
def groups():
    return {f: generate_groups(f, 1, 830000).groups[0] for f in ("doorkey", "lavagap", "multiroom")}


def test_one_frame_per_state_and_read_only(groups):
    g = groups["doorkey"]
    for variant in ("full", "nocue", "cf"):
        frames = render_frames(g, variant)
        assert len(frames) == len(getattr(g, variant).states)
        assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    with pytest.raises(ValueError):
        frames[0][0, 0, 0] = 1
    with pytest.raises(ValueError, match="full, nocue, cf"):
        render_frames(g, "noisy")


@pytest.mark.parametrize("style", ["occlude", "clean"])
def test_nocue_differs_only_on_masked_frames(groups, style):
    g = groups["doorkey"]
    full = render_frames(g, "full", nocue_style=style)
    nocue = render_frames(g, "nocue", nocue_style=style)
    masked = {m["t"] for m in g.nocue.mask}
    assert masked
    for t, (a, b) in enumerate(zip(full, nocue, strict=True)):
        assert np.array_equal(a, b) == (t not in masked)
        if t in masked:  # occlude: the grey square; clean: the key erased, no grey at all
            changed = b[np.any(a != b, axis=2)]
            assert np.all(changed == FOG_RGB) == (style == "occlude")
            assert np.any(np.all(b == FOG_RGB, axis=2)) == (style == "occlude")


@pytest.mark.parametrize("style", ["occlude", "clean"])
def test_pixel_n1_passes_and_detects_misalignment(groups, style):
    for g in groups.values():
        check = check_nocue_mask(g, nocue_style=style)
        assert check.passed, check
        assert check.min_iou >= 0.70 and 1 <= check.n_masked_frames <= check.budget
    clean = np.zeros((64, 64, 3), np.uint8)
    masked = clean.copy()
    masked[0:16, 0:16] = FOG_RGB
    assert mask_pixel_iou(clean, masked, [(0, 0)], 16) == 1.0
    assert mask_pixel_iou(clean, masked, [(1, 0)], 16) == 0.0
    assert mask_pixel_iou(clean, masked, [(0, 0), (1, 0)], 16) == 0.5


def test_keyframes_shared_across_variants(groups):
    g = groups["doorkey"]
    k = keyframes(g)
    assert k[0] == 0 and k[-1] == len(g.full.states) - 1
    assert keyframes(g, variant="nocue") == k
    cf = keyframes(g, variant="cf")
    assert cf[-1] == len(g.cf.states) - 1
    assert set(cf[:-1]) <= set(k)
    pickup = next(e["t"] for e in g.full.events if e["type"] == "pickup")
    assert pickup in k


def test_walled_envs_are_not_cropped(groups):
    for family in ("doorkey", "lavagap"):
        g = groups[family]
        env = next(iter(replay_envs(g.env_id, g.seed, ())))
        box = crop_box(g)
        assert (box.x, box.y, box.width, box.height) == (0, 0, env.grid.width, env.grid.height)
        for variant in ("full", "nocue", "cf"):
            cropped = render_frames(g, variant)
            full = render_frames(g, variant, crop=False)
            assert all(np.array_equal(a, b) for a, b in zip(cropped, full, strict=True))


def test_multiroom_crop_drops_only_void_and_keeps_variants_aligned(groups):
    g = groups["multiroom"]
    box = crop_box(g)
    inside = {(x, y) for x in range(box.x, box.x + box.width)
              for y in range(box.y, box.y + box.height)}
    for variant in ("full", "nocue", "cf"):
        env = next(iter(replay_envs(g.env_id, g.seed, (), getattr(g, variant).intervention)))
        assert box.width < env.grid.width or box.height < env.grid.height
        drawn = {(i % env.grid.width, i // env.grid.width)
                 for i, c in enumerate(env.grid.grid) if c is not None}
        assert drawn <= inside
        # The crop is tight: each of its border rows and columns shows a wall.
        walls = {p for p in drawn if env.grid.get(*p).type == "wall"}
        assert {x for x, _ in walls} >= {box.x, box.x + box.width - 1}
        assert {y for _, y in walls} >= {box.y, box.y + box.height - 1}
    cropped = {v: render_frames(g, v) for v in ("full", "nocue", "cf")}
    tile = cropped["full"][0].shape[0] // box.height
    assert cropped["full"][0].shape == (box.height * tile, box.width * tile, 3)
    assert tile > render_frames(g, "full", crop=False)[0].shape[0] // 25
    for variant, frames in cropped.items():
        full = render_frames(g, variant, crop=False, tile_size=tile)
        rows = slice(box.y * tile, (box.y + box.height) * tile)
        cols = slice(box.x * tile, (box.x + box.width) * tile)
        assert all(np.array_equal(a, b[rows, cols]) for a, b in zip(frames, full, strict=True))

"""NoCue styles: ``clean`` leaves no mark only NoCue shows (erased objects are MiniGrid's own
empty tile; a door / lava mark is balanced in Full and CF), ``occlude`` is the paper's square."""

from __future__ import annotations

import numpy as np
import pytest
from minigrid.core.grid import Grid

from gridwm_judge.dataset.generation import GroupPool
from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.render import FOG_RGB, MINIGRID, crop_box, minigrid_world, render_frames
from gridwm_judge.render.masks import check_nocue_mask
from gridwm_judge.render.nocue_style import (
    TARGET_RULE,
    mark_spec,
    rule_of,
    variant_marks,
)
from gridwm_judge.schema import NOCUE_STYLES
from gridwm_judge.seeds import GENERATION_SEED
from gridwm_judge.worlds.minigrid import generate_groups, replay_envs

ERASED = ("doorkey", "keycorridor", "memory")
BALANCED = ("redbluedoor", "lavagap", "multiroom")


@pytest.fixture(scope="module")
def groups():
    return {f: generate_groups(f, 2, 830000).groups for f in ERASED + BALANCED}


def _tiles(frame: np.ndarray, ts: int) -> np.ndarray:
    h, w = frame.shape[0] // ts, frame.shape[1] // ts
    return frame.reshape(h, ts, w, ts, 3).transpose(0, 2, 1, 3, 4)


def _fog_cells(frame: np.ndarray, ts: int) -> set[tuple[int, int]]:
    whole = np.all(_tiles(frame, ts) == FOG_RGB, axis=(2, 3, 4))
    return {(int(x), int(y)) for y, x in np.argwhere(whole)}


def test_rule_per_target_type():
    assert {t for t, r in TARGET_RULE.items() if r == "erase"} == {"key", "ball", "box", "goal"}
    assert {t for t, r in TARGET_RULE.items() if r == "balance"} == {"door", "wall", "lava"}
    with pytest.raises(ValueError, match="no NoCue rule for target type 'agent'"):
        rule_of("agent")


def test_clean_erased_tiles_are_minigrids_own_empty_tile(groups):
    """Every erased cell of a clean NoCue frame equals MiniGrid's own empty-floor rendering
    (``Grid.render_tile``, not ours), the rest of the frame equals Full's, and no grey square
    is drawn anywhere."""
    checked = 0
    for family in ERASED + ("multiroom",):  # multiroom: its goal is erased, its door covered
        for g in groups[family]:
            full = render_frames(g, "full", nocue_style="clean")
            plain = render_frames(g, "full", nocue_style=None)
            nocue = render_frames(g, "nocue", nocue_style="clean")
            box = crop_box(g)
            ts = full[0].shape[0] // box.height
            empty = Grid.render_tile(None, None, False, ts)
            marks = {m.t: m for m in variant_marks(g, "nocue", "clean")}
            assert set(marks) == {m["t"] for m in g.nocue.mask}
            for t, m in marks.items():
                assert m.erase, (g.group_id, t)
                changed = np.any(plain[t] != nocue[t], axis=2)
                for x, y in m.erase:
                    tile = nocue[t][(y - box.y) * ts:(y - box.y + 1) * ts,
                                    (x - box.x) * ts:(x - box.x + 1) * ts]
                    assert np.array_equal(tile, empty), (g.group_id, t, (x, y))
                    assert not np.array_equal(plain[t][(y - box.y) * ts:(y - box.y + 1) * ts,
                                                       (x - box.x) * ts:(x - box.x + 1) * ts],
                                              empty)  # there was something to erase
                    changed[(y - box.y) * ts:(y - box.y + 1) * ts,
                            (x - box.x) * ts:(x - box.x + 1) * ts] = False
                covered = {(x - box.x, y - box.y) for x, y in m.occlude}
                assert _fog_cells(nocue[t], ts) == covered
                for x, y in covered:
                    changed[y * ts:(y + 1) * ts, x * ts:(x + 1) * ts] = False
                assert not changed.any(), (g.group_id, t)  # nothing else differs
                checked += 1
            if family in ERASED:  # nothing to balance: Full is the simulator's own frames
                assert variant_marks(g, "full", "clean") == ()
                assert all(np.array_equal(a, b) for a, b in zip(full, plain, strict=True))
    assert checked


def test_balanced_marks_match_across_variants(groups):
    """Doors and lava keep NoCue's square; Full and CF carry the same squares (count,
    arrangement, frames), drawn on wall cells, never over the agent or an object."""
    for family in BALANCED:
        for g in groups[family]:
            marks = {v: {m.t: m for m in variant_marks(g, v, "clean")}
                     for v in ("full", "nocue", "cf")}
            frames = {v: render_frames(g, v, nocue_style="clean") for v in marks}
            box = crop_box(g)
            ts = frames["full"][0].shape[0] // box.height
            assert marks["nocue"] and marks["full"]
            covered_t = [t for t, m in marks["nocue"].items() if m.occlude]
            assert sorted(marks["full"]) == covered_t
            assert sorted(marks["cf"]) == [t for t in covered_t if t < len(g.cf.states)]
            shift = None
            for v in ("full", "cf"):
                env = next(iter(replay_envs(g.env_id, g.seed, (), getattr(g, v).intervention)))
                for t, m in marks[v].items():
                    target = marks["nocue"][t].occlude
                    assert len(m.occlude) == len(target) and not m.erase
                    d = {(a[0] - b[0], a[1] - b[1]) for a, b in zip(m.occlude, target,
                                                                     strict=True)}
                    assert len(d) == 1 and d != {(0, 0)}  # one translation of the pattern
                    shift = shift or d
                    assert d == shift  # the same in every frame and in Full and CF
                    state = getattr(g, v).states[t]
                    things = {tuple(o["pos"]) for o in state["objects"]}
                    for x, y in m.occlude:
                        assert env.grid.get(x, y).type == "wall"
                        assert (x, y) not in things and [x, y] != list(state["agent_pos"])
                    assert _fog_cells(frames[v][t], ts) == {(x - box.x, y - box.y)
                                                            for x, y in m.occlude}
            for v, fr in frames.items():  # unmarked frames show no square at all
                for t, f in enumerate(fr):
                    if t not in marks[v]:
                        assert not _fog_cells(f, ts), (g.group_id, v, t)


def test_occlude_is_the_paper_square_on_nocue_only(groups):
    for family in ERASED + BALANCED:
        g = groups[family][0]
        assert variant_marks(g, "full", "occlude") == variant_marks(g, "cf", "occlude") == ()
        assert mark_spec(variant_marks(g, "nocue", "occlude"), "occlude") == [
            {"t": m["t"], "tiles": m["tiles"]} for m in g.nocue.mask]
        plain = render_frames(g, "full", nocue_style=None)
        assert all(np.array_equal(a, b) for a, b in
                   zip(render_frames(g, "full", nocue_style="occlude"), plain, strict=True))


def test_unknown_style_and_plain_world():
    g = generate_groups("doorkey", 1, 830000).groups[0]
    with pytest.raises(ValueError, match="unknown NoCue style 'fog'; expected one of clean"):
        variant_marks(g, "nocue", "fog")
    with pytest.raises(ValueError, match="draws no NoCue mark"):
        MINIGRID.frames(g, "nocue")
    assert minigrid_world(None) is MINIGRID
    assert minigrid_world("occlude").nocue_style == "occlude"


@pytest.mark.parametrize("style", NOCUE_STYLES)
def test_n1_passes_for_every_smoke_group(style):
    """The pixel-level N1 audit passes for the smoke profile's NoCue groups in both styles;
    an erased object is measured against its own pixels, so its IoU is exact."""
    profile = get_profile("smoke")
    pool = GroupPool(GENERATION_SEED)
    seen = {}
    for config in ("task_c", "task_d", "oracle_state"):
        for g in pool.groups(profile.plan(config)):
            seen[g.group_id] = g
    assert {g.family for g in seen.values()} >= {"redbluedoor", "lavagap"}
    for g in seen.values():
        check = check_nocue_mask(g, nocue_style=style)
        assert check.passed, check


def test_n1_measures_an_erased_object_against_its_own_pixels(groups):
    for family in ERASED:
        for g in groups[family]:
            check = check_nocue_mask(g, nocue_style="clean")
            assert check.passed and check.min_iou == 1.0, check

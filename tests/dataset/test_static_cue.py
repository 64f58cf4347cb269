"""The static-cue gate of hard-CF configs: a planted static CF (the paper's: the blue
door walled off, the goal removed) is rejected with its reason; hard CFs pass; the draw moves
on to the next seed past a group the gate rejects."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gridwm_judge.dataset.static_cue import GATE, static_cue_reasons
from gridwm_judge.worlds.core.draw import HARD_SUFFIX
from gridwm_judge.worlds.minigrid.generate import build_group, generate_groups

ENVS = {"keycorridor": "MiniGrid-KeyCorridorS4R3-v0",
        "multiroom": "MiniGrid-MultiRoom-N2-S4-v0",
        "redbluedoor": "MiniGrid-RedBlueDoors-8x8-v0"}


def _planted(family: str, seed: int = 830000):
    """The paper's static CF, passed off as a hard group."""
    g = build_group(family, ENVS[family], seed, "paper")
    return replace(g, group_id=g.group_id + HARD_SUFFIX)


@pytest.mark.parametrize("family", ("redbluedoor", "multiroom"))
def test_planted_static_cf_is_rejected(family):
    why = static_cue_reasons(_planted(family), "task_c_hard")
    assert set(why) == {GATE}
    assert "baseline:first-frame accepts Full and rejects CF" in why[GATE]  # target gone
    assert "never shows the target" in why[GATE]


@pytest.mark.parametrize("family", tuple(ENVS))
def test_hard_cf_passes(family):
    assert static_cue_reasons(build_group(family, ENVS[family], 830000, "hard"),
                              "task_c_hard") == {}


def _reject_first(group):
    return {GATE: "planted"} if group.seed == 830000 else {}


def test_draw_moves_past_a_gated_seed():
    res = generate_groups("redbluedoor", 1, 830000, cf_kind="hard", extra_gate=_reject_first)
    assert [g.seed for g in res.groups] == [830001]
    assert res.rejects == {GATE: 1}
    assert res.reject_reasons == ((830000, {GATE: "planted"}),)


def test_first_frame_gives_the_cf_away_in_either_direction():
    """A target in view in one first frame only is a static cue whichever variant shows it
    (TMaze's moved box can come into view at the start while Full's is down an arm)."""
    from gridwm_judge.dataset.static_cue import separations

    def verdicts(first, mark=(True, True), last=(True, True)):
        return {name: dict(zip(("full", "cf"), v, strict=True))
                for name, v in (("first-frame", first), ("mask-artifact", mark),
                                ("last-frame", last))}

    assert separations(verdicts((True, True))) == []
    assert separations(verdicts((False, False))) == []
    gone, shown = separations(verdicts((True, False))), separations(verdicts((False, True)))
    assert gone == ["baseline:first-frame accepts Full and rejects CF (the target is in view "
                    "in one first frame only)"]
    assert shown and "rejects Full and accepts CF" in shown[0]
    # mask-artifact is gated only where a mark, not the last frame, decided it
    assert separations(verdicts((True, True), mark=(True, False), last=(True, False))) == []
    assert separations(verdicts((True, True), mark=(True, False), last=(True, True))) == [
        "baseline:mask-artifact accepts Full and rejects CF"]


def _cut(g, n: int):
    """``g`` with its CF ended after ``n`` states (as an early-terminating CF would)."""
    return replace(g, cf=replace(g.cf, states=g.cf.states[:n], steps=n - 1,
                                 events=tuple(e for e in g.cf.events if e["t"] < n)))


def test_an_early_ending_cf_shows_its_own_keyframes_not_a_repeated_terminal_frame():
    """A CF that ends well before Full's last keyframe shows as many keyframes of its own
    episode, none twice, ending on its terminal frame (a repeated terminal frame said "ended
    early": the doors-swapped RedBlueDoor CF of 0.2.0 did so in 6 of 6 base groups)."""
    from gridwm_judge.dataset.static_cue import _canonical, repeats_a_frame
    from gridwm_judge.tasks.task_c import Storyboards

    g = _cut(build_group("redbluedoor", ENVS["redbluedoor"], 830000, "hard"), 10)
    boards = Storyboards(g)
    full, cf = boards.indices("full"), boards.indices("cf")
    assert len(cf) == len(full) == 8 and len(set(cf)) == len(cf)
    assert cf[-1] == 9 and max(full) > 9
    items = _canonical(g, "task_c_hard")
    assert not repeats_a_frame(items["cf"]) and not repeats_a_frame(items["full"])


def test_redbluedoor_hard_cf_ends_with_full_and_never_opens_the_red_door():
    g = build_group("redbluedoor", ENVS["redbluedoor"], 830000, "hard")
    assert len(g.cf.states) == len(g.full.states) and g.cf.terminated and not g.cf.success
    assert [e["obj"]["color"] for e in g.cf.events if e["type"] == "open"] == ["blue"]
    (op,) = g.cf.intervention
    assert op["op"] == "swap" and op["a"][0] == op["b"][0]  # along the red door's wall


def test_a_cf_shorter_than_the_storyboard_is_rejected_for_its_repeated_frame():
    why = static_cue_reasons(_cut(build_group("redbluedoor", ENVS["redbluedoor"], 830000,
                                              "hard"), 3), "task_c_hard")
    assert "the CF storyboard repeats a frame (its episode ended early)" in why[GATE]

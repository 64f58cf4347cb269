"""The world seam: MiniGrid satisfies the protocols, and a toy world goes through the consumers."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

import numpy as np
import pytest

from gridwm_judge.render import MINIGRID, keyframes
from gridwm_judge.world import Group, Rollout, World, check_world, rollout_of
from gridwm_judge.worlds.minigrid import generate_groups


@dataclass(frozen=True)
class ToyRollout:
    """A 1-D corridor walk: the state is the agent's cell; nothing MiniGrid in it."""

    states: tuple[dict, ...]
    events: tuple[dict, ...]
    success: bool
    intervention: tuple[dict, ...] = ()
    mask: tuple[dict, ...] = ()


@dataclass(frozen=True)
class ToyGroup:
    group_id: str
    family: str
    env_id: str
    seed: int
    mission: str
    action_names: tuple[str, ...]
    full: ToyRollout
    nocue: ToyRollout
    cf: ToyRollout
    validators: dict = field(default_factory=lambda: {"D1": True})
    world: str = "toy"


@dataclass(frozen=True)
class ToyWorld:
    """Frames are 4x(4*len) strips with the agent's cell painted white."""

    name: str = "toy"
    action_names: tuple[str, ...] = ("forward", "back", "pickup")

    def frames(self, group, variant: str) -> list[np.ndarray]:
        rollout = rollout_of(group, variant)
        out = []
        for state in rollout.states:
            img = np.zeros((4, 4 * 10, 3), np.uint8)
            img[:, 4 * state["x"] : 4 * state["x"] + 4] = 255
            img.setflags(write=False)
            out.append(img)
        return out


def toy_group(seed: int = 0, cf_steps: int = 6) -> ToyGroup:
    n = 9
    states = tuple({"x": x} for x in range(n))
    events = ({"t": 3, "type": "pickup", "obj": {"type": "key", "color": "red"}, "pos": [3]},
              {"t": 8, "type": "reach_goal", "obj": None, "pos": [8]},
              {"t": 8, "type": "terminal", "obj": None, "pos": [8]})
    full = ToyRollout(states, events, True)
    nocue = ToyRollout(states, events, True, mask=({"t": 0, "hidden": "key"},))
    cf = ToyRollout(states[:cf_steps], events[:1] + ({"t": cf_steps - 1, "type": "terminal",
                                                       "obj": None, "pos": None},), False,
                    intervention=({"op": "remove", "what": "goal"},))
    return ToyGroup(f"toy.corridor.s{seed}", "corridor", "Toy-Corridor-v0", seed,
                    "walk to the end of the corridor", ("forward",) * (n - 1), full, nocue, cf)


@pytest.fixture(scope="module")
def minigrid_group():
    return generate_groups("doorkey", 1, 830000).groups[0]


def test_minigrid_satisfies_the_protocols(minigrid_group):
    g = minigrid_group
    assert isinstance(g, Group)
    assert g.world == MINIGRID.name == "minigrid"
    for variant in ("full", "nocue", "cf"):
        assert isinstance(rollout_of(g, variant), Rollout)
    assert isinstance(MINIGRID, World)
    frames = MINIGRID.frames(g, "cf")
    assert len(frames) == len(g.cf.states)
    check_world(g, MINIGRID)
    # The world's name is a class constant: the audit record does not change.
    assert "world" not in g.to_record()


def test_incomplete_objects_do_not_satisfy_the_protocols():
    @dataclass(frozen=True)
    class NoEvents:
        states: tuple = ()
        success: bool = True
        intervention: tuple = ()
        mask: tuple = ()

    assert not isinstance(NoEvents(), Rollout)
    assert not isinstance(object(), World)
    assert not isinstance(toy_group().full, Group)


def test_toy_world_satisfies_the_protocols():
    g = toy_group()
    assert isinstance(g, Group) and isinstance(g.cf, Rollout)
    assert isinstance(ToyWorld(), World)


def test_keyframes_of_a_toy_group_anchor_on_its_events():
    g = toy_group()
    assert keyframes(g, 4) == (0, 3, 5, 8)  # first, pickup, a path frame, terminal
    # The CF stopped after 6 states: same indices before its end, its terminal frame last.
    assert keyframes(g, 4, variant="cf") == (0, 3, 5)
    assert keyframes(g, 3, variant="cf") == (0, 3, 5)


def test_keyframes_show_a_masked_frame_of_nocue():
    # Masked frames the event anchors leave out: the largest one is shown, or NoCue's storyboard
    # would be Full's.
    g = toy_group()
    mask = ({"t": 1, "area": 0.02}, {"t": 6, "area": 0.05}, {"t": 7, "area": 0.01})
    g = dataclasses.replace(g, nocue=dataclasses.replace(g.nocue, mask=mask))
    assert keyframes(g, 4) == (0, 3, 6, 8)
    assert keyframes(g, 4, variant="nocue") == (0, 3, 6, 8)
    # A prefix ending before the large one shows the largest masked frame inside it.
    assert 1 in keyframes(g, 4, end=5)
    # Already shown (the toy's own mask is frame 0): the event-anchored choice stands.
    assert keyframes(toy_group(), 4) == (0, 3, 5, 8)


def test_a_world_renders_only_its_own_groups(minigrid_group):
    with pytest.raises(ValueError, match="'toy' group; .* by the 'minigrid' world"):
        check_world(toy_group(), MINIGRID)
    with pytest.raises(ValueError, match="'minigrid' group; .* by the 'toy' world"):
        check_world(minigrid_group, ToyWorld())
    with pytest.raises(ValueError, match="expected one of full, nocue, cf"):
        rollout_of(toy_group(), "noisy")


@pytest.fixture
def no_minigrid(monkeypatch):
    """Any MiniGrid replay or rendering during the test fails it."""
    import gridwm_judge.render.frames as frames_mod

    def refuse(*args, **kwargs):
        raise AssertionError("a MiniGrid code path ran for a toy group")

    monkeypatch.setattr(frames_mod, "replay_envs", refuse)
    monkeypatch.setattr(frames_mod, "render_frames", refuse)


def test_task_c_rows_of_a_toy_world(no_minigrid):
    from gridwm_judge.tasks import task_c

    world, g = ToyWorld(), toy_group()
    boards = task_c.Storyboards(g, world=world, max_frames=4)
    assert boards.indices("full") == (0, 3, 5, 8)
    # it ends before Full's keyframes do: its own keyframes, none shown twice
    assert boards.indices("cf") == (0, 1, 3, 5)
    toy_cf = world.frames(g, "cf")
    assert all(np.array_equal(a, toy_cf[i]) for a, i in zip(boards.frames("cf"), (0, 1, 3, 5),
                                                              strict=True))
    rows = task_c.build_rows([g], world=world, families=("corridor",), probe_sets=("baseline",),
                             max_frames=4)
    assert [(r["variant"], r["representation"], r["answer"]) for r in rows] == [
        ("full", "composite", "Yes"), ("full", "split", "Yes"),
        ("nocue", "composite", "Yes"), ("nocue", "split", "Yes"),
        ("cf", "composite", "No"), ("cf", "split", "No")]
    assert rows[0]["prompt"] == rows[4]["prompt"] and g.mission in rows[0]["prompt"]
    assert len(rows[1]["images"]) == 4
    assert '"op": "remove"' in rows[4]["intervention"]
    with pytest.raises(ValueError, match="no family 'corridor'"):
        task_c.build_rows([g], world=world)
    with pytest.raises(ValueError, match="'toy' group; .* by the 'minigrid' world"):
        task_c.build_rows([g], families=("corridor",))


def test_task_d_and_e_rows_of_a_toy_world(no_minigrid):
    from gridwm_judge.tasks import task_d, task_e

    world = ToyWorld()
    rows = task_d.build_rows([toy_group(0), toy_group(1)], world=world, max_frames=4)
    assert len(rows) == 3 * 4
    assert {r["reference_group_id"] for r in rows} == {"toy.corridor.s0"}
    assert [r["answer"] for r in rows if r["variant"] == "cf"] == \
        ["Fail"] * 4
    rows = task_e.build_rows([toy_group()], world=world, n_items=4, n_identity=2)
    answers = {(r["question"], r["answer"]) for r in rows}
    assert answers == {("identity", '{"answer": "key_red"}'), ("status", '{"answer": "holding"}')}


def test_task_a_rows_of_a_toy_world(no_minigrid):
    from gridwm_judge.tasks import task_a

    world = ToyWorld()
    rows = task_a.build_rows([toy_group()], world=world, n_items=4)
    assert len(rows) == 12
    assert {r["action"] for r in rows} == {"forward"}
    # The wrong action is drawn from the toy world's vocabulary, not from MiniGrid's.
    shown = {r["prompt"].split(".")[0] for r in rows if r["action_condition"] == "shuffle"}
    assert shown and shown <= {"Action: back", "Action: pickup"}
    assert all(set(json.loads(r["candidate_order"])[0]) >= {"letter", "t"} for r in rows)

"""The op interpreter and replay_envs against real MiniGrid envs."""

import gymnasium as gym
import pytest

from gridwm_judge.worlds.minigrid import OPS, apply_intervention, generate_groups, replay_envs
from gridwm_judge.worlds.minigrid.rollout import snapshot


@pytest.fixture()
def env():
    e = gym.make("MiniGrid-DoorKey-8x8-v0")
    e.reset(seed=3)
    yield e.unwrapped
    e.close()


def cell(env, pos):
    o = env.grid.get(*pos)
    return None if o is None else (o.type, o.color)


def find(env, type_):
    w = env.grid.width
    return next([i % w, i // w] for i, o in enumerate(env.grid.grid) if o and o.type == type_)


def test_each_op_changes_the_grid_as_documented(env):
    key, goal = find(env, "key"), find(env, "goal")
    free = [1, env.grid.height - 2] if cell(env, [1, env.grid.height - 2]) is None else None
    assert free is not None
    apply_intervention(env, [{"op": "move", "from": key, "to": free}])
    assert cell(env, key) is None and cell(env, free) == ("key", "yellow")
    apply_intervention(env, [{"op": "swap", "a": free, "b": goal}])
    assert cell(env, free) == ("goal", "green") and cell(env, goal) == ("key", "yellow")
    apply_intervention(env, [{"op": "remove", "pos": goal}])
    assert cell(env, goal) is None
    apply_intervention(env, [{"op": "place", "pos": goal,
                              "obj": {"type": "door", "color": "red", "state": 2}}])
    door = env.grid.get(*goal)
    assert (door.type, door.color, door.is_locked) == ("door", "red", True)


def test_set_only_declared_attributes():
    e = gym.make("MiniGrid-MemoryS9-v0")
    e.reset(seed=0)
    u = e.unwrapped
    apply_intervention(u, [{"op": "set", "attr": "success_pos", "value": [2, 4]}])
    assert u.success_pos == (2, 4)
    with pytest.raises(ValueError, match="success_pos"):
        apply_intervention(u, [{"op": "set", "attr": "agent_pos", "value": [2, 4]}])


@pytest.mark.parametrize(
    ("op", "match"),
    [
        ({"op": "explode", "pos": [1, 1]}, ", ".join(repr(o) for o in OPS)),
        ({"op": "remove", "pos": [99, 1]}, "outside"),
        ({"op": "move", "from": [1, 1], "to": [0, 0]}, "occupied|empty"),
        ({"op": "place", "pos": [1, 1], "obj": {"type": "dragon", "color": "red"}}, "dragon"),
        ({"op": "remove", "pos": [1]}, r"\[x, y\]"),
    ],
)
def test_bad_ops_raise_specific_errors(env, op, match):
    with pytest.raises(ValueError, match=match):
        apply_intervention(env, [op])


def test_replay_envs_matches_recorded_states():
    g = generate_groups("memory", 1, 11).groups[0]
    for rollout, ops in ((g.full, ()), (g.cf, g.cf.intervention)):
        seen = [snapshot(u) for u in replay_envs(g.env_id, g.seed, g.actions, ops)]
        assert tuple(seen) == rollout.states


def test_replay_envs_stops_when_the_episode_ends():
    e = gym.make("MiniGrid-LavaGapS7-v0")
    e.reset(seed=0)
    x, y = (int(v) for v in e.unwrapped.agent_pos)
    lava = [{"op": "place", "pos": [x + 1, y], "obj": {"type": "lava", "color": "red", "state": 0}}]
    frames = list(replay_envs("MiniGrid-LavaGapS7-v0", 0, [2, 2, 2, 2], lava))
    assert len(frames) == 2  # reset + the step into lava

"""The planner: shortest plans, and never a plan that does not truly succeed."""

import copy
from collections import deque

import gymnasium as gym
import pytest

from gridwm_judge.worlds.minigrid.cards import get_card
from gridwm_judge.worlds.minigrid.planner import PlanError, plan_actions
from gridwm_judge.worlds.minigrid.plans import Leg


def bfs_optimum(env_id, seed, max_depth=40):
    """Independent BFS over real env copies (turn/forward/pickup/toggle) to the first success."""
    env = gym.make(env_id)
    env.reset(seed=seed)
    start = env.unwrapped

    def key(u):
        doors = tuple(o.is_open for o in u.grid.grid if o is not None and o.type == "door")
        carrying = None if u.carrying is None else u.carrying.type
        return (tuple(int(v) for v in u.agent_pos), int(u.agent_dir), doors, carrying)

    queue, seen = deque([(copy.deepcopy(start), 0)]), {key(start)}
    while queue:
        u, depth = queue.popleft()
        if depth >= max_depth:
            continue
        for a in (0, 1, 2, 3, 5):
            v = copy.deepcopy(u)
            _, r, term, trunc, _ = v.step(a)
            if term:
                if r > 0 and not trunc:
                    return depth + 1
                continue
            k = key(v)
            if k not in seen:
                seen.add(k)
                queue.append((v, depth + 1))
    return None


def legs_for(family, env_id, seed):
    e = gym.make(env_id)
    e.reset(seed=seed)
    return get_card(family).legs(e.unwrapped, "direct")


@pytest.mark.parametrize(("family", "env_id", "seed"), [
    ("lavagap", "MiniGrid-LavaGapS5-v0", 1), ("lavagap", "MiniGrid-LavaGapS5-v0", 2),
    ("multiroom", "MiniGrid-MultiRoom-N2-S4-v0", 4),
    # seed 4: finishing the key pickup in the greedily nearest pose costs 2 extra actions
    ("doorkey", "MiniGrid-DoorKey-6x6-v0", 4), ("doorkey", "MiniGrid-DoorKey-5x5-v0", 1),
])
def test_plan_length_is_the_bfs_optimum(family, env_id, seed):
    plan = plan_actions(env_id, seed, legs_for(family, env_id, seed))
    assert len(plan) == bfs_optimum(env_id, seed)


def test_plan_that_stops_short_of_success_is_rejected():
    legs = legs_for("doorkey", "MiniGrid-DoorKey-8x8-v0", 0)[:2]  # key + door, no goal
    with pytest.raises(PlanError, match="without success"):
        plan_actions("MiniGrid-DoorKey-8x8-v0", 0, legs)


def test_wrong_order_that_fails_early_is_rejected():
    red, blue = legs_for("redbluedoor", "MiniGrid-RedBlueDoors-6x6-v0", 0)
    with pytest.raises(PlanError):
        plan_actions("MiniGrid-RedBlueDoors-6x6-v0", 0, [blue, red])


def test_unreachable_target_is_rejected():
    with pytest.raises(PlanError, match="unreachable"):
        plan_actions("MiniGrid-DoorKey-8x8-v0", 0, [Leg("reach", ((0, 0),))])


def test_plan_running_past_max_steps_is_rejected_not_truncated_success():
    env_id, seed = "MiniGrid-MultiRoom-N2-S4-v0", 4  # max_steps = 40
    e = gym.make(env_id)
    e.reset(seed=seed)
    u = e.unwrapped
    start = tuple(int(v) for v in u.agent_pos)
    room = u.rooms[0]
    corner = (room.top[0] + room.size[0] - 2, room.top[1] + room.size[1] - 2)
    other = (room.top[0] + 1, room.top[1] + 1)
    away = corner if corner != start else other
    wander = [Leg("reach", (away,)), Leg("reach", (start,))] * 12
    assert len(plan_actions(env_id, seed, wander[:2] + legs_for("multiroom", env_id, seed))) < 40
    with pytest.raises(PlanError, match="episode ended|truncated=True"):
        plan_actions(env_id, seed, wander + legs_for("multiroom", env_id, seed))

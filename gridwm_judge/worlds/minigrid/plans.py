"""Subgoal legs (the causal chain as planner input), read from the reset env: one function per
plan shape, which a family's card names (``cards.EnvCard.legs``).

Task E families have two plan shapes, chosen from the seed (``plan_variant``): "direct" and
"regrab", where the first picked object is dropped and picked up again later, so that the
statuses holding / dropped / reacquired_and_holding all occur. In UnlockPickup's regrab the
agent carries the key a few steps, drops it, walks to face the door, and comes back for the
key (several "dropped" frames); in BlockedUnlockPickup's regrab it takes the key first,
drops it to move the blocking ball, then picks the key up again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gridwm_judge.worlds.minigrid.grid import find, locked_door, mission_object

REGRAB_WALK = 3  # carry the first object a few actions before dropping it


@dataclass(frozen=True)
class Leg:
    """One subgoal: ``kind`` in face/pickup/toggle/reach/drop; ``targets`` are cells."""

    kind: str
    targets: tuple[tuple[int, int], ...] = ()
    open_doors: bool = True
    avoid: tuple[tuple[int, int], ...] = ()
    obj: tuple[str, str] | None = None  # (type, color): targets looked up when the leg starts
    min_path: int = 0  # drop legs: walk at least this many actions before dropping


def _one(u, type_: str, color: str | None = None) -> tuple[int, int]:
    cells = find(u, type_, color)
    if len(cells) != 1:
        raise ValueError(f"expected one {color or ''} {type_} in the grid, found {len(cells)}")
    return cells[0]


def plan_variant(family: str, seed: int, regrab: bool) -> str:
    """'regrab' for about half of the seeds of a family with a regrab plan, else 'direct'
    (deterministic)."""
    if not regrab:
        return "direct"
    return "regrab" if random.Random(f"{family}:{seed}").random() < 0.5 else "direct"


def legs_doorkey(u, variant: str) -> list[Leg]:
    door, color = locked_door(u)
    return [Leg("pickup", (_one(u, "key", color),)), Leg("toggle", (door,)),
            Leg("reach", (_one(u, "goal"),))]


def legs_keycorridor(u, variant: str) -> list[Leg]:
    door, color = locked_door(u)
    return [Leg("pickup", (_one(u, "key", color),)), Leg("toggle", (door,)), Leg("drop"),
            Leg("pickup", (mission_object(u),))]


def legs_redbluedoor(u, variant: str) -> list[Leg]:
    return [Leg("toggle", (_one(u, "door", "red"),), open_doors=False),
            Leg("toggle", (_one(u, "door", "blue"),), open_doors=False)]


def legs_reach_goal(u, variant: str) -> list[Leg]:
    return [Leg("reach", (_one(u, "goal"),))]


def legs_memory(u, variant: str) -> list[Leg]:
    cue = (1, u.grid.height // 2 - 1)
    fail = (int(u.failure_pos[0]), int(u.failure_pos[1]))
    succ = (int(u.success_pos[0]), int(u.success_pos[1]))
    return [Leg("face", (cue,), avoid=(fail, succ)), Leg("reach", (succ,), avoid=(fail,))]


def legs_unlockpickup(u, variant: str) -> list[Leg]:
    door, color = locked_door(u)
    key = (_one(u, "key", color),)
    box = (mission_object(u),)
    if variant == "regrab":
        return [Leg("pickup", key), Leg("drop", min_path=REGRAB_WALK), Leg("face", (door,)),
                Leg("pickup", obj=("key", color)),
                Leg("toggle", (door,)), Leg("drop"), Leg("pickup", box)]
    return [Leg("pickup", key), Leg("toggle", (door,)), Leg("drop"), Leg("pickup", box)]


def legs_blockedunlockpickup(u, variant: str) -> list[Leg]:
    door, color = locked_door(u)
    key = (_one(u, "key", color),)
    ball = (find(u, "ball")[0],)
    box = (mission_object(u),)
    if variant == "regrab":
        return [Leg("pickup", key), Leg("drop", min_path=REGRAB_WALK), Leg("pickup", ball),
                Leg("drop"),
                Leg("pickup", obj=("key", color)), Leg("toggle", (door,)), Leg("drop"),
                Leg("pickup", box)]
    return [Leg("pickup", ball), Leg("drop"), Leg("pickup", key), Leg("toggle", (door,)),
            Leg("drop"), Leg("pickup", box)]

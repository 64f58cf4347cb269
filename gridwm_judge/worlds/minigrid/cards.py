"""Env cards: one table (MiniGrid style) that drives planning, NoCue, CF and the E1 chain.

Each card names the registered env ids, a default whose full-grid frames stay readable, the
causal chain (text and the ordered events gate E1 requires), the NoCue target and frame
budget (paper: key 5, matching key 5, red door 5, lava 4, cue 10, door/goal 12), the CF
intervention kind (the op kinds it may use) and the env attributes a CF may ``set``. The
code behind a card is keyed by its family: planner legs in ``plans.LEGS``, CF ops in
``counterfactual.cf_ops``, NoCue targets in ``nocue.target_specs``. This module imports no
other module of the simulator: everything else builds on it.

Event extractor: one extractor (``events.extract_events``) serves every card; the
env-specific events come from the env's own attributes (LavaGap ``gap_pos`` -> cross_gap,
Memory ``success_pos`` / ``failure_pos`` -> choose), and ``chain_events`` names the ones gate
E1 requires, in order. Default env ids: DoorKey-8x8 (8x8), KeyCorridorS4R3 (10x10),
RedBlueDoors-8x8 (16x8), LavaGapS7 (7x7), MemoryS9 (9x9), MultiRoom-N2-S4 (25x25 canvas, two
small rooms), UnlockPickup / BlockedUnlockPickup (11x6).
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym


@dataclass(frozen=True)
class EnvCard:
    """What one env family is about and how each variant of a group is built."""

    family: str
    env_ids: tuple[str, ...]
    default_env_id: str
    mission: str
    causal_chain: str
    chain_events: tuple[tuple[str, str | None], ...]
    nocue_target: str
    nocue_budget: int
    cf_kind: str
    cf_ops: tuple[str, ...]
    settable_attrs: tuple[str, ...] = ()
    forbidden_events: tuple[str, ...] = ()
    task_e: bool = False


def _ids(prefix: str, names) -> tuple[str, ...]:
    return tuple(f"MiniGrid-{prefix}{n}-v0" for n in names)


ENV_CARDS: dict[str, EnvCard] = {c.family: c for c in (
    EnvCard("doorkey", _ids("DoorKey-", ("5x5", "6x6", "8x8", "16x16")),
            "MiniGrid-DoorKey-8x8-v0",
            "use the key to open the door and then get to the goal",
            "pick up key -> unlock door -> reach goal",
            (("pickup", "key"), ("unlock", "door"), ("reach_goal", "goal")),
            "key", 5, "relocate the goal off the path (remove it if no cell is free)",
            ("move", "remove")),
    EnvCard("keycorridor", _ids("KeyCorridor", ("S3R1", "S3R2", "S3R3", "S4R3", "S5R3", "S6R3")),
            "MiniGrid-KeyCorridorS4R3-v0",
            "pick up the {color} {type}",
            "pick up colour-matched key -> unlock locked door -> drop key -> pick up target",
            (("pickup", "key"), ("unlock", "door"), ("drop", "key"), ("pickup", None)),
            "matching key", 5, "remove the mission target object", ("remove",)),
    EnvCard("redbluedoor", _ids("RedBlueDoors-", ("6x6", "8x8")),
            "MiniGrid-RedBlueDoors-8x8-v0",
            "open the red door then the blue door",
            "open red door -> open blue door",
            (("open", "door"), ("open", "door")),
            "red door", 5, "block the blue door passage with a wall", ("place",)),
    EnvCard("lavagap", _ids("LavaGapS", ("5", "6", "7")),
            "MiniGrid-LavaGapS7-v0",
            "avoid the lava and get to the green goal square",
            "find the gap -> cross without lava -> reach goal",
            (("cross_gap", None), ("reach_goal", "goal")),
            "lava", 4, "relocate the goal off the path (remove it if no cell is free)",
            ("move", "remove"), forbidden_events=("enter_lava",)),
    EnvCard("memory", _ids("MemoryS", ("7", "9", "11", "13", "13Random", "17Random")),
            "MiniGrid-MemoryS9-v0",
            "go to the matching object at the end of the hallway",
            "see cue -> walk the corridor -> choose the matching end object",
            (("see", None), ("choose", None)),
            "cue", 10,
            "swap the correct and distractor end objects and their success/failure cells",
            ("swap", "set"), settable_attrs=("success_pos", "failure_pos")),
    EnvCard("multiroom", ("MiniGrid-MultiRoom-N2-S4-v0", "MiniGrid-MultiRoom-N4-S5-v0",
                          "MiniGrid-MultiRoom-N6-v0"),
            "MiniGrid-MultiRoom-N2-S4-v0",
            "traverse the rooms to get to the goal",
            "open doors room by room -> enter goal room -> reach goal",
            (("open", "door"), ("reach_goal", "goal")),
            "door/goal evidence before the goal room", 12, "remove the final goal", ("remove",)),
    EnvCard("unlockpickup", ("MiniGrid-UnlockPickup-v0",), "MiniGrid-UnlockPickup-v0",
            "pick up the {color} box",
            "pick up key -> unlock door -> drop key -> pick up box (Task E)",
            (("pickup", "key"), ("unlock", "door"), ("drop", "key"), ("pickup", "box")),
            "none (Task E)", 0, "remove the target box", ("remove",), task_e=True),
    EnvCard("blockedunlockpickup", ("MiniGrid-BlockedUnlockPickup-v0",),
            "MiniGrid-BlockedUnlockPickup-v0",
            "pick up the {color} box",
            "move the blocking ball -> pick up key -> unlock door -> drop key -> pick up box "
            "(Task E)",
            (("pickup", "ball"), ("drop", "ball"), ("unlock", "door"), ("drop", "key"),
             ("pickup", "box")),
            "none (Task E)", 0, "remove the target box", ("remove",), task_e=True),
)}


FAMILIES: tuple[str, ...] = tuple(ENV_CARDS)
"""Every env family, in card order."""
CORE_FAMILIES: tuple[str, ...] = tuple(f for f, c in ENV_CARDS.items() if not c.task_e)
"""The six families with a NoCue target and a causal-chain storyboard (Tasks A-D)."""
TASK_E_FAMILIES: tuple[str, ...] = tuple(f for f, c in ENV_CARDS.items() if c.task_e)
"""The two pickup families of Task E (prefix state tracking)."""


def get_card(family: str) -> EnvCard:
    if family not in ENV_CARDS:
        raise ValueError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    return ENV_CARDS[family]


def all_env_ids() -> tuple[str, ...]:
    return tuple(e for c in ENV_CARDS.values() for e in c.env_ids)


def family_of(env_id: str) -> str:
    for c in ENV_CARDS.values():
        if env_id in c.env_ids:
            return c.family
    raise ValueError(f"unknown env id {env_id!r}; expected one of {', '.join(all_env_ids())}")


def check_family_env_id(family: str, env_id: str) -> None:
    """Raise a ValueError unless ``env_id`` is one of ``family``'s carded ids."""
    card = get_card(family)
    if family_of(env_id) != family:
        raise ValueError(f"env id {env_id!r} belongs to family {family_of(env_id)!r}, "
                         f"not {family!r}; {family} ids: {', '.join(card.env_ids)}")


def check_env_id(env_id: str) -> None:
    """Raise a ValueError listing the valid ids unless ``env_id`` is a carded, registered id."""
    family_of(env_id)
    if env_id not in gym.registry:
        raise ValueError(f"env id {env_id!r} is not registered with gymnasium in this install")


def env_short(env_id: str) -> str:
    """'MiniGrid-DoorKey-8x8-v0' -> 'DoorKey-8x8' (used in group ids)."""
    s = env_id.removeprefix("MiniGrid-")
    return s.rsplit("-v", 1)[0]

"""Env cards: one spec per MiniGrid family, which planning, NoCue, CF, the gates and Oracle-State
read; nothing else in the world branches on a family's name.

Each card names the registered env ids, a default whose full-grid frames stay readable, the
causal chain (text and the ordered events gate E1 requires), the NoCue target and frame
budget (paper: key 5, matching key 5, red door 5, lava 4, cue 10, door/goal 12), the CF
intervention kind (the op kinds it may use) and the env attributes a CF may ``set``; and the
code behind it: its planner legs (``plans``), where its NoCue targets are (``nocue``), its CF's
ops and why that CF fails (``counterfactual``), its hard CF (``hard_counterfactual``) or why it
has none, and any rule gate E1 adds to the chain. Its causal chain is its Oracle-State task
type and the object of its last chain event its objective. A new family is one card here (its
legs in ``plans`` if no existing shape fits) and a line in the profile that draws it.

This module imports only the light building blocks named above (no env, no gymnasium), so the
task table can read the cards cheaply.

Event extractor: one extractor (``events.extract_events``) serves every card; the
env-specific events come from the env's own attributes (LavaGap ``gap_pos`` -> cross_gap,
Memory ``success_pos`` / ``failure_pos`` -> choose), and ``chain_events`` names the ones gate
E1 requires, in order. Default env ids: DoorKey-8x8 (8x8), KeyCorridorS4R3 (10x10),
RedBlueDoors-8x8 (16x8), LavaGapS7 (7x7), MemoryS9 (9x9), MultiRoom-N2-S4 (25x25 canvas, two
small rooms), UnlockPickup / BlockedUnlockPickup (11x6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridwm_judge.worlds.minigrid import counterfactual as cf
from gridwm_judge.worlds.minigrid import hard_counterfactual as hard
from gridwm_judge.worlds.minigrid import nocue, plans
from gridwm_judge.worlds.minigrid.counterfactual import CfCheck, CfOps
from gridwm_judge.worlds.minigrid.hard_counterfactual import HardCF
from gridwm_judge.worlds.minigrid.plans import Leg

E1Check = Callable[[Sequence[dict], Sequence[dict], tuple], "str | None"]
"""(Full's events, NoCue target specs, the card's chain events) -> why the chain is not met,
checked before gate E1's ordered events (None: no objection)."""


@dataclass(frozen=True)
class EnvCard:
    """One env family's spec: what it is about and how each variant of a group is built."""

    family: str
    env_ids: tuple[str, ...]
    """The registered env ids of the family; ``default_env_id`` is the one a draw uses."""
    default_env_id: str
    mission: str
    causal_chain: str
    """The chain in words: the dataset card's and Oracle-State's task type."""
    chain_events: tuple[tuple[str, str | None], ...]
    """(event type, object type or None) steps gate E1 requires in order."""
    nocue_target: str
    nocue_budget: int
    """Most frames NoCue may mask (gate N1)."""
    cf_kind: str
    cf_ops: tuple[str, ...]
    """The op kinds the paper CF may use (gate CF1)."""
    legs: Callable[[object, str], list[Leg]]
    """(reset env, plan variant) -> the planner's legs (``plans``)."""
    make_cf: CfOps
    check_cf: CfCheck
    """Why the paper CF fails, gate CF1's family rule (``counterfactual``)."""
    nocue_cells: Callable[[object], list] | None = None
    """Reset env -> the NoCue target cells (``nocue``); None: no NoCue target (Task E)."""
    hard_cf: HardCF | None = None
    no_hard_cf: str = ""
    """Why a core family has no hard CF (the dataset card prints it)."""
    e1_check: E1Check | None = None
    settable_attrs: tuple[str, ...] = ()
    """Env attributes a CF may ``set``."""
    forbidden_events: tuple[str, ...] = ()
    task_e: bool = False
    oracle_state: bool = False
    """Whether its causal chain is one of Oracle-State's task types (the paper's six core
    families): a card says so itself, so a new family leaves Oracle-State's prompts alone
    unless it opts in (then bump ``prompts.PROMPT_VERSION``: every Oracle-State prompt lists
    the task types)."""
    regrab: bool = False
    """Whether about half the seeds take the regrab plan (``plans.plan_variant``)."""

    @property
    def os_task_type(self) -> str | None:
        """The task type an Oracle-State answer names for this family (None: not one of
        Oracle-State's families)."""
        return self.causal_chain if self.oracle_state else None

    @property
    def objective_event(self) -> tuple[str, str | None]:
        """(event type, object type or None): Oracle-State's objective is the object of the
        last such event in Full."""
        return self.chain_events[-1]

    def plan_variant(self, seed: int) -> str:
        """The plan shape of ``seed``: "direct", or "regrab" for about half the seeds of a
        family with a regrab plan."""
        return plans.plan_variant(self.family, seed, self.regrab)

    def target_specs(self, u) -> tuple[dict, ...]:
        """The NoCue target objects of the reset env ``u`` ({"type", "color", "pos"} at t=0);
        () for a family without a NoCue target."""
        return () if self.nocue_cells is None else nocue.target_specs(u, self.nocue_cells(u))


def _cue_seen_first(events: Sequence[dict], specs: Sequence[dict], chain: tuple) -> str | None:
    """The "see" of Memory's chain is a sight of the cue, not of an end object."""
    cue = [s["pos"] for s in specs]
    seen = [e for e in events if e["type"] != "see" or e["pos"] in cue]
    return None if subsequence(seen, chain) else f"events miss the chain {chain}"


def _red_then_blue(events: Sequence[dict], specs: Sequence[dict], chain: tuple) -> str | None:
    opened = [e["obj"]["color"] for e in events if e["type"] == "open"]
    return None if opened == ["red", "blue"] else (
        f"doors opened in order {opened}, expected red then blue")


def subsequence(events: Sequence[dict], chain) -> bool:
    """The (event type, object type or None) steps of ``chain`` occur in ``events`` in order."""
    i = 0
    for e in events:
        if i == len(chain):
            break
        kind, obj_type = chain[i]
        if e["type"] == kind and (obj_type is None or (e["obj"] or {}).get("type") == obj_type):
            i += 1
    return i == len(chain)


def _ids(prefix: str, names) -> tuple[str, ...]:
    return tuple(f"MiniGrid-{prefix}{n}-v0" for n in names)


_OBJECT_OFF_PATH = HardCF(
    "move the mission's object off the agent's path, within its room behind the locked door "
    "where a cell is free, else to a side room the agent never enters",
    ("move",), hard.object_off_path, hard.object_displaced)
_RED_DOOR_ALONG_WALL = HardCF(
    "move the red door along its wall to a cell the agent never faces (the same actions toggle "
    "bare wall, then open the blue door first)",
    ("swap",), hard.red_door_along_wall, hard.red_door_moved)
_GOAL_OFF_PATH = HardCF(
    "move the goal off the agent's path, within the last room where a cell is free, else to "
    "another room",
    ("move",), hard.goal_off_path, hard.goal_displaced)


ENV_CARDS: dict[str, EnvCard] = {c.family: c for c in (
    EnvCard("doorkey", _ids("DoorKey-", ("5x5", "6x6", "8x8", "16x16")),
            "MiniGrid-DoorKey-8x8-v0",
            "use the key to open the door and then get to the goal",
            "pick up key -> unlock door -> reach goal",
            (("pickup", "key"), ("unlock", "door"), ("reach_goal", "goal")),
            "key", 5, "relocate the goal off the path (remove it if no cell is free)",
            ("move", "remove"), plans.legs_doorkey, cf.goal_beyond_door, cf.goal_missing,
            nocue.key_cells,
            no_hard_cf="not a Task C family (its paper CF already relocates the goal)",
            oracle_state=True),
    EnvCard("keycorridor", _ids("KeyCorridor", ("S3R1", "S3R2", "S3R3", "S4R3", "S5R3", "S6R3")),
            "MiniGrid-KeyCorridorS4R3-v0",
            "pick up the {color} {type}",
            "pick up colour-matched key -> unlock locked door -> drop key -> pick up target",
            (("pickup", "key"), ("unlock", "door"), ("drop", "key"), ("pickup", None)),
            "matching key", 5, "remove the mission target object", ("remove",),
            plans.legs_keycorridor, cf.remove_mission_object, cf.target_missing,
            nocue.matching_key_cells,
            hard_cf=_OBJECT_OFF_PATH, oracle_state=True),
    EnvCard("redbluedoor", _ids("RedBlueDoors-", ("6x6", "8x8")),
            "MiniGrid-RedBlueDoors-8x8-v0",
            "open the red door then the blue door",
            "open red door -> open blue door",
            (("open", "door"), ("open", "door")),
            "red door", 5, "block the blue door passage with a wall", ("place",),
            plans.legs_redbluedoor, cf.wall_blue_door, cf.blue_door_walled, nocue.red_door_cells,
            hard_cf=_RED_DOOR_ALONG_WALL,
            e1_check=_red_then_blue, oracle_state=True),
    EnvCard("lavagap", _ids("LavaGapS", ("5", "6", "7")),
            "MiniGrid-LavaGapS7-v0",
            "avoid the lava and get to the green goal square",
            "find the gap -> cross without lava -> reach goal",
            (("cross_gap", None), ("reach_goal", "goal")),
            "lava", 4, "relocate the goal off the path (remove it if no cell is free)",
            ("move", "remove"), plans.legs_reach_goal, cf.goal_beyond_gap, cf.goal_missing,
            nocue.lava_cells,
            no_hard_cf="not a Task C family (its paper CF already relocates the goal)",
            forbidden_events=("enter_lava",), oracle_state=True),
    EnvCard("memory", _ids("MemoryS", ("7", "9", "11", "13", "13Random", "17Random")),
            "MiniGrid-MemoryS9-v0",
            "go to the matching object at the end of the hallway",
            "see cue -> walk the corridor -> choose the matching end object",
            (("see", None), ("choose", None)),
            "cue", 10,
            "swap the correct and distractor end objects and their success/failure cells",
            ("swap", "set"), plans.legs_memory, cf.swap_memory_ends, cf.wrong_end_chosen,
            nocue.memory_cue_cells,
            no_hard_cf="not a Task C family (its paper CF already swaps the end objects)",
            e1_check=_cue_seen_first, settable_attrs=("success_pos", "failure_pos"),
            oracle_state=True),
    EnvCard("multiroom", ("MiniGrid-MultiRoom-N2-S4-v0", "MiniGrid-MultiRoom-N4-S5-v0",
                          "MiniGrid-MultiRoom-N6-v0"),
            "MiniGrid-MultiRoom-N2-S4-v0",
            "traverse the rooms to get to the goal",
            "open doors room by room -> enter goal room -> reach goal",
            (("open", "door"), ("reach_goal", "goal")),
            "door/goal evidence before the goal room", 12, "remove the final goal", ("remove",),
            plans.legs_reach_goal, cf.remove_goal, cf.goal_missing, nocue.goal_room_cells,
            hard_cf=_GOAL_OFF_PATH, oracle_state=True),
    EnvCard("unlockpickup", ("MiniGrid-UnlockPickup-v0",), "MiniGrid-UnlockPickup-v0",
            "pick up the {color} box",
            "pick up key -> unlock door -> drop key -> pick up box (Task E)",
            (("pickup", "key"), ("unlock", "door"), ("drop", "key"), ("pickup", "box")),
            "none (Task E)", 0, "remove the target box", ("remove",),
            plans.legs_unlockpickup, cf.remove_mission_object, cf.target_missing, task_e=True,
            regrab=True),
    EnvCard("blockedunlockpickup", ("MiniGrid-BlockedUnlockPickup-v0",),
            "MiniGrid-BlockedUnlockPickup-v0",
            "pick up the {color} box",
            "move the blocking ball -> pick up key -> unlock door -> drop key -> pick up box "
            "(Task E)",
            (("pickup", "ball"), ("drop", "ball"), ("unlock", "door"), ("drop", "key"),
             ("pickup", "box")),
            "none (Task E)", 0, "remove the target box", ("remove",),
            plans.legs_blockedunlockpickup, cf.remove_mission_object, cf.target_missing,
            task_e=True, regrab=True),
)}


FAMILIES: tuple[str, ...] = tuple(ENV_CARDS)
"""Every env family, in card order."""
CORE_FAMILIES: tuple[str, ...] = tuple(f for f, c in ENV_CARDS.items() if not c.task_e)
"""Every family but Task E's: with a NoCue target and a causal-chain storyboard (Tasks A-D).
The paper's six are :data:`gridwm_judge.dataset.profiles.CORE`."""
TASK_E_FAMILIES: tuple[str, ...] = tuple(f for f, c in ENV_CARDS.items() if c.task_e)
"""The two pickup families of Task E (prefix state tracking)."""
OS_TASK_TYPES: tuple[str, ...] = tuple(c.os_task_type for c in ENV_CARDS.values()
                                       if c.os_task_type is not None)
"""The task types an Oracle-State answer chooses from: the core cards' causal chains, in card
order."""
HARD_CF_FAMILIES: tuple[str, ...] = tuple(f for f, c in ENV_CARDS.items() if c.hard_cf)
"""The families with a hard CF (``hard_counterfactual``), in card order."""
NO_HARD_CF: dict[str, str] = {f: c.no_hard_cf for f, c in ENV_CARDS.items() if c.no_hard_cf}
"""Core families without a hard CF, and why (the dataset card prints it)."""


def hard_cf_of(family: str) -> HardCF:
    """The hard CF of ``family``; a ValueError for a family without one."""
    card = get_card(family)
    if card.hard_cf is None:
        raise ValueError(f"no hard CF for family {family!r}; expected one of "
                         f"{', '.join(HARD_CF_FAMILIES)}")
    return card.hard_cf


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
    import gymnasium as gym  # here, not at the top: reading the cards needs no env

    family_of(env_id)
    if env_id not in gym.registry:
        raise ValueError(f"env id {env_id!r} is not registered with gymnasium in this install")


def env_short(env_id: str) -> str:
    """'MiniGrid-DoorKey-8x8-v0' -> 'DoorKey-8x8' (used in group ids)."""
    s = env_id.removeprefix("MiniGrid-")
    return s.rsplit("-v", 1)[0]

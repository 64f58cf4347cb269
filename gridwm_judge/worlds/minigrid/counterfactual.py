"""The paper's CF interventions and the CF1 check that the failure is due to them.

Each family's card names one op builder (``make(u, full, seed)``: reads the reset env, before
any step, and Full's rollout; returns the op list, vocabulary in ``interventions``) and one
check of why its CF fails (``check(full, cf)``: None when the failure is the intended one).
``cf1_reason`` runs the checks every family shares, then the card's.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.grid import find, mission_object

CfOps = Callable[..., list[dict]]
"""(reset env, Full's rollout, seed) -> the CF's op list, applied right after reset."""
CfCheck = Callable[[Rollout, Rollout], "str | None"]
"""(Full, CF) -> None when the CF fails for the intended reason, else why not."""


def _goal_ops(u, full: Rollout, seed: int, same_side_of: int | None) -> list[dict]:
    goal = find(u, "goal")[0]
    visited = {tuple(s["agent_pos"]) for s in full.states}
    cand = []
    for y in range(1, u.grid.height - 1):
        for x in range(1, u.grid.width - 1):
            if u.grid.get(x, y) is None and (x, y) not in visited:
                if same_side_of is None or x > same_side_of:
                    cand.append((x, y))
    if not cand:
        return [{"op": "remove", "pos": list(goal)}]
    to = random.Random(f"cf:{seed}").choice(cand)
    return [{"op": "move", "from": list(goal), "to": list(to)}]


def goal_beyond_door(u, full: Rollout, seed: int) -> list[dict]:
    """Relocate the goal off the path, on the far side of the door (remove it if no cell)."""
    return _goal_ops(u, full, seed, same_side_of=find(u, "door")[0][0])


def goal_beyond_gap(u, full: Rollout, seed: int) -> list[dict]:
    """Relocate the goal off the path, beyond the lava gap (remove it if no cell)."""
    return _goal_ops(u, full, seed, same_side_of=int(u.gap_pos[0]))


def remove_goal(u, full: Rollout, seed: int) -> list[dict]:
    return [{"op": "remove", "pos": list(find(u, "goal")[0])}]


def remove_mission_object(u, full: Rollout, seed: int) -> list[dict]:
    return [{"op": "remove", "pos": list(mission_object(u))}]


def wall_blue_door(u, full: Rollout, seed: int) -> list[dict]:
    blue = find(u, "door", "blue")[0]
    return [{"op": "place", "pos": list(blue),
             "obj": {"type": "wall", "color": "grey", "state": 0}}]


def swap_memory_ends(u, full: Rollout, seed: int) -> list[dict]:
    """Swap the correct and distractor end objects and their success / failure cells."""
    succ = [int(v) for v in u.success_pos]
    fail = [int(v) for v in u.failure_pos]
    mid = u.grid.height // 2

    def end_obj(p):
        return [p[0], p[1] - 1 if p[1] < mid else p[1] + 1]

    return [{"op": "swap", "a": end_obj(succ), "b": end_obj(fail)},
            {"op": "set", "attr": "success_pos", "value": fail},
            {"op": "set", "attr": "failure_pos", "value": succ}]


def obj_at(state: dict, pos) -> dict | None:
    """The object of ``state`` at cell ``pos``, or None."""
    return next((o for o in state["objects"] if o["pos"] == list(pos)), None)


def cf1_reason(full: Rollout, cf: Rollout, allowed_ops: tuple[str, ...],
               settable: tuple[str, ...], check: CfCheck) -> str | None:
    """None if the CF intervention is of the declared kind and explains the failure
    (``check``: the card's rule for why its CF fails)."""
    ops = cf.intervention
    if not ops or any(op.get("op") not in allowed_ops for op in ops):
        return f"ops {[op.get('op') for op in ops]} not of the declared kind {allowed_ops}"
    bad_attrs = [op.get("attr") for op in ops
                 if op["op"] == "set" and op.get("attr") not in settable]
    if bad_attrs:
        return f"sets {bad_attrs}, but the card only allows {settable}"
    if cf.truncated:
        return "CF truncated"
    if cf.success:
        return "CF succeeded"
    return check(full, cf)


def goal_missing(full: Rollout, cf: Rollout) -> str | None:
    """The goal was moved or removed, and the CF walks on to where Full reached it."""
    ops, s0, c0 = cf.intervention, full.states[0], cf.states[0]
    src = ops[0].get("from", ops[0].get("pos"))
    o = obj_at(s0, src)
    if o is None or o["type"] != "goal":
        return f"op source {src} is not the goal"
    if cf.terminated:
        return "CF terminated (hazard or other cause), not a missing goal"
    end = full.states[-1]["agent_pos"]
    if cf.states[-1]["agent_pos"] != end or obj_at(c0, end) is not None:
        return "CF does not end where Full reached the goal, or that cell is not empty"
    return None


def target_missing(full: Rollout, cf: Rollout) -> str | None:
    """The object whose pickup ended Full was removed; the CF ends in Full's final pose."""
    op = cf.intervention[0]
    o = obj_at(full.states[0], op["pos"])
    if o is None or o["type"] not in ("ball", "box", "key"):
        return f"removed cell {op['pos']} held no target object"
    last = next(e for e in reversed(full.events) if e["type"] == "pickup")
    if last["pos"] != op["pos"]:
        return "removed object is not the one whose pickup ended Full"
    if cf.terminated or cf.states[-1]["agent_pos"] != full.states[-1]["agent_pos"]:
        return "CF ended differently from Full's final pose"
    return None


def blue_door_walled(full: Rollout, cf: Rollout) -> str | None:
    o = obj_at(full.states[0], cf.intervention[0]["pos"])
    if o is None or (o["type"], o["color"]) != ("door", "blue"):
        return "blocked cell is not the blue door"
    if not any(e["type"] == "open" and e["obj"]["color"] == "red" for e in cf.events):
        return "CF never opens the red door"
    if cf.terminated:
        return "CF terminated"
    return None


def wrong_end_chosen(full: Rollout, cf: Rollout) -> str | None:
    ch = [e for e in cf.events if e["type"] == "choose"]
    fch = [e for e in full.events if e["type"] == "choose"]
    if not ch or not fch or ch[0]["outcome"] != "failure" or ch[0]["pos"] != fch[0]["pos"]:
        return "CF does not end with a wrong choice at Full's end cell"
    if ch[0]["obj"] == fch[0]["obj"]:
        return "the chosen end object looks the same in Full and CF"
    return None

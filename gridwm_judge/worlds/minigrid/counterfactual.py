"""CF interventions per family and the CF1 check that the failure is due to them.

``cf_ops(family, u, full, seed)`` reads the reset env (before any step) and Full's rollout and
returns the op list (vocabulary in ``interventions``). ``cf1_reason`` returns None when the CF
is of the declared kind and fails for the intended reason, else a short reason string.
"""

from __future__ import annotations

import random

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.grid import find


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


def cf_ops(family: str, u, full: Rollout, seed: int) -> list[dict]:
    """The declared intervention for this family, applied right after reset."""
    if family == "doorkey":
        door = find(u, "door")[0]
        return _goal_ops(u, full, seed, same_side_of=door[0])
    if family == "lavagap":
        return _goal_ops(u, full, seed, same_side_of=int(u.gap_pos[0]))
    if family == "multiroom":
        return [{"op": "remove", "pos": list(find(u, "goal")[0])}]
    if family in ("keycorridor", "unlockpickup", "blockedunlockpickup"):
        return [{"op": "remove", "pos": [int(u.obj.cur_pos[0]), int(u.obj.cur_pos[1])]}]
    if family == "redbluedoor":
        blue = find(u, "door", "blue")[0]
        return [{"op": "place", "pos": list(blue),
                 "obj": {"type": "wall", "color": "grey", "state": 0}}]
    if family == "memory":
        succ = [int(v) for v in u.success_pos]
        fail = [int(v) for v in u.failure_pos]
        mid = u.grid.height // 2

        def end_obj(p):
            return [p[0], p[1] - 1 if p[1] < mid else p[1] + 1]

        return [{"op": "swap", "a": end_obj(succ), "b": end_obj(fail)},
                {"op": "set", "attr": "success_pos", "value": fail},
                {"op": "set", "attr": "failure_pos", "value": succ}]
    raise ValueError(f"no CF intervention for family {family!r}")


def _obj_at(state: dict, pos) -> dict | None:
    return next((o for o in state["objects"] if o["pos"] == list(pos)), None)


def cf1_reason(family: str, full: Rollout, cf: Rollout, allowed_ops: tuple[str, ...],
               settable: tuple[str, ...] = ()) -> str | None:
    """None if the CF intervention is of the declared kind and explains the failure."""
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
    s0, c0, cl, fl = full.states[0], cf.states[0], cf.states[-1], full.states[-1]
    if family in ("doorkey", "lavagap", "multiroom"):
        src = ops[0].get("from", ops[0].get("pos"))
        o = _obj_at(s0, src)
        if o is None or o["type"] != "goal":
            return f"op source {src} is not the goal"
        if cf.terminated:
            return "CF terminated (hazard or other cause), not a missing goal"
        if cl["agent_pos"] != fl["agent_pos"] or _obj_at(c0, fl["agent_pos"]) is not None:
            return "CF does not end where Full reached the goal, or that cell is not empty"
        return None
    if family in ("keycorridor", "unlockpickup", "blockedunlockpickup"):
        o = _obj_at(s0, ops[0]["pos"])
        if o is None or o["type"] not in ("ball", "box", "key"):
            return f"removed cell {ops[0]['pos']} held no target object"
        last = next(e for e in reversed(full.events) if e["type"] == "pickup")
        if last["pos"] != ops[0]["pos"]:
            return "removed object is not the one whose pickup ended Full"
        if cf.terminated or cl["agent_pos"] != fl["agent_pos"]:
            return "CF ended differently from Full's final pose"
        return None
    if family == "redbluedoor":
        o = _obj_at(s0, ops[0]["pos"])
        if o is None or (o["type"], o["color"]) != ("door", "blue"):
            return "blocked cell is not the blue door"
        if not any(e["type"] == "open" and e["obj"]["color"] == "red" for e in cf.events):
            return "CF never opens the red door"
        if cf.terminated:
            return "CF terminated"
        return None
    if family == "memory":
        ch = [e for e in cf.events if e["type"] == "choose"]
        fch = [e for e in full.events if e["type"] == "choose"]
        if not ch or not fch or ch[0]["outcome"] != "failure" or ch[0]["pos"] != fch[0]["pos"]:
            return "CF does not end with a wrong choice at Full's end cell"
        if ch[0]["obj"] == fch[0]["obj"]:
            return "the chosen end object looks the same in Full and CF"
        return None
    return f"no CF1 rule for family {family!r}"

"""Hard counterfactuals (issue 21): a CF whose first frame holds Full's objects.

The paper's CFs remove or wall off the target before the rollout, so a rule that reads the
first frame alone separates Full from CF. A hard CF keeps every object type and colour of
Full's initial state (positions may differ), keeps the target in the world, and fails because
of where things are when the same actions are replayed:

- ``redbluedoor``: the red door moved to another cell of its wall that the agent never faces
  (swapped with that wall cell); the same actions toggle the bare wall where the red door was,
  then open the blue door, and the env ends the episode with reward 0 at the step where Full
  succeeds. (Swapping the two doors made the CF open the blue door within a few steps: an
  episode shorter than the storyboard, whose repeated last frame said "ended early".)
- ``keycorridor``: the mission's object moved to a cell the agent never stands on or faces,
  in its own room (behind the locked door, as the env always places it) where one is free,
  else in a side room the agent never enters; the same actions unlock the door and pick up
  nothing.
- ``multiroom``: the goal moved to a cell the agent never stands on or faces, in its own (the
  last) room where one is free, else in another room; the same actions walk to where the goal
  was and the episode runs out of actions.

Moving within the object's own room keeps the env's layout (KeyCorridor's object behind the
locked door, MultiRoom's goal in the last room), so a judge that knows it learns nothing from
the first frame; the other room is the fallback.

``hard_cf_ops(family, u, full, seed)`` reads the reset env and Full's rollout and returns the
ops (vocabulary in ``interventions``), raising :class:`NoHardCounterfactual` when the seed has
no cell to move to; ``hard_cf1_reason`` is gate CF1 for a hard CF. ``NO_HARD_CF`` says, per
core family without one, why (the dataset card prints it). Like the rest of the world this knows
nothing of images: the static-cue gate (a shortcut judge must not separate the rendered items)
runs above, where groups are drawn for a config (``dataset.static_cue``).
"""

from __future__ import annotations

import random
from collections import Counter

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.grid import find, front

HARD_CF: dict[str, tuple[str, tuple[str, ...]]] = {
    "keycorridor": ("move the mission's object off the agent's path, within its room behind the "
                    "locked door where a cell is free, else to a side room the agent never "
                    "enters", ("move",)),
    "multiroom": ("move the goal off the agent's path, within the last room where a cell is "
                  "free, else to another room", ("move",)),
    "redbluedoor": ("move the red door along its wall to a cell the agent never faces (the same "
                    "actions toggle bare wall, then open the blue door first)", ("swap",)),
}
"""family -> (what the hard CF does, the op kinds it may use)."""
HARD_CF_FAMILIES: tuple[str, ...] = tuple(HARD_CF)
NO_HARD_CF: dict[str, str] = {
    "doorkey": "not a Task C family (its paper CF already relocates the goal)",
    "lavagap": "not a Task C family (its paper CF already relocates the goal)",
    "memory": "not a Task C family (its paper CF already swaps the end objects)",
}
"""Core families without a hard CF, and why."""


class NoHardCounterfactual(ValueError):
    """The seed's layout leaves no cell for the hard CF (rejected as pseudo-gate "cf_op")."""


def _off_path(full: Rollout) -> set[tuple[int, int]]:
    """Cells the agent stands on or faces in any state of Full."""
    cells = set()
    for s in full.states:
        pos = (s["agent_pos"][0], s["agent_pos"][1])
        cells.add(pos)
        cells.add(front(pos, s["agent_dir"]))
    return cells


def _room_cells(u, room) -> list[tuple[int, int]]:
    (x0, y0), (w, h) = room
    return [(x, y) for y in range(y0 + 1, y0 + h - 1) for x in range(x0 + 1, x0 + w - 1)]


def _rooms(family: str, u) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(top-left, size) of each room, walls included."""
    if family == "multiroom":
        return [(tuple(r.top), tuple(r.size)) for r in u.rooms]
    return [(tuple(r.top), tuple(r.size)) for row in u.room_grid for r in row]


def _move_off_path(u, full: Rollout, src: tuple[int, int], tiers: list[list], seed: int
                   ) -> list[dict]:
    """Move the object at ``src`` to a free cell off the agent's path in the first tier of
    rooms that has one (its own room first: the env's layout stays as in Full)."""
    banned = _off_path(full)
    for rooms in tiers:
        cand = sorted({c for r in rooms for c in _room_cells(u, r)
                       if u.grid.get(*c) is None and c not in banned})
        if cand:
            to = random.Random(f"hardcf:{seed}").choice(cand)
            return [{"op": "move", "from": list(src), "to": list(to)}]
    raise NoHardCounterfactual(f"no free cell off the agent's path to move {list(src)} to")


def _inside(room, pos, *, walls: bool = False) -> bool:
    (x0, y0), (w, h) = room
    lo, hi = (0, 0) if walls else (1, 1)
    return x0 + lo <= pos[0] <= x0 + w - 1 - hi and y0 + lo <= pos[1] <= y0 + h - 1 - hi


def _room_of(family: str, u, pos) -> tuple:
    for r in _rooms(family, u):
        if _inside(r, pos):
            return r
    raise NoHardCounterfactual(f"cell {list(pos)} lies in no room")


def hard_cf_ops(family: str, u, full: Rollout, seed: int) -> list[dict]:
    """The hard CF of this family, applied right after reset (see the module docstring)."""
    if family == "redbluedoor":
        red = find(u, "door", "red")[0]
        banned = _off_path(full)
        cand = [(red[0], y) for y in range(1, u.grid.height - 1)
                if (red[0], y) != tuple(red) and (red[0], y) not in banned
                and getattr(u.grid.get(red[0], y), "type", None) == "wall"]
        if not cand:
            raise NoHardCounterfactual(f"no wall cell beside the red door at {list(red)} that "
                                       "the agent never faces")
        to = random.Random(f"hardcf:{seed}").choice(cand)
        return [{"op": "swap", "a": list(red), "b": list(to)}]
    if family == "keycorridor":
        src = (int(u.obj.cur_pos[0]), int(u.obj.cur_pos[1]))
        own = _room_of(family, u, src)
        visited = {tuple(s["agent_pos"]) for s in full.states}
        others = [r for r in _rooms(family, u) if r != own and not any(
            _inside(r, c, walls=True) for c in visited)]
        return _move_off_path(u, full, src, [[own], others], seed)
    if family == "multiroom":
        src = find(u, "goal")[0]
        own = _room_of(family, u, src)
        return _move_off_path(u, full, src, [[own], [r for r in _rooms(family, u) if r != own]],
                              seed)
    raise ValueError(f"no hard CF for family {family!r}; expected one of "
                     f"{', '.join(HARD_CF_FAMILIES)}")


def _kinds(state: dict) -> Counter:
    return Counter((o["type"], o["color"]) for o in state["objects"])


def _obj_at(state: dict, pos) -> dict | None:
    return next((o for o in state["objects"] if o["pos"] == list(pos)), None)


def hard_cf1_reason(family: str, full: Rollout, cf: Rollout) -> str | None:
    """Gate CF1 of a hard CF: None if it is of the declared kind, keeps Full's object types
    and colours at t=0, keeps the target in the world and fails for the intended reason."""
    if family not in HARD_CF:
        return f"no hard CF rule for family {family!r}"
    allowed = HARD_CF[family][1]
    ops = cf.intervention
    if len(ops) != 1 or ops[0].get("op") not in allowed:
        return f"ops {[op.get('op') for op in ops]} not one op of the declared kind {allowed}"
    if cf.truncated:
        return "CF truncated"
    if cf.success:
        return "CF succeeded"
    s0, c0, cl, fl = full.states[0], cf.states[0], cf.states[-1], full.states[-1]
    if _kinds(s0) != _kinds(c0):
        return "CF's first state holds other object types or colours than Full's"
    op = ops[0]
    if family == "redbluedoor":
        a, moved_to = _obj_at(s0, op["a"]), _obj_at(c0, op["b"])
        if (a or {}).get("color") != "red" or (a or {}).get("type") != "door" or (
                moved_to or {}).get("color") != "red" or op["a"][0] != op["b"][0]:
            return "the red door was not moved along its wall"
        opened = [e["obj"]["color"] for e in cf.events if e["type"] == "open"]
        if opened != ["blue"]:
            return f"CF opens doors {opened}, not the blue door alone"
        if not cf.terminated:
            return "CF did not end on opening the blue door first"
        if len(cf.states) != len(full.states):
            return "CF ends at another step than Full (a storyboard would show it)"
        return None
    moved = _obj_at(s0, op["from"])
    if moved is None or _obj_at(c0, op["to"]) is None:
        return f"nothing moved from {op['from']} to {op['to']}"
    key = (moved["type"], moved["color"])
    if not any((o["type"], o["color"]) == key for o in cl["objects"]):
        return f"the moved {key} is not in the CF's final state"
    if cf.terminated:
        return "CF terminated (another cause), not a displaced target"
    if cl["agent_pos"] != fl["agent_pos"]:
        return "CF does not end where Full ended"
    if family == "keycorridor":
        last = next((e for e in reversed(full.events) if e["type"] == "pickup"), None)
        if last is None or last["pos"] != op["from"]:
            return "moved object is not the one whose pickup ended Full"
        if cl["carrying"] is not None and (cl["carrying"]["type"],
                                           cl["carrying"]["color"]) == key:
            return "CF still picks up the target"
        return None
    if moved["type"] != "goal":
        return f"moved object at {op['from']} is not the goal"
    if _obj_at(c0, fl["agent_pos"]) is not None:
        return "the cell where Full reached the goal is not empty in the CF"
    return None

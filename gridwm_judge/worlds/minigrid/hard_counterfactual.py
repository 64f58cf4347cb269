"""Hard counterfactuals: a CF whose first frame holds Full's objects.

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

A family's card holds its :class:`HardCF`: what it does, the op kinds it may use, its op builder
(``make(u, full, seed)``: reads the reset env and Full's rollout, returns the ops, vocabulary in
``interventions``, raising :class:`NoHardCounterfactual` when the seed has no cell to move to)
and its check; ``hard_cf1_reason`` is gate CF1 for a hard CF. Like the rest of the world this
knows nothing of images: the static-cue gate (a shortcut judge must not separate the rendered
items) runs above, where groups are drawn for a config (``dataset.static_cue``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.counterfactual import CfCheck, obj_at
from gridwm_judge.worlds.minigrid.grid import find, front, mission_object


class NoHardCounterfactual(ValueError):
    """The seed's layout leaves no cell for the hard CF (rejected as pseudo-gate "cf_op")."""


@dataclass(frozen=True)
class HardCF:
    """A family's hard CF: what it does (the dataset card prints it), the op kinds it may use,
    its op builder and the family part of gate CF1 (after ``hard_cf1_reason``'s shared checks)."""

    text: str
    ops: tuple[str, ...]
    make: Callable[..., list[dict]]
    check: CfCheck


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


def _grid_rooms(u) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(top-left, size) of each room of a room-grid env (KeyCorridor), walls included."""
    return [(tuple(r.top), tuple(r.size)) for row in u.room_grid for r in row]


def _chain_rooms(u) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(top-left, size) of each room of MultiRoom's chain, walls included."""
    return [(tuple(r.top), tuple(r.size)) for r in u.rooms]


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


def _room_of(rooms: list, pos) -> tuple:
    for r in rooms:
        if _inside(r, pos):
            return r
    raise NoHardCounterfactual(f"cell {list(pos)} lies in no room")


def red_door_along_wall(u, full: Rollout, seed: int) -> list[dict]:
    """Swap the red door with a wall cell of its wall that the agent never faces."""
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


def object_off_path(u, full: Rollout, seed: int) -> list[dict]:
    """Move the mission's object off the path: its own room, else a side room never entered."""
    src = mission_object(u)
    rooms = _grid_rooms(u)
    own = _room_of(rooms, src)
    visited = {tuple(s["agent_pos"]) for s in full.states}
    others = [r for r in rooms if r != own and not any(
        _inside(r, c, walls=True) for c in visited)]
    return _move_off_path(u, full, src, [[own], others], seed)


def goal_off_path(u, full: Rollout, seed: int) -> list[dict]:
    """Move the goal off the path: the last room where a cell is free, else another room."""
    src = find(u, "goal")[0]
    rooms = _chain_rooms(u)
    own = _room_of(rooms, src)
    return _move_off_path(u, full, src, [[own], [r for r in rooms if r != own]], seed)


def _kinds(state: dict) -> Counter:
    return Counter((o["type"], o["color"]) for o in state["objects"])


def hard_cf1_reason(hard: HardCF, full: Rollout, cf: Rollout) -> str | None:
    """Gate CF1 of a hard CF: None if it is of the declared kind, keeps Full's object types
    and colours at t=0, keeps the target in the world and fails for the intended reason
    (``hard.check``)."""
    ops = cf.intervention
    if len(ops) != 1 or ops[0].get("op") not in hard.ops:
        return f"ops {[op.get('op') for op in ops]} not one op of the declared kind {hard.ops}"
    if cf.truncated:
        return "CF truncated"
    if cf.success:
        return "CF succeeded"
    if _kinds(full.states[0]) != _kinds(cf.states[0]):
        return "CF's first state holds other object types or colours than Full's"
    return hard.check(full, cf)


def red_door_moved(full: Rollout, cf: Rollout) -> str | None:
    op, s0, c0 = cf.intervention[0], full.states[0], cf.states[0]
    a, moved_to = obj_at(s0, op["a"]), obj_at(c0, op["b"])
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


def _moved(full: Rollout, cf: Rollout) -> tuple[dict | None, str | None]:
    """(the moved object at t=0, None) when it was moved and the CF ends where Full ended
    without terminating, else (None, why not)."""
    op, s0, c0, cl = cf.intervention[0], full.states[0], cf.states[0], cf.states[-1]
    moved = obj_at(s0, op["from"])
    if moved is None or obj_at(c0, op["to"]) is None:
        return None, f"nothing moved from {op['from']} to {op['to']}"
    key = (moved["type"], moved["color"])
    if not any((o["type"], o["color"]) == key for o in cl["objects"]):
        return None, f"the moved {key} is not in the CF's final state"
    if cf.terminated:
        return None, "CF terminated (another cause), not a displaced target"
    if cl["agent_pos"] != full.states[-1]["agent_pos"]:
        return None, "CF does not end where Full ended"
    return moved, None


def object_displaced(full: Rollout, cf: Rollout) -> str | None:
    moved, why = _moved(full, cf)
    if moved is None:
        return why
    op, cl = cf.intervention[0], cf.states[-1]
    last = next((e for e in reversed(full.events) if e["type"] == "pickup"), None)
    if last is None or last["pos"] != op["from"]:
        return "moved object is not the one whose pickup ended Full"
    if cl["carrying"] is not None and (cl["carrying"]["type"], cl["carrying"]["color"]) == (
            moved["type"], moved["color"]):
        return "CF still picks up the target"
    return None


def goal_displaced(full: Rollout, cf: Rollout) -> str | None:
    moved, why = _moved(full, cf)
    if moved is None:
        return why
    if moved["type"] != "goal":
        return f"moved object at {cf.intervention[0]['from']} is not the goal"
    if obj_at(cf.states[0], full.states[-1]["agent_pos"]) is not None:
        return "the cell where Full reached the goal is not empty in the CF"
    return None

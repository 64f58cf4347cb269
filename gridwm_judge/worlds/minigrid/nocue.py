"""NoCue: Full's exact actions and states, with the target evidence tiles masked early.

The target is read from the reset env: the card names the function that finds its cells
(``EnvCard.nocue_cells``, one of the ``*_cells`` here), ``target_specs`` gives each one's type,
colour and cell. Frames 0 .. min(budget, t*) - 1 are masked, where t* is the first frame in
which the agent faces, stands on or interacts with a target tile (or, in LavaGap, has crossed
the gap). So the mask never covers the frame of the first interaction (gate D5) and stays within
the card's frame budget (gate N1). A group whose t* is 0 gets an empty mask and is rejected.
"""

from __future__ import annotations

from gridwm_judge.worlds.minigrid.grid import DIRS, find, locked_door

_INTERACT = ("pickup", "drop", "open", "unlock", "close", "reach_goal", "enter_lava", "choose")


def key_cells(u) -> list[tuple[int, int]]:
    return find(u, "key")


def matching_key_cells(u) -> list[tuple[int, int]]:
    """The key of the locked door's colour."""
    return find(u, "key", locked_door(u)[1])


def red_door_cells(u) -> list[tuple[int, int]]:
    return find(u, "door", "red")


def lava_cells(u) -> list[tuple[int, int]]:
    return find(u, "lava")


def memory_cue_cells(u) -> list[tuple[int, int]]:
    """The cue object at the start of the hallway."""
    return [(1, u.grid.height // 2 - 1)]


def goal_room_cells(u) -> list[tuple[int, int]]:
    """The last room's entry door and the goal."""
    return [tuple(u.rooms[-1].entryDoorPos)] + find(u, "goal")


def target_specs(u, cells) -> tuple[dict, ...]:
    """The objects at ``cells`` of the reset env ``u`` whose evidence NoCue hides, as
    {"type", "color", "pos"} at t = 0."""

    def spec(pos):
        o = u.grid.get(*pos)
        return {"type": o.type, "color": o.color, "pos": [int(pos[0]), int(pos[1])]}

    return tuple(spec(p) for p in cells)


def tiles_at(state: dict, specs) -> list[list[int]]:
    """Target tiles present in ``state`` (spec type/colour still at its t = 0 cell)."""
    here = {tuple(o["pos"]): (o["type"], o["color"]) for o in state["objects"]}
    return sorted(([*s["pos"]] for s in specs
                   if here.get(tuple(s["pos"])) == (s["type"], s["color"])),
                  key=lambda p: (p[1], p[0]))


def touches(state: dict, cells: set) -> bool:
    """The agent stands on or faces one of ``cells`` in this state."""
    x, y = state["agent_pos"]
    dx, dy = DIRS[state["agent_dir"]]
    return (x, y) in cells or (x + dx, y + dy) in cells


def first_interaction(states, events, specs) -> int:
    """t*: first frame where the agent faces / stands on / acts on a target tile."""
    cells = {tuple(s["pos"]) for s in specs}
    t_star = len(states)
    for t, st in enumerate(states):
        if touches(st, cells):
            t_star = t
            break
    for ev in events:
        at_target = ev["pos"] is not None and tuple(ev["pos"]) in cells
        if ev["type"] == "cross_gap" or (ev["type"] in _INTERACT and at_target):
            t_star = min(t_star, ev["t"])
    return t_star


def build_mask(states, events, specs, budget: int) -> tuple[dict, ...]:
    """Per-frame mask spec ({"t", "tiles"}) for the frames before t*, at most ``budget``."""
    if not specs:
        return ()
    t_star = first_interaction(states, events, specs)
    out = []
    for t in range(min(budget, t_star)):
        tiles = tiles_at(states[t], specs)
        if tiles:
            out.append({"t": t, "tiles": tiles})
    return tuple(out)

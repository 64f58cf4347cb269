"""Event extraction from a state sequence (the simulator's own account of what happened).

Each event is ``{"t", "type", "obj", "pos"}``; ``t`` is the index of the first state in
which it holds. Types:

- ``see``: a non-goal, non-wall object first inside the agent's egocentric view (may be t=0);
  once per (type, color, cell), never again for an object after it was picked up; lava is
  reported once, for the first lava tile seen.
- ``goal_visible``: the goal tile first in view.
- ``pickup`` / ``drop``: the carried object changes; ``pos`` is the cell it left / landed on.
- ``unlock`` (locked -> open), ``open`` (closed -> open), ``close`` (open -> closed): doors.
- ``cross_gap``: LavaGap, the agent first stands right of the lava column (``pos`` = gap).
- ``enter_lava``: the agent stands on lava.
- ``reach_goal``: the agent stands on the goal tile.
- ``choose``: Memory, the agent reaches ``success_pos`` or ``failure_pos``; ``obj`` is the end
  object beside it and ``outcome`` is "success" or "failure".
- ``terminal``: the last state.
"""

from __future__ import annotations

from collections.abc import Sequence

_ORDER = ("see", "goal_visible", "pickup", "drop", "unlock", "open", "close", "cross_gap",
          "enter_lava", "reach_goal", "choose", "terminal")


def _ident(o: dict | None) -> dict | None:
    return None if o is None else {"type": o["type"], "color": o["color"]}


def _by_pos(state: dict) -> dict[tuple[int, int], dict]:
    return {tuple(o["pos"]): o for o in state["objects"]}


def _choose_event(t: int, state: dict, ctx: dict) -> dict | None:
    pos = state["agent_pos"]
    for key, outcome in (("success_pos", "success"), ("failure_pos", "failure")):
        if ctx.get(key) == pos:
            cells = _by_pos(state)
            near = [cells.get((pos[0], pos[1] + d)) for d in (-1, 1)]
            obj = next((o for o in near if o and o["type"] in ("key", "ball")), None)
            return {"t": t, "type": "choose", "obj": _ident(obj), "pos": list(pos),
                    "outcome": outcome}
    return None


def extract_events(states: Sequence[dict], visible: Sequence[frozenset],
                   ctx: dict) -> tuple[dict, ...]:
    """Events of a rollout, ordered by (t, type order)."""
    events: list[dict] = []
    seen: set[tuple] = set()
    picked: set[tuple[str, str]] = set()
    lava_seen = crossed = on_goal = chose = False
    gap = ctx.get("gap_pos")
    for t, state in enumerate(states):
        cells = _by_pos(state)
        for pos in sorted(visible[t], key=lambda p: (p[1], p[0])):
            o = cells.get(pos)
            if o is None or o["type"] == "floor":
                continue
            if o["type"] == "lava":
                if not lava_seen:
                    lava_seen = True
                    events.append({"t": t, "type": "see", "obj": _ident(o), "pos": list(pos)})
                continue
            key = (o["type"], o["color"], pos)
            if key in seen or key[:2] in picked:
                continue
            seen.add(key)
            kind = "goal_visible" if o["type"] == "goal" else "see"
            events.append({"t": t, "type": kind, "obj": _ident(o), "pos": list(pos)})
        if t > 0:
            prev = states[t - 1]
            pc, cc = prev["carrying"], state["carrying"]
            if pc is None and cc is not None:
                src = [p for p, o in _by_pos(prev).items() if p not in cells
                       and o["type"] == cc["type"] and o["color"] == cc["color"]]
                picked.add((cc["type"], cc["color"]))
                events.append({"t": t, "type": "pickup", "obj": _ident(cc),
                               "pos": list(src[0]) if src else None})
            elif pc is not None and cc is None:
                prev_cells = _by_pos(prev)
                dst = [p for p, o in cells.items() if p not in prev_cells
                       and o["type"] == pc["type"] and o["color"] == pc["color"]]
                events.append({"t": t, "type": "drop", "obj": _ident(pc),
                               "pos": list(dst[0]) if dst else None})
            for pos, o in cells.items():
                if o["type"] != "door":
                    continue
                before = _by_pos(prev).get(pos)
                if before is None or before["type"] != "door" or before["state"] == o["state"]:
                    continue
                kind = {("locked", "open"): "unlock", ("closed", "open"): "open",
                        ("open", "closed"): "close"}.get((before["state"], o["state"]))
                if kind:
                    events.append({"t": t, "type": kind, "obj": _ident(o), "pos": list(pos)})
        ap = tuple(state["agent_pos"])
        under = cells.get(ap)
        if gap is not None and not crossed and ap[0] > gap[0]:
            crossed = True
            events.append({"t": t, "type": "cross_gap", "obj": None, "pos": list(gap)})
        if under is not None and under["type"] == "lava":
            events.append({"t": t, "type": "enter_lava", "obj": _ident(under), "pos": list(ap)})
        if under is not None and under["type"] == "goal" and not on_goal:
            on_goal = True
            events.append({"t": t, "type": "reach_goal", "obj": _ident(under), "pos": list(ap)})
        if not chose and "success_pos" in ctx:
            ev = _choose_event(t, state, ctx)
            if ev is not None:
                chose = True
                events.append(ev)
    last = len(states) - 1
    events.append({"t": last, "type": "terminal", "obj": None,
                   "pos": list(states[last]["agent_pos"])})
    events.sort(key=lambda e: (e["t"], _ORDER.index(e["type"])))
    return tuple(events)

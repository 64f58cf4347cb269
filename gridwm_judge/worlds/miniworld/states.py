"""JSON-safe snapshots of a MiniWorld env and the events read off a sequence of them.

State dict (one per frame)::

    {"agent": {"pos": [x, y, z], "dir": radians}, "carrying": entity index | None,
     "entities": [{"kind", "color", "pos": [x, y, z], "dir", "radius"}, ...]}

``entities`` is aligned with ``env.unwrapped.entities`` right after reset (the agent's own
entry has kind "agent"), so an entity index means the same thing in states, events and
interventions. Numbers are plain Python floats (exact under a JSON round trip).

Event dict: ``{"t", "type", "entity", "role", "obj", "pos"}``; ``t`` is the first state in
which the event holds, ``obj`` is ``{"type", "color"}`` of the entity (None for terminal) and
``pos`` its [x, y, z] in that state (the keys the world seam's consumers read). Types: see
(the NoCue entity covers at least the card's ``see_area`` of the first-person frame, 0.5 %;
for Sign's cue, the first frame in which the sign's word is legible: ``legible.legible``),
approach (within ``APPROACH`` metres of
touching), pickup, drop, reach (MiniWorld's own ``near`` test between the agent and an
object), next_to (``near`` between the carried object, once dropped, and the target),
terminal.
"""

from __future__ import annotations

import math

APPROACH = 1.0        # metres beyond touching distance that count as approaching
MIN_AREA = 0.005      # share of the first-person frame a hidden entity must cover (N1)
_SIGN_COLORS = ("blue", "red", "green")   # Sign's colour_index order


def _kind(ent) -> str:
    name = type(ent).__name__
    return {"BigKey": "key", "TextFrame": "sign"}.get(name, name.lower())


def entity_colors(u) -> dict[int, str | None]:
    """Entity id -> colour name (Sign's keys carry their colour only in the env's table)."""
    colors = {id(e): getattr(e, "color", None) for e in u.entities}
    for pair in getattr(u, "_objects", ()):
        for ci, obj in enumerate(pair):
            colors[id(obj)] = _SIGN_COLORS[ci]
    return colors


def _vec(p) -> list[float]:
    return [float(p[0]), float(p[1]), float(p[2])]


def snapshot(u, colors: dict[int, str | None]) -> dict:
    idx = {id(e): i for i, e in enumerate(u.entities)}
    ents = []
    for e in u.entities:
        d = {"kind": _kind(e), "color": colors.get(id(e)), "pos": _vec(e.pos),
             "dir": float(e.dir), "radius": float(e.radius)}
        if d["kind"] == "sign":
            d["text"] = str(e.str)
        ents.append(d)
    carrying = u.agent.carrying
    return {"agent": {"pos": _vec(u.agent.pos), "dir": float(u.agent.dir)},
            "carrying": None if carrying is None else idx[id(carrying)],
            "entities": ents}


def _dist(a, b) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def near(a: dict, b: dict, max_forward_step: float) -> bool:
    """MiniWorld's ``near``: distance below the two radii plus 1.1 forward steps."""
    return _dist(a["pos"], b["pos"]) < a["radius"] + b["radius"] + 1.1 * max_forward_step


def agent_entry(state: dict) -> dict:
    return next(e for e in state["entities"] if e["kind"] == "agent")


def extract_events(states, roles: dict[str, int], max_forward_step: float,
                   see_t: int | None, nocue_role: str, terminated: bool) -> list[dict]:
    """Events in time order (ties by type) from the states and ``see_t``, the first frame in
    which the NoCue entity counts as seen (None: never)."""
    role_of = {i: r for r, i in roles.items()}
    out: list[dict] = []
    seen: set = set()

    def event(t, kind, i):
        e = None if i is None else states[t]["entities"][i]
        return {"t": t, "type": kind, "entity": i, "role": None if i is None else role_of.get(i),
                "obj": None if e is None else {"type": e["kind"], "color": e["color"]},
                "pos": None if e is None else list(e["pos"])}

    def add(t, kind, i):
        if (kind, i) not in seen:
            seen.add((kind, i))
            out.append(event(t, kind, i))

    if see_t is not None:
        add(see_t, "see", roles.get(nocue_role))
    prev_carry = None
    for t, s in enumerate(states):
        agent = agent_entry(s)
        for i, e in enumerate(s["entities"]):
            if e["kind"] in ("agent", "sign") or i == s["carrying"]:
                continue
            if _dist(agent["pos"], e["pos"]) < agent["radius"] + e["radius"] + APPROACH:
                add(t, "approach", i)
            if near(e, agent, max_forward_step):
                add(t, "reach", i)
        if s["carrying"] != prev_carry:
            if prev_carry is not None:
                out.append(event(t, "drop", prev_carry))
            if s["carrying"] is not None:
                out.append(event(t, "pickup", s["carrying"]))
            prev_carry = s["carrying"]
        if "carry" in roles and "target" in roles and s["carrying"] is None:
            if near(s["entities"][roles["carry"]], s["entities"][roles["target"]],
                    max_forward_step):
                add(t, "next_to", roles["target"])
    if terminated:
        out.append(event(len(states) - 1, "terminal", None))
    order = {"see": 0, "approach": 1, "pickup": 2, "reach": 3, "drop": 4, "next_to": 5,
             "terminal": 6}
    return sorted(out, key=lambda e: (e["t"], order[e["type"]], -1 if e["entity"] is None
                                      else e["entity"]))

"""The CF operation of each MiniWorld family and the CF1 check that it explains the failure.

The op is chosen from Full's rollout (so the moved entity lands where Full's walk never comes
near it) and applied right after reset; the action ids stay Full's.
"""

from __future__ import annotations

import math

from gridwm_judge.worlds.miniworld.cards import WorldCard
from gridwm_judge.worlds.miniworld.planner import is_free
from gridwm_judge.worlds.miniworld.states import APPROACH, agent_entry


class NoCounterfactual(RuntimeError):
    """No operation of the card's kind breaks the chain on this seed (the seed is rejected)."""


def _path(full, with_carried: bool) -> list[tuple[float, float]]:
    pts = [tuple(agent_entry(s)["pos"][::2]) for s in full.states]
    if with_carried:
        pts += [tuple(s["entities"][s["carrying"]]["pos"][::2]) for s in full.states
                if s["carrying"] is not None]
        pts += [tuple(e["pos"][::2]) for e in full.states[-1]["entities"] if e["kind"] == "box"]
    return pts


def _clearance(p, pts) -> float:
    import numpy as np

    d = np.asarray(pts, dtype=float) - np.asarray(p, dtype=float)
    return float(np.sqrt((d * d).sum(axis=1)).min())


def _farthest_free(u, ent, pts, exclude=()) -> tuple[float, float, float]:
    """The free floor point (0.25 m grid) farthest from ``pts``; (x, z, clearance)."""
    best = None
    pts = list(pts) + list(exclude)
    x = u.min_x
    while x <= u.max_x:
        z = u.min_z
        while z <= u.max_z:
            if is_free(u, x, z, ent.radius + 0.05, ignore=(ent,)) and math.hypot(
                    u.agent.pos[0] - x, u.agent.pos[2] - z) > ent.radius + u.agent.radius:
                c = _clearance((x, z), pts)
                if best is None or c > best[2] + 1e-9:
                    best = (round(x, 4), round(z, 4), c)
            z += 0.25
        x += 0.25
    if best is None:
        raise NoCounterfactual("no free floor point for the moved entity")
    return best


def cf_ops(card: WorldCard, u, roles: dict[str, int], full) -> list[dict]:
    """The intervention for this group; ``u`` is the freshly reset env."""
    agent_r = u.agent.radius
    if card.family == "tmaze":
        i = roles["target"]
        p = u.entities[i].pos
        return [{"op": "move_entity", "index": i, "pos": [float(p[0]), 0.0, float(-p[2])]}]
    if card.family in ("fourrooms", "putnext"):
        i = roles["target"]
        ent = u.entities[i]
        x, z, c = _farthest_free(u, ent, _path(full, card.family == "putnext"))
        if c < ent.radius + agent_r + APPROACH:
            raise NoCounterfactual(f"every free point is within {c:.2f} m of the path")
        return [{"op": "move_entity", "index": i, "pos": [float(x), 0.0, float(z)]}]
    if card.family == "sign":
        i = roles["target"]
        pts = _path(full, False)[:-1]
        shape = full.states[0]["entities"][i]["kind"]
        others = [(j, e) for j, e in enumerate(full.states[0]["entities"])
                  if e["kind"] == shape and j != i]
        j, e = max(others, key=lambda je: _clearance(tuple(je[1]["pos"][::2]), pts))
        near = e["radius"] + agent_r + 1.1 * u.max_forward_step
        if _clearance(tuple(e["pos"][::2]), pts) < near:
            raise NoCounterfactual("Full's walk passes every other object of the target's shape")
        return [{"op": "swap_entities", "a": i, "b": j}]
    raise ValueError(f"unknown MiniWorld family {card.family!r}")


def cf1_reason(card: WorldCard, roles: dict[str, int], full, cf) -> str | None:
    """None when the CF uses the card's op kinds and fails for the card's reason."""
    if not cf.intervention:
        return "no intervention"
    bad = [op["op"] for op in cf.intervention if op["op"] not in card.cf_ops]
    if bad:
        return f"op kinds {bad} not declared by the card ({', '.join(card.cf_ops)})"
    if cf.truncated:
        return "CF was truncated"
    target = roles["target"]
    ev = {(e["type"], e["entity"]) for e in cf.events}
    if card.family in ("tmaze", "fourrooms"):
        if cf.terminated or ("reach", target) in ev:
            return "the agent still reaches the moved box"
        return None
    if card.family == "putnext":
        if cf.terminated or ("next_to", target) in ev:
            return "the red box still ends next to the yellow one"
        if not any(e["type"] == "drop" for e in cf.events):
            return "the red box is never dropped"
        return None
    if card.family == "sign":
        if not cf.terminated or cf.reward >= 0:
            return f"CF did not end by touching a wrong object (reward {cf.reward:+.1f})"
        last = cf.states[-1]["entities"]
        touched = [e["entity"] for e in cf.events if e["type"] == "reach"
                   and e["t"] == len(cf.states) - 1]
        sign = next(e for e in last if e["kind"] == "sign")
        if not touched or any(last[k]["color"] == sign["text"].lower() for k in touched):
            return "the touched object's colour matches the sign"
        return None
    raise ValueError(f"unknown MiniWorld family {card.family!r}")

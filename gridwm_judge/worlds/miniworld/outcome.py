"""Gate V1: a variant's outcome can be seen in its last frame, the frame every storyboard shows.

A judge is graded against the simulator's outcome, so that outcome must be in the images. The
card names the entity roles each last frame must show (``full_shows``, ``cf_shows``); each must
cover at least ``OUTCOME_AREA`` of the first-person view at the storyboard size (``VIEW_SIZE``),
measured with ``render.entity_area`` (occlusion included) on a replay of the recorded actions.

PutNext is why this is a gate and not only a controller rule: its episode ends on the drop,
and MiniWorld drops the carried box where it was carried, 1.05 x (agent radius + box radius +
max forward step) straight ahead, onto the floor. From a camera 1.5 m high with pitch 0 and a
60 degree vertical field of view, a red box smaller than about 0.67 m then lies wholly below
the view and one under about 0.70 m shows as a band under 1 % of it, whatever path led there
(its size alone decides, and no action follows the drop): about half of the seeds the
controller solves. Such a seed is rejected under V1 with the areas measured.

Sign's outcome is the object its last step touches: the box or key of the sign's colour in
Full, the swapped-in object of the wrong colour in CF, which has no role, so the card names the
pseudo-role ``touched`` (the entities reached at the last frame). The controller takes that
step facing the object; a key touched from close by can still lie mostly below the view, and
such a seed is rejected.
"""

from __future__ import annotations

import numpy as np

from gridwm_judge.worlds.miniworld.backend import reset_env, without_observations
from gridwm_judge.worlds.miniworld.cards import WorldCard
from gridwm_judge.worlds.miniworld.render import VIEW_SIZE, entity_area

OUTCOME_AREA = 0.01
"""Share of the storyboard frame an outcome entity must cover: 1 %, about 190 pixels of a
160x120 frame. Twice the "see" threshold (``MIN_AREA``): a dropped PutNext box that lies mostly
below the view shows as a red band along the bottom edge, 1-3 pixels high (a line, not a box)
at 0.5-0.8 % and about 6 pixels high at 2 %."""

TOUCHED = "touched"
"""Pseudo-role of ``full_shows`` / ``cf_shows``: the entities the variant's last step reaches."""
_NAME = {"full": "Full", "cf": "CF"}


def last_touched(run) -> list[int]:
    """The entities ``run``'s last step reaches (its "reach" events at the last frame)."""
    last = len(run.states) - 1
    return sorted({int(e["entity"]) for e in run.events
                   if e["type"] == "reach" and e["t"] == last})


def role_entity(roles: dict[str, int], run, role: str) -> int | None:
    """Entity index of ``role`` in ``run``; for ``touched`` the one entity its last step
    reaches, None when it reaches none or several (the env then scores the last one it
    checks, which V1 cannot tell)."""
    if role != TOUCHED:
        return roles[role]
    hit = last_touched(run)
    return hit[0] if len(hit) == 1 else None


def last_frame_areas(card: WorldCard, env_kwargs: dict, seed: int, run,
                     indices, size: tuple[int, int] = VIEW_SIZE) -> dict[int, float]:
    """Entity index -> share of ``run``'s last first-person frame it covers, replayed from
    reset (intervention applied); RuntimeError if the replay misses the recorded last pose."""
    env, u = reset_env(card.env_id, env_kwargs, seed, run.intervention, card.settable_attrs,
                       card.step_limit)
    with without_observations(u):
        for a in run.actions[:len(run.states) - 1]:
            env.step(int(a))
    if not np.allclose(u.agent.pos, run.states[-1]["agent"]["pos"], atol=1e-9):
        raise RuntimeError(f"{card.family} seed {seed}: replay missed the recorded last pose")
    return {int(i): round(entity_area(u, int(i), size), 6) for i in indices}


def outcome_views(card: WorldCard, roles: dict[str, int], env_kwargs: dict, seed: int, full,
                  cf) -> dict[str, dict[str, float]]:
    """``{"full": {role: area}, "cf": {role: area}}`` for the roles the card's V1 checks."""
    out = {}
    for variant, run, shows in (("full", full, card.full_shows), ("cf", cf, card.cf_shows)):
        index = {r: role_entity(roles, run, r) for r in shows}
        wanted = [i for i in index.values() if i is not None]
        areas = last_frame_areas(card, env_kwargs, seed, run, wanted) if wanted else {}
        out[variant] = {r: areas[i] for r, i in index.items() if i is not None}
    return out


def v1_reason(card: WorldCard, roles: dict[str, int], full, cf, views) -> str | None:
    """None when every role the card names covers ``OUTCOME_AREA`` of its variant's last
    frame; otherwise which entity is (nearly) out of view and how much of it shows."""
    bad = []
    for variant, run, shows in (("full", full, card.full_shows), ("cf", cf, card.cf_shows)):
        for role in shows:
            area = views.get(variant, {}).get(role)
            hits = len(last_touched(run)) if role == TOUCHED else 1
            if hits != 1:
                bad.append(f"{_NAME[variant]}'s last step touches {hits} objects (one expected)")
            elif area is None:
                bad.append(f"{_NAME[variant]}: {role} not measured")
            elif area < OUTCOME_AREA:
                e = run.states[-1]["entities"][role_entity(roles, run, role)]
                bad.append(f"{_NAME[variant]}'s last frame shows the {e['color']} {e['kind']} "
                           f"({role}) on {area:.2%} of the view (< {OUTCOME_AREA:.0%})")
    return "; ".join(bad) or None

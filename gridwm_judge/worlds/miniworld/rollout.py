"""Replay an action sequence in a MiniWorld env and record states, events and outcome.

The same function produces Full, NoCue (a re-roll that must give Full's states exactly) and
CF (interventions applied right after reset). Success is MiniWorld's own signal: the episode
terminated, was not truncated and the last reward is positive.
"""

from __future__ import annotations

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.miniworld.backend import reset_env, without_observations
from gridwm_judge.worlds.miniworld.legible import legible
from gridwm_judge.worlds.miniworld.render import entity_area
from gridwm_judge.worlds.miniworld.states import (
    APPROACH,
    MIN_AREA,
    entity_colors,
    extract_events,
    snapshot,
)


def _cue_close(u, i: int) -> bool:
    e = u.entities[i]
    if e.is_static:
        return False
    d = ((e.pos[0] - u.agent.pos[0]) ** 2 + (e.pos[2] - u.agent.pos[2]) ** 2) ** 0.5
    return d < e.radius + u.agent.radius + APPROACH


def rollout(env_id: str, env_kwargs: dict, seed: int, actions, roles: dict[str, int],
            nocue_role: str, area_budget: int = 1, ops=(), settable=(),
            see_area: float = MIN_AREA, see_by: str = "area", step_limit: int | None = None):
    """(Rollout, areas): ``areas`` maps frame -> share of the first-person view the NoCue
    entity covers, measured from the start until ``area_budget`` frames show it or the agent
    approaches it (what the NoCue mask and the "see" event need, and no more); a frame counts
    towards the budget when the entity covers ``see_area`` (at least ``MIN_AREA``). With
    ``see_by="legible"`` (a sign) the "see" frame is the first one in which its word is
    legible, and areas are measured up to that frame whatever the budget."""
    if see_by not in ("area", "legible"):
        raise ValueError(f"unknown see_by {see_by!r}; expected 'area' or 'legible'")
    env, u = reset_env(env_id, env_kwargs, seed, ops, settable, step_limit)
    colors = entity_colors(u)
    cue = roles.get(nocue_role)
    areas: dict[int, float] = {}
    measuring = cue is not None and area_budget > 0
    see_t = None

    def measure(t):
        nonlocal measuring, see_t
        if not measuring or cue is None:
            return
        if _cue_close(u, cue):
            measuring = False
            return
        areas[t] = entity_area(u, cue)
        if see_by == "legible":
            if areas[t] >= MIN_AREA and legible(u, cue):
                see_t, measuring = t, False
            return
        if see_t is None and areas[t] >= max(see_area, MIN_AREA):
            see_t = t
        if sum(a >= max(see_area, MIN_AREA) for a in areas.values()) >= area_budget:
            measuring = False

    states = [snapshot(u, colors)]
    measure(0)
    reward, terminated, truncated, steps = 0.0, False, False, 0
    for a in actions:
        with without_observations(u):
            _, r, terminated, truncated, _ = env.step(int(a))
        reward, steps = float(r), steps + 1
        states.append(snapshot(u, colors))
        if terminated or truncated:
            break
        measure(steps)
    events = extract_events(states, roles, float(u.max_forward_step), see_t, nocue_role,
                            bool(terminated))
    run = Rollout(actions=tuple(int(a) for a in actions), states=tuple(states),
                  events=tuple(events), reward=reward, terminated=bool(terminated),
                  truncated=bool(truncated),
                  success=bool(terminated) and not truncated and reward > 0, steps=steps,
                  intervention=tuple(dict(op) for op in ops))
    return run, areas

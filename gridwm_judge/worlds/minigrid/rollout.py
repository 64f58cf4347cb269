"""Run an action list in the real MiniGrid env and record JSON-safe states and events.

The env is the single source of truth: states are read from it after reset (+ intervention)
and after every step; success is its own predicate (terminated with positive reward, not
truncated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.envs import make_env
from gridwm_judge.worlds.minigrid.events import extract_events
from gridwm_judge.worlds.minigrid.grid import door_state, objects
from gridwm_judge.worlds.minigrid.interventions import apply_intervention


def snapshot(env) -> dict:
    """JSON-safe symbolic state of the unwrapped env (see ``records`` for the layout)."""
    cells = [{"type": obj.type, "color": obj.color, "state": door_state(obj), "pos": [x, y]}
             for (x, y), obj in objects(env.grid) if obj.type != "wall"]
    carrying = env.carrying
    return {
        "agent_pos": [int(env.agent_pos[0]), int(env.agent_pos[1])],
        "agent_dir": int(env.agent_dir),
        "carrying": None if carrying is None else {"type": carrying.type, "color": carrying.color},
        "objects": cells,
    }


def visible_cells(env, obs) -> frozenset[tuple[int, int]]:
    """Grid cells the agent sees in its egocentric view (from the observation's unseen mask)."""
    image = obs["image"]
    out = []
    for (x, y), obj in objects(env.grid):
        if obj.type == "wall":
            continue
        rc = env.relative_coords(x, y)
        if rc is not None and image[rc[0], rc[1], 0] != 0:
            out.append((x, y))
    return frozenset(out)


def env_context(env) -> dict:
    """Outcome-relevant env attributes outside the grid (read after reset + intervention)."""
    ctx: dict = {"width": env.grid.width, "height": env.grid.height}
    for attr in ("success_pos", "failure_pos", "gap_pos"):
        if hasattr(env, attr):
            v = getattr(env, attr)
            ctx[attr] = [int(v[0]), int(v[1])]
    return ctx


def _play(step: Callable, actions: Sequence[int],
          record: Callable[[dict], None]) -> tuple[float, bool, bool, int]:
    """Step ``actions`` until the episode ends, ``record(obs)`` after each step; returns
    (last reward, terminated, truncated, steps taken)."""
    reward, terminated, truncated, steps = 0.0, False, False, 0
    for a in actions:
        obs, r, terminated, truncated, _ = step(int(a))
        steps += 1
        reward = float(r)
        record(obs)
        if terminated or truncated:
            break
    return reward, bool(terminated), bool(truncated), steps


def _recorded(actions: Sequence[int], states: list[dict], events: tuple[dict, ...],
              outcome: tuple[float, bool, bool, int], intervention: Sequence[dict],
              mask: Sequence[dict]) -> Rollout:
    """The ``Rollout`` of a run that ended with ``outcome`` (see ``_play``); success is the
    env's own predicate: terminated with a positive reward, not truncated."""
    reward, terminated, truncated, steps = outcome
    return Rollout(
        actions=tuple(int(a) for a in actions),
        states=tuple(states),
        events=events,
        reward=reward,
        terminated=terminated,
        truncated=truncated,
        success=bool(terminated and not truncated and reward > 0),
        steps=steps,
        mask=tuple(mask),
        intervention=tuple(intervention),
    )


def rollout(env_id: str, seed: int, actions: Sequence[int],
            intervention: Sequence[dict] = (), mask: Sequence[dict] = ()) -> Rollout:
    """A recorded ``Rollout`` of ``actions``: reset(seed), apply the intervention (if any),
    step every action until the episode ends; events are read from states and observations."""
    env = make_env(env_id)
    obs, _ = env.reset(seed=int(seed))
    u = env.unwrapped
    if intervention:
        apply_intervention(u, intervention)
        obs = u.gen_obs()
    states, visible = [snapshot(u)], [visible_cells(u, obs)]
    context = env_context(u)

    def record(obs) -> None:
        states.append(snapshot(u))
        visible.append(visible_cells(u, obs))

    outcome = _play(env.step, actions, record)
    events = extract_events(tuple(states), tuple(visible), context)
    return _recorded(actions, states, events, outcome, intervention, mask)


def reroll(env_id: str, seed: int, actions: Sequence[int],
           intervention: Sequence[dict] = (), mask: Sequence[dict] = ()) -> Rollout:
    """Re-roll for the states and outcome only: no observations, hence no events (``()``)."""
    u = make_env(env_id, role="dynamics").unwrapped
    u.reset(seed=int(seed))
    apply_intervention(u, intervention)
    states = [snapshot(u)]
    outcome = _play(u.step, actions, lambda _obs: states.append(snapshot(u)))
    return _recorded(actions, states, (), outcome, intervention, mask)

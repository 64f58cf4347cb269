"""MiniGrid env instances: one cached instance per (env id, role) and process.

Roles: "main" (rollouts with observations), "inspect" (read the reset grid, never stepped),
"dynamics" (stepped through ``env.unwrapped`` without observations, for planning and state
re-rolls). Every env id is checked against the cards first, so a typo lists the valid ids.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import gymnasium as gym
import minigrid  # noqa: F401  (registers the MiniGrid env ids)

from gridwm_judge.worlds.minigrid.cards import check_env_id

ROLES = ("main", "inspect", "dynamics")


@cache
def _cached_env(env_id: str, role: str) -> Any:
    env: Any = gym.make(env_id)
    if role == "dynamics":
        # This private instance is only stepped for its dynamics (planning, state re-rolls):
        # skip MiniGrid's egocentric observation rendering, the bulk of a step's cost.
        env.unwrapped.gen_obs = lambda: None
    return env


def make_env(env_id: str, *, fresh: bool = False, role: str = "main") -> Any:
    """A gymnasium env for ``env_id``, cached per process and role unless ``fresh``; typed Any:
    MiniGrid's attributes (``grid``, ``agent_pos``, ``gen_obs`` ...) are read through it."""
    check_env_id(env_id)
    if role not in ROLES:
        raise ValueError(f"unknown env role {role!r}; expected one of {ROLES}")
    return gym.make(env_id) if fresh else _cached_env(env_id, role)

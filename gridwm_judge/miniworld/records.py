"""The MiniWorld trajectory group record: MiniGrid's TrajectoryGroup shape plus the world.

The JSON line has the same keys as MiniGrid's audit record (group_id, family, env_id, seed,
mission, plan, actions, action_names, first_pickup, variants {full, nocue, cf}, validators)
plus ``"world": "miniworld"``, ``env_kwargs`` (constructor arguments, e.g. Sign's colour and
goal), ``roles`` (entity role -> index after reset) and, only where the family raises the
env's own step limit (Sign), ``max_episode_steps``: set ``env.unwrapped.max_episode_steps`` to
it before the first reset. Variants are the shared
``sim.records.Rollout``; a NoCue mask entry is ``{"t", "entity", "area"}`` and a CF
intervention is the op list of ``miniworld.interventions``. Replayable with plain miniworld.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridwm_judge.sim.records import (
    Rollout,
    gates_passed,
    trajectory_record,
    variants_from_record,
)

WORLD = "miniworld"
# MiniWorldEnv.Actions, in id order (miniworld 2.1); Sign's id 3 is its own "end episode".
ACTION_NAMES: tuple[str, ...] = ("turn_left", "turn_right", "move_forward", "move_back",
                                 "pickup", "drop", "toggle", "done")


@dataclass(frozen=True)
class MiniWorldGroup:
    """Full / NoCue / CF rollouts of one (env id, seed) under the same action ids."""

    group_id: str
    family: str
    env_id: str
    seed: int
    mission: str
    actions: tuple[int, ...]
    full: Rollout
    nocue: Rollout
    cf: Rollout
    env_kwargs: dict = field(default_factory=dict)
    roles: dict = field(default_factory=dict)
    validators: dict[str, bool] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    world: str = WORLD
    plan: str = "controller"
    max_episode_steps: int | None = None   # None: the env's own limit

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(ACTION_NAMES[a] for a in self.actions)

    @property
    def first_pickup(self) -> dict | None:
        e = next((e for e in self.full.events if e["type"] == "pickup"), None)
        if e is None:
            return None
        ent = self.full.states[0]["entities"][e["entity"]]
        return {"type": ent["kind"], "color": ent["color"]}

    @property
    def valid(self) -> bool:
        return gates_passed(self.validators)

    def to_record(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "group_id": self.group_id,
            "family": self.family,
            "env_id": self.env_id,
            "env_kwargs": dict(self.env_kwargs),
            **({} if self.max_episode_steps is None
               else {"max_episode_steps": int(self.max_episode_steps)}),
            "seed": self.seed,
            "mission": self.mission,
            "plan": self.plan,
            "roles": dict(self.roles),
            **trajectory_record(self),
        }

    @classmethod
    def from_record(cls, d: dict) -> MiniWorldGroup:
        if d.get("world") != WORLD:
            raise ValueError(f"record {d.get('group_id')!r} is not a MiniWorld group "
                             f"(world={d.get('world')!r})")
        actions = tuple(int(a) for a in d["actions"])
        return cls(
            group_id=d["group_id"], family=d["family"], env_id=d["env_id"],
            seed=int(d["seed"]), mission=d["mission"], actions=actions,
            **variants_from_record(d["variants"], actions),
            env_kwargs=dict(d.get("env_kwargs", {})), roles=dict(d.get("roles", {})),
            validators=dict(d.get("validators", {})), plan=d.get("plan", "controller"),
            max_episode_steps=d.get("max_episode_steps"),
        )

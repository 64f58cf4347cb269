"""The MiniWorld trajectory group record: MiniGrid's TrajectoryGroup shape plus the world.

The JSON line has the same keys as MiniGrid's audit record (group_id, family, env_id, seed,
mission, plan, actions, action_names, first_pickup, variants {full, nocue, cf}, validators)
plus ``"world": "miniworld"``, ``env_kwargs`` (constructor arguments, e.g. Sign's colour and
goal), ``roles`` (entity role -> index after reset) and, only where the family raises the
env's own step limit (Sign), ``max_episode_steps``: set ``env.unwrapped.max_episode_steps`` to
it before the first reset. Variants are the shared
``worlds.core.records.Rollout``; a NoCue mask entry is ``{"t", "entity", "area"}`` and a CF
intervention is the op list of ``worlds.miniworld.interventions``. Replayable with plain miniworld.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridwm_judge.worlds.core.records import AuditedGroup

WORLD = "miniworld"
# MiniWorldEnv.Actions, in id order (miniworld 2.1); Sign's id 3 is its own "end episode".
ACTION_NAMES: tuple[str, ...] = ("turn_left", "turn_right", "move_forward", "move_back",
                                 "pickup", "drop", "toggle", "done")


@dataclass(frozen=True)
class MiniWorldGroup(AuditedGroup):
    """A MiniWorld group: the shared group fields plus the env's constructor arguments and the
    entity roles."""

    ACTION_NAMES = ACTION_NAMES
    RECORD_HEAD = ("world", "group_id", "family", "env_id", "env_kwargs", "seed", "mission",
                   "plan", "roles")
    env_kwargs: dict = field(default_factory=dict)
    roles: dict = field(default_factory=dict)
    world: str = WORLD
    plan: str = "controller"
    max_episode_steps: int | None = None   # None: the env's own limit

    def pickup_record(self) -> dict | None:
        e = next((e for e in self.full.events if e["type"] == "pickup"), None)
        if e is None:
            return None
        ent = self.full.states[0]["entities"][e["entity"]]
        return {"type": ent["kind"], "color": ent["color"]}

    def to_record(self) -> dict[str, Any]:
        """The shared record, with Sign's raised step limit after the constructor arguments
        (a replay must set it on the env before reset; absent when the env's own applies)."""
        rec = super().to_record()
        if self.max_episode_steps is None:
            return rec
        out: dict[str, Any] = {}
        for k, v in rec.items():
            out[k] = v
            if k == "env_kwargs":
                out["max_episode_steps"] = int(self.max_episode_steps)
        return out

    @classmethod
    def from_record(cls, d: dict) -> MiniWorldGroup:
        if d.get("world") != WORLD:
            raise ValueError(f"record {d.get('group_id')!r} is not a MiniWorld group "
                             f"(world={d.get('world')!r})")
        return cls(**cls.shared_from_record(d), env_kwargs=dict(d.get("env_kwargs", {})),
                   roles=dict(d.get("roles", {})), plan=d.get("plan", "controller"),
                   max_episode_steps=d.get("max_episode_steps"))

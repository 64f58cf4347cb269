"""MiniGrid's group record and the state / event dicts its rollouts hold.

State dict (one per frame)::

    {"agent_pos": [x, y], "agent_dir": 0..3, "carrying": None | {"type", "color"},
     "objects": [{"type", "color", "state", "pos": [x, y]}, ...]}

``objects`` lists every non-wall object sorted by (y, x); ``state`` is "open" / "closed" /
"locked" for doors and None otherwise. Coordinates are (column, row) of the full grid
including the outer wall.

Event dict: ``{"t", "type", "obj": {"type", "color"} | None, "pos": [x, y] | None}`` where
``t`` is the index of the first state in which the event holds (an action's effect shows in
state ``action index + 1``). Types (see ``gridwm_judge.worlds.minigrid.events``): see,
goal_visible, pickup, drop, open, unlock, close, cross_gap, enter_lava, reach_goal, choose,
terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from minigrid.core.actions import Actions

from gridwm_judge.worlds.core.records import AuditedGroup

ACTION_NAMES: tuple[str, ...] = tuple(a.name for a in Actions)


@dataclass(frozen=True)
class TrajectoryGroup(AuditedGroup):
    """A MiniGrid group; satisfies ``gridwm_judge.world.Group`` (what render and tasks read)."""

    ACTION_NAMES = ACTION_NAMES
    RECORD_HEAD = ("group_id", "family", "env_id", "seed", "mission", "plan")
    plan: str = "direct"
    first_pickup: dict | None = None

    @property
    def world(self) -> str:
        return "minigrid"

    def pickup_record(self) -> dict | None:
        return self.first_pickup

    @classmethod
    def from_record(cls, d: dict) -> TrajectoryGroup:
        return cls(**cls.shared_from_record(d), plan=d.get("plan", "direct"),
                   first_pickup=d.get("first_pickup"))

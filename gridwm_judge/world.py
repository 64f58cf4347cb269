"""The world seam: what render and tasks need from a simulated world and its trajectory groups.

A *world* is a simulator plus its renderer (MiniGrid in ``worlds/minigrid/``; MiniWorld in
``worlds/miniworld/``). The pipeline after the simulator (keyframes, storyboards, the task row
builders) never asks which world it is handling: it reads a trajectory group through the three
protocols below, and gets pictures from the ``World`` object it was given. A second world plugs in
by providing:

1. a group record that satisfies ``Group`` (MiniGrid's:
   ``worlds.minigrid.records.TrajectoryGroup``), whose variants satisfy ``Rollout`` (every
   world's: ``worlds.core.records.Rollout``);
2. one ``World`` object (MiniGrid's: ``render.frames.MINIGRID``), passed as ``world=`` to the
   row builders of the configs it serves;
3. its name in ``task_table.WORLDS`` and as ``world=`` of its configs' task-table entries (what
   scoring, reports and the card read to keep its tasks apart from other worlds').

Nothing here imports a simulator, so a world package can import this module cheaply.

Who reads groups through the seam today: ``render.keyframes.keyframes``, ``tasks.rows``,
``tasks.task_c.Storyboards`` and the ``build_rows`` of Tasks A, C, D and E (each takes
``world=``, default MiniGrid; Task C also ``families=``). MiniGrid-only by nature: Task B (its
gold is read from the live MiniGrid env), ``render.masks`` (the pixel audit of MiniGrid's
NoCue tiles) and ``render.frames.render_frames`` / ``crop_box`` (MiniGrid's renderer behind
``MINIGRID.frames``). Replay is not a member: no world-neutral consumer replays a group; each
world replays its own records behind ``frames`` (MiniGrid: ``worlds.minigrid.replay_envs``).

Contracts a newcomer must keep (the consumers rely on them, not on the member types alone):

- **Variants.** A group holds three rollouts of the same action ids: ``full`` (succeeds),
  ``nocue`` (Full's actions, states and outcome, with early evidence hidden when rendered) and
  ``cf`` (a declared intervention applied before the rollout, so it fails). A CF may stop
  early: it then has fewer states than ``len(actions) + 1``.
- **States** are JSON-safe dicts, one per frame (index 0 = after reset). Consumers only count
  them and compare two of them for equality (an unchanged state is a no-op transition); their
  keys are the world's own business.
- **Events** are JSON-safe dicts with at least ``"t"`` (index of the first state in which the
  event holds) and ``"type"``; ``"obj"`` (``{"type", "color"}`` or None) and ``"pos"`` where
  they apply. Keyframes anchor on the types of ``render.keyframes.EVENT_TIERS`` (pickup, drop,
  open, reach_goal, terminal, ...); Task E reads ``pickup`` / ``drop`` of ``obj``. A world that
  reuses these type names gets event-anchored storyboards for free.
- **Frames** (``World.frames``): one RGB uint8 array (H, W, 3) per state of the variant, in
  order, the same size for every variant of a group (so Full / NoCue / CF stay pixel-aligned),
  NoCue's mask already painted in, read-only (they may be shared through a cache).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from gridwm_judge.schema import VARIANTS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["VARIANTS", "Group", "Rollout", "World", "check_world", "checked_groups", "rollout_of"]


@runtime_checkable
class Rollout(Protocol):
    """One variant of a group: its recorded states and events, outcome and audit specs."""

    @property
    def states(self) -> Sequence[Mapping[str, Any]]:
        """One JSON-safe state per frame; index 0 is the state after reset (+ intervention)."""
        ...

    @property
    def events(self) -> Sequence[Mapping[str, Any]]:
        """The simulator's events, ``{"t", "type", ...}``, ordered by ``t``."""
        ...

    @property
    def success(self) -> bool:
        """The world's own success predicate for this rollout (the row's label)."""
        ...

    @property
    def intervention(self) -> Sequence[Mapping[str, Any]]:
        """CF only: the ops applied right after reset (empty for Full and NoCue)."""
        ...

    @property
    def mask(self) -> Sequence[Mapping[str, Any]]:
        """NoCue only: what is hidden in which frame (empty for Full and CF)."""
        ...


@runtime_checkable
class Group(Protocol):
    """A trajectory group: Full / NoCue / CF rollouts of one (env id, seed), same action ids."""

    @property
    def world(self) -> str:
        """Name of the world that made it (must equal the ``World.name`` that renders it)."""
        ...

    @property
    def group_id(self) -> str:
        """Stable id; confidence intervals resample groups."""
        ...

    @property
    def family(self) -> str:
        """Env family (e.g. "doorkey"); a world's families are its own."""
        ...

    @property
    def env_id(self) -> str:
        """Registered env id the group was generated in."""
        ...

    @property
    def seed(self) -> int:
        """``env.reset`` seed of the group."""
        ...

    @property
    def mission(self) -> str:
        """The mission text shown to the judge."""
        ...

    @property
    def action_names(self) -> Sequence[str]:
        """Name of each action the agent takes, in order (shared by the three variants)."""
        ...

    @property
    def validators(self) -> Mapping[str, bool]:
        """Gate name -> passed (an audit column of every row)."""
        ...

    @property
    def full(self) -> Rollout: ...

    @property
    def nocue(self) -> Rollout: ...

    @property
    def cf(self) -> Rollout: ...


@runtime_checkable
class World(Protocol):
    """What a world gives the consumers besides its groups: its name, actions and pictures."""

    @property
    def name(self) -> str:
        """One of ``task_table.WORLDS``, e.g. "minigrid"; checked against ``Group.world``."""
        ...

    @property
    def action_names(self) -> Sequence[str]:
        """Every action of the world's action space (Task A draws a wrong action from it)."""
        ...

    def frames(self, group: Group, variant: str) -> Sequence[np.ndarray]:
        """The model-facing frame of every state of ``variant`` (see the module doc)."""
        ...


def rollout_of(group: Group, variant: str) -> Rollout:
    """The ``Rollout`` of ``variant`` ("full", "nocue" or "cf"); unknown names list the valid."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return getattr(group, variant)


def check_world(group: Group, world: World) -> None:
    """Raise a ValueError unless ``group`` was made by ``world`` (its frames would be wrong)."""
    if group.world != world.name:
        raise ValueError(f"group {group.group_id} is a {group.world!r} group; it cannot be "
                         f"rendered by the {world.name!r} world")


G = TypeVar("G", bound=Group)


def checked_groups(groups: Iterable[G], world: World, task: str) -> list[G]:
    """``groups`` as a list, each made by ``world``; no group at all is a ValueError naming
    ``task`` (e.g. "Task B")."""
    groups = list(groups)
    if not groups:
        raise ValueError(f"{task} needs at least one trajectory group")
    for g in groups:
        check_world(g, world)
    return groups

"""Frames of a trajectory group's variants, replayed in real MiniGrid and rendered once.

``render_frames(group, "nocue")`` draws NoCue's marks in the NoCue style given
(``render.nocue_style``: ``clean`` erases a key / ball / box / goal and balances the grey square
on a door / wall / lava with the same squares in Full and CF; ``occlude`` is the paper's grey
square on NoCue only); ``"cf"`` replays under the group's intervention. Frames are cached per
(group, variant, tile size, crop) in an LRU bounded by ``CACHE_BYTES`` and returned read-only,
so tasks that reuse a group (Task C's presentations, Task A's negatives) render each state once.

By default frames are cropped to ``crop_box(group)`` (the same window for every variant, so
Full/NoCue/CF frames stay pixel-aligned): MultiRoom's 25x25 grid is mostly empty void, and
the full grid would shrink its rooms to a corner of each storyboard panel. Task B, whose
coordinates count from the full grid's top-left, paints full frames with ``GridPainter``.

``MINIGRID`` is MiniGrid's plain ``gridwm_judge.world.World`` (the simulator's frames, no
NoCue mark in any variant; it refuses NoCue): what the configs without NoCue rows (A, B, E)
are given. ``minigrid_world(style)`` is the world of the configs with NoCue rows.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from gridwm_judge.render.nocue_style import (
    DEFAULT_NOCUE_STYLE,
    check_style,
    marks_by_frame,
    variant_marks,
)
from gridwm_judge.render.painter import GridPainter, tile_size_for
from gridwm_judge.world import VARIANTS, Group, check_world, rollout_of
from gridwm_judge.worlds.minigrid.grid import objects
from gridwm_judge.worlds.minigrid.interventions import replay_envs
from gridwm_judge.worlds.minigrid.records import ACTION_NAMES, TrajectoryGroup

CACHE_BYTES = 64 * 2**20
"""Frames kept in the per-process LRU (bytes); the oldest groups are dropped beyond it.
Reuse is within a config's shard (a group's variants, probes and layouts) or between
neighbouring configs: a one-process base build took as long with 64 MiB as with 256 and
peaked at 1.06 GiB instead of 1.27-1.30."""
_CACHE: OrderedDict[tuple, tuple[np.ndarray, ...]] = OrderedDict()
_cached_bytes = 0
_CROPS: dict[tuple, Crop] = {}


def mask_by_frame(rollout) -> dict[int, list[list[int]]]:
    """NoCue mask spec as {frame index: [[x, y], ...]}."""
    out: dict[int, list[list[int]]] = {}
    for entry in rollout.mask:
        out.setdefault(int(entry["t"]), []).extend([list(map(int, p)) for p in entry["tiles"]])
    return out


@dataclass(frozen=True)
class Crop:
    """Window of the grid (in tiles) that a group's frames show: columns x..x+width-1,
    rows y..y+height-1 of the full grid."""

    x: int
    y: int
    width: int
    height: int


def replay_key(group: Group, variant: str) -> tuple:
    """What ``variant``'s replay of ``group`` depends on: its env, seed, actions (by name: one
    name per action id) and intervention (the group id too, so two groups never share an
    entry)."""
    rollout = rollout_of(group, variant)
    return (group.group_id, group.env_id, int(group.seed), variant, tuple(group.action_names),
            json.dumps(list(rollout.intervention), sort_keys=True))


def crop_box(group: Group) -> Crop:
    """Bounding box of every cell that holds something (wall, door, object, lava, goal) or the
    agent in any state of any variant of ``group``.

    Outside its rooms MultiRoom's grid is empty void, not wall, so the drawn cells (which
    include the rooms' bounding walls) are what bounds the scene; an env walled at its border
    (DoorKey, LavaGap, ...) gives the full grid. No MiniGrid action adds or removes a wall, so
    each variant's grid after reset + intervention, plus the agent and object positions of its
    recorded states, covers every state. Computed once per group and process.
    """
    key = tuple(replay_key(group, v) for v in VARIANTS)
    if key not in _CROPS:
        _CROPS[key] = _crop_box(group)
    return _CROPS[key]


def _crop_box(group: Group) -> Crop:
    xs: list[int] = []
    ys: list[int] = []
    for variant in VARIANTS:
        rollout = rollout_of(group, variant)
        env = next(iter(replay_envs(group.env_id, group.seed, (), rollout.intervention)))
        for (x, y), _ in objects(env.grid):
            xs.append(x)
            ys.append(y)
        for state in rollout.states:
            for x, y in [state["agent_pos"], *(o["pos"] for o in state["objects"])]:
                xs.append(int(x))
                ys.append(int(y))
    return Crop(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


def render_frames(
    group: TrajectoryGroup,
    variant: str = "full",
    *,
    crop: bool = True,
    tile_size: int | None = None,
    show_carrying: bool = True,
    nocue_style: str | None = DEFAULT_NOCUE_STYLE,
) -> list[np.ndarray]:
    """One RGB uint8 frame (H, W, 3) per state of ``variant``, top-down.

    ``crop=True`` shows only ``crop_box(group)`` (tile size chosen for the cropped size);
    ``crop=False`` shows the full grid. The variant's NoCue marks are drawn in
    ``nocue_style`` (None: no mark in any variant, the simulator's own frames). Frames are
    read-only (shared through the cache).
    """
    global _cached_bytes
    rollout = rollout_of(group, variant)
    marks = marks_by_frame(variant_marks(group, variant, nocue_style))
    key = (
        *replay_key(group, variant),
        repr(sorted(marks.items())),
        tile_size,
        show_carrying,
        crop,
    )
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return list(hit)
    box = crop_box(group) if crop else None
    painter: GridPainter | None = None
    window: tuple[slice, slice] | None = None  # the box's pixels, known with the first state
    frames: list[np.ndarray] = []
    for t, env in enumerate(
        replay_envs(group.env_id, group.seed, group.actions, rollout.intervention)
    ):
        if painter is None or window is None:
            if box is None:
                box = Crop(0, 0, env.grid.width, env.grid.height)
            size = tile_size or tile_size_for(box.width, box.height)
            painter = GridPainter(size, show_carrying=show_carrying)
            window = (slice(box.y * size, (box.y + box.height) * size),
                      slice(box.x * size, (box.x + box.width) * size))
        # A copy, not a view: the cache then holds (and counts) only the cropped pixels.
        mark = marks.get(t)
        frame = painter.paint(env, mark.occlude if mark else (),
                              mark.erase if mark else ())[window].copy()
        frame.setflags(write=False)
        frames.append(frame)
    if len(frames) != len(rollout.states):
        raise RuntimeError(
            f"{group.group_id}/{variant}: replay gave {len(frames)} frames but the rollout "
            f"records {len(rollout.states)} states"
        )
    _CACHE[key] = tuple(frames)
    _cached_bytes += _nbytes(frames)
    while len(_CACHE) > 1 and _cached_bytes > CACHE_BYTES:
        _cached_bytes -= _nbytes(_CACHE.popitem(last=False)[1])
    return frames


def _nbytes(frames) -> int:
    return sum(f.nbytes for f in frames)


@dataclass(frozen=True)
class MiniGridWorld:
    """MiniGrid as a ``gridwm_judge.world.World``: cropped top-down frames, MiniGrid's actions.

    ``nocue_style`` (``schema.NOCUE_STYLES``) is how its frames hide NoCue's evidence, and
    (``clean``) balance that mark in Full and CF; None draws no mark anywhere and refuses
    NoCue (for configs that show no NoCue row).
    """

    name: str = "minigrid"
    action_names: tuple[str, ...] = ACTION_NAMES
    nocue_style: str | None = None

    def frames(self, group: Group, variant: str) -> list[np.ndarray]:
        """``render_frames(group, variant, nocue_style=...)``: cropped, read-only."""
        check_world(group, self)
        if not isinstance(group, TrajectoryGroup):
            raise TypeError(f"{group.group_id}: the MiniGrid world renders TrajectoryGroup "
                            f"records, got a {type(group).__name__}")
        if variant == "nocue" and self.nocue_style is None:
            raise ValueError(f"{group.group_id}: this MiniGrid world draws no NoCue mark; "
                             "render NoCue with minigrid_world(style)")
        return render_frames(group, variant, nocue_style=self.nocue_style)


MINIGRID = MiniGridWorld()


def minigrid_world(nocue_style: str | None) -> MiniGridWorld:
    """MiniGrid's world drawing NoCue in ``nocue_style`` (None: ``MINIGRID``, no mark)."""
    if nocue_style is None:
        return MINIGRID
    return MiniGridWorld(nocue_style=check_style(nocue_style))

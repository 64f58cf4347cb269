"""Frames of a trajectory group's variants, replayed in real MiniGrid and rendered once.

``render_frames(group, "nocue")`` applies the NoCue mask (fog over the masked tiles of the
masked frames); ``"cf"`` replays under the group's intervention. Frames are cached per
(group, variant, tile size) in an LRU bounded by ``CACHE_BYTES`` and returned read-only, so
tasks that reuse a group (Task C's presentations, Task A's negatives) render each state once.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from gridwm_judge.render.painter import GridPainter, tile_size_for

VARIANTS = ("full", "nocue", "cf")
CACHE_BYTES = 256 * 2**20
"""Frames kept in the per-process LRU (bytes); the oldest groups are dropped beyond it."""
_CACHE: OrderedDict[tuple, tuple[np.ndarray, ...]] = OrderedDict()


def _replay_envs():
    from gridwm_judge.sim import replay_envs

    return replay_envs


def rollout_of(group, variant: str):
    """The ``Rollout`` of ``variant``; unknown names list the valid ones."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return getattr(group, variant)


def mask_by_frame(rollout) -> dict[int, list[list[int]]]:
    """NoCue mask spec as {frame index: [[x, y], ...]}."""
    out: dict[int, list[list[int]]] = {}
    for entry in rollout.mask:
        out.setdefault(int(entry["t"]), []).extend([list(map(int, p)) for p in entry["tiles"]])
    return out


def render_frames(
    group,
    variant: str = "full",
    *,
    tile_size: int | None = None,
    show_carrying: bool = True,
) -> list[np.ndarray]:
    """One RGB uint8 frame (H, W, 3) per state of ``variant``, full-grid top-down.

    NoCue frames have the mask applied. Frames are read-only (shared through the cache).
    """
    rollout = rollout_of(group, variant)
    key = (
        group.group_id,
        group.env_id,
        int(group.seed),
        variant,
        tuple(group.actions),
        json.dumps(list(rollout.intervention), sort_keys=True),
        json.dumps(list(rollout.mask), sort_keys=True) if variant == "nocue" else "",
        tile_size,
        show_carrying,
    )
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return list(hit)
    fog = mask_by_frame(rollout) if variant == "nocue" else {}
    painter = None
    frames: list[np.ndarray] = []
    for t, env in enumerate(
        _replay_envs()(group.env_id, group.seed, group.actions, rollout.intervention)
    ):
        if painter is None:
            size = tile_size or tile_size_for(env.grid.width, env.grid.height)
            painter = GridPainter(size, show_carrying=show_carrying)
        frame = painter.paint(env, fog.get(t, ()))
        frame.setflags(write=False)
        frames.append(frame)
    if len(frames) != len(rollout.states):
        raise RuntimeError(
            f"{group.group_id}/{variant}: replay gave {len(frames)} frames but the rollout "
            f"records {len(rollout.states)} states"
        )
    _CACHE[key] = tuple(frames)
    while len(_CACHE) > 1 and _cache_bytes() > CACHE_BYTES:
        _CACHE.popitem(last=False)
    return frames


def _cache_bytes() -> int:
    return sum(f.nbytes for frames in _CACHE.values() for f in frames)


def select(frames: Sequence[np.ndarray], indices: Sequence[int]) -> list[np.ndarray]:
    """Frames at ``indices`` (in the given order), with a clear error for a bad index."""
    n = len(frames)
    bad = [i for i in indices if not 0 <= i < n]
    if bad:
        raise IndexError(f"frame indices {bad} outside 0..{n - 1}")
    return [frames[i] for i in indices]

"""Pixel-level NoCue mask audit (gate N1 on the rendered frames).

The simulator checks N1 on tiles; this checks what the judge actually sees: in each masked
frame, the pixels the mask changed (NoCue frame vs the simulator's own Full frame, without any
balancing mark) must overlap the target's pixels with IoU >= 0.70, and the number of masked
frames must stay within the card's budget. The target's pixels are the whole tile where the
style covers it with the grey square, and the object's own pixels (where its tile differs from
the empty floor tile) where the style erases it, so an erased object is measured against what
it drew, not against the floor around it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gridwm_judge.render.frames import crop_box, mask_by_frame, render_frames
from gridwm_judge.render.nocue_style import (
    DEFAULT_NOCUE_STYLE,
    check_style,
    marks_by_frame,
    variant_marks,
)
from gridwm_judge.render.painter import render_tile
from gridwm_judge.worlds.minigrid.cards import get_card
from gridwm_judge.worlds.minigrid.interventions import replay_envs
from gridwm_judge.worlds.minigrid.nocue import tiles_at
from gridwm_judge.worlds.minigrid.records import TrajectoryGroup

IOU_THRESHOLD = 0.70


def mask_pixel_iou(
    clean: np.ndarray, masked: np.ndarray, target_tiles: Iterable[Iterable[int]], tile_size: int,
    erased_tiles: Iterable[Iterable[int]] = (),
) -> float:
    """IoU of the changed pixels (masked vs clean) with the pixels of ``target_tiles`` (whole
    tiles) and of ``erased_tiles`` (only the pixels where ``clean``'s tile differs from
    MiniGrid's empty floor tile: the object's own pixels).

    Returns a value in [0, 1]; 0.0 when neither the mask nor the target covers any pixel.
    """
    clean, masked = np.asarray(clean), np.asarray(masked)
    if clean.shape != masked.shape:
        raise ValueError(f"frame shapes differ: {clean.shape} vs {masked.shape}")
    changed = np.any(clean != masked, axis=2)
    target = np.zeros(changed.shape, dtype=bool)
    for x, y in target_tiles:
        target[int(y) * tile_size : (int(y) + 1) * tile_size,
               int(x) * tile_size : (int(x) + 1) * tile_size] = True
    empty = render_tile(None, None, None, tile_size)
    for x, y in erased_tiles:
        rows = slice(int(y) * tile_size, (int(y) + 1) * tile_size)
        cols = slice(int(x) * tile_size, (int(x) + 1) * tile_size)
        target[rows, cols] |= np.any(clean[rows, cols] != empty, axis=2)
    union = int(np.count_nonzero(changed | target))
    if union == 0:
        return 0.0
    return int(np.count_nonzero(changed & target)) / union


@dataclass(frozen=True)
class MaskCheck:
    """Result of the pixel-level N1 audit of one group's NoCue frames."""

    group_id: str
    ious: tuple[float, ...]
    n_masked_frames: int
    budget: int
    threshold: float = IOU_THRESHOLD

    @property
    def min_iou(self) -> float:
        return min(self.ious) if self.ious else 0.0

    @property
    def passed(self) -> bool:
        return 1 <= self.n_masked_frames <= self.budget and self.min_iou >= self.threshold


def check_nocue_mask(group: TrajectoryGroup, threshold: float = IOU_THRESHOLD,
                     nocue_style: str = DEFAULT_NOCUE_STYLE) -> MaskCheck:
    """Audit ``group``'s NoCue frames rendered in ``nocue_style`` against its plain Full
    frames and NoCue targets (erased targets: their own pixels; covered ones: their tiles)."""
    card = get_card(group.family)
    env = next(iter(replay_envs(group.env_id, group.seed, ())))
    specs = card.target_specs(env)
    # The audited frames are the cropped ones judges see; target tiles shift by the crop.
    full = render_frames(group, "full", nocue_style=None)
    nocue = render_frames(group, "nocue", nocue_style=check_style(nocue_style))
    box = crop_box(group)
    tile_size = full[0].shape[0] // box.height
    masked = mask_by_frame(group.nocue)
    marks = marks_by_frame(variant_marks(group, "nocue", nocue_style))
    ious = []
    for t in sorted(masked):
        erased = set(marks[t].erase) if t in marks else set()
        targets = [(x, y) for x, y in tiles_at(group.full.states[t], specs)]
        ious.append(mask_pixel_iou(
            full[t], nocue[t],
            [(x - box.x, y - box.y) for x, y in targets if (x, y) not in erased],
            tile_size,
            [(x - box.x, y - box.y) for x, y in targets if (x, y) in erased],
        ))
    return MaskCheck(group.group_id, tuple(ious), len(masked), int(card.nocue_budget),
                     threshold)

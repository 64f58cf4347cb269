"""Pixel-level NoCue mask audit (gate N1 on the rendered frames).

The simulator checks N1 on tiles; this checks what the judge actually sees: in each masked
frame, the pixels the mask changed (NoCue frame vs Full frame) must overlap the target tiles'
pixels with IoU >= 0.70, and the number of masked frames must stay within the card's budget.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from gridwm_judge.render.frames import crop_box, mask_by_frame, render_frames
from gridwm_judge.sim.cards import get_card
from gridwm_judge.sim.interventions import replay_envs
from gridwm_judge.sim.nocue import target_specs, tiles_at
from gridwm_judge.sim.records import TrajectoryGroup

IOU_THRESHOLD = 0.70


def mask_pixel_iou(
    clean: np.ndarray, masked: np.ndarray, target_tiles: Iterable[Iterable[int]], tile_size: int
) -> float:
    """IoU of the changed pixels (masked vs clean) with the pixels of ``target_tiles``.

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


def check_nocue_mask(group: TrajectoryGroup, threshold: float = IOU_THRESHOLD) -> MaskCheck:
    """Audit ``group``'s rendered NoCue frames against its Full frames and NoCue targets."""
    card = get_card(group.family)
    env = next(iter(replay_envs(group.env_id, group.seed, ())))
    specs = target_specs(group.family, env)
    # The audited frames are the cropped ones judges see; target tiles shift by the crop.
    full = render_frames(group, "full")
    nocue = render_frames(group, "nocue")
    box = crop_box(group)
    tile_size = full[0].shape[0] // box.height
    masked = mask_by_frame(group.nocue)
    ious = tuple(
        mask_pixel_iou(
            full[t],
            nocue[t],
            [(x - box.x, y - box.y) for x, y in tiles_at(group.full.states[t], specs)],
            tile_size,
        )
        for t in sorted(masked)
    )
    return MaskCheck(group.group_id, ious, len(masked), int(card.nocue_budget), threshold)

"""Rendering: MiniGrid frames, event-anchored keyframes, storyboard layouts, visual probes.

Knows nothing of prompts or answers; every random choice is seeded from an item's key.
"""

from gridwm_judge.render.frames import (
    MINIGRID,
    VARIANTS,
    Crop,
    MiniGridWorld,
    crop_box,
    minigrid_world,
    render_frames,
    rollout_of,
)
from gridwm_judge.render.keyframes import DEFAULT_MAX_FRAMES, keyframes, select_keyframes
from gridwm_judge.render.layout import (
    COMPOSITE_MAX_PX,
    SPLIT_MAX_PX,
    choice_panel,
    composite,
    panel_size,
    scaled,
    split,
)
from gridwm_judge.render.masks import MaskCheck, check_nocue_mask, mask_pixel_iou
from gridwm_judge.render.nocue_style import (
    DEFAULT_NOCUE_STYLE,
    TARGET_RULE,
    FrameMark,
    mark_spec,
    variant_marks,
)
from gridwm_judge.render.painter import FOG_RGB, GridPainter, tile_size_for
from gridwm_judge.render.probes import VISUALS, apply_visual, rng_from_key, style_factors
from gridwm_judge.render.tiles import classify_frame, palette, symbolic_grid

__all__ = [
    "COMPOSITE_MAX_PX",
    "DEFAULT_MAX_FRAMES",
    "DEFAULT_NOCUE_STYLE",
    "FOG_RGB",
    "MINIGRID",
    "SPLIT_MAX_PX",
    "TARGET_RULE",
    "VARIANTS",
    "VISUALS",
    "Crop",
    "FrameMark",
    "GridPainter",
    "MaskCheck",
    "MiniGridWorld",
    "apply_visual",
    "check_nocue_mask",
    "choice_panel",
    "classify_frame",
    "composite",
    "crop_box",
    "keyframes",
    "mark_spec",
    "mask_pixel_iou",
    "minigrid_world",
    "palette",
    "panel_size",
    "render_frames",
    "rng_from_key",
    "rollout_of",
    "scaled",
    "select_keyframes",
    "split",
    "style_factors",
    "symbolic_grid",
    "tile_size_for",
    "variant_marks",
]

"""Rendering: MiniGrid frames, event-anchored keyframes, storyboard layouts, visual probes.

Knows nothing of prompts or answers; every random choice is seeded from an item's key.
"""

from gridwm_judge.render.frames import VARIANTS, render_frames, rollout_of, select
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
from gridwm_judge.render.painter import FOG_RGB, GridPainter, tile_size_for
from gridwm_judge.render.probes import VISUALS, apply_visual, rng_from_key, style_factors

__all__ = [
    "COMPOSITE_MAX_PX",
    "DEFAULT_MAX_FRAMES",
    "FOG_RGB",
    "SPLIT_MAX_PX",
    "VARIANTS",
    "VISUALS",
    "GridPainter",
    "apply_visual",
    "choice_panel",
    "composite",
    "keyframes",
    "panel_size",
    "render_frames",
    "rng_from_key",
    "rollout_of",
    "scaled",
    "select",
    "select_keyframes",
    "split",
    "style_factors",
    "tile_size_for",
]

"""Tiles are pixel-identical to MiniGrid's own Grid.render_tile for every object and size."""

from __future__ import annotations

import numpy as np
import pytest
from minigrid.core.grid import Grid
from minigrid.core.world_object import Ball, Box, Door, Floor, Goal, Key, Lava, Wall

from gridwm_judge.render.painter import TILE_SIZES, minigrid_tile

CELLS = [None, Goal(), Lava(), Wall(), Floor("blue"), Key("yellow"), Ball("purple"), Box("grey"),
         Door("red", is_open=True), Door("green"), Door("yellow", is_locked=True)]


@pytest.mark.parametrize("tile_size", [TILE_SIZES[0], 11])
def test_minigrid_tile_matches_minigrid(tile_size):
    for cell in CELLS:
        for agent_dir in (None, 0, 3):
            ours = minigrid_tile(cell, agent_dir, tile_size)
            ref = Grid.render_tile(cell, agent_dir=agent_dir, highlight=False, tile_size=tile_size)
            expected = np.zeros_like(ours)
            expected[:] = ref  # MiniGrid's float tile, cast as Grid.render does
            assert np.array_equal(ours, expected), (cell, agent_dir, tile_size)

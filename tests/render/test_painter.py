"""The painter reproduces MiniGrid's own renderer and paints fog and the carried badge."""

from __future__ import annotations

import gymnasium as gym
import minigrid  # noqa: F401
import numpy as np
import pytest

from gridwm_judge.render import FOG_RGB, GridPainter, tile_size_for
from gridwm_judge.render.painter import FRAME_TARGET_PX


@pytest.mark.parametrize(
    "env_id", ["MiniGrid-DoorKey-6x6-v0", "MiniGrid-MultiRoom-N2-S4-v0", "MiniGrid-UnlockPickup-v0"]
)
def test_incremental_frames_equal_minigrid_render(env_id):
    env = gym.make(env_id)
    env.reset(seed=5)
    u = env.unwrapped
    ts = tile_size_for(u.width, u.height)
    painter = GridPainter(ts, show_carrying=False)
    rng = np.random.default_rng(1)
    for _ in range(40):
        frame = painter.paint(u)
        np.testing.assert_array_equal(frame, u.grid.render(ts, u.agent_pos, u.agent_dir))
        _, _, term, trunc, _ = env.step(int(rng.choice([0, 1, 2, 2, 3, 4, 5])))
        if term or trunc:
            break


def test_tile_size_bounds_frame():
    for w, h in [(5, 5), (16, 8), (25, 25), (11, 6)]:
        ts = tile_size_for(w, h)
        assert max(w, h) * ts <= FRAME_TARGET_PX
        assert ts >= 8
    with pytest.raises(ValueError, match="positive"):
        tile_size_for(0, 3)


def test_carried_object_badge_and_fog():
    env = gym.make("MiniGrid-UnlockPickup-v0")
    env.reset(seed=0)
    u = env.unwrapped
    from minigrid.core.world_object import Key

    ts = tile_size_for(u.width, u.height)
    plain = GridPainter(ts).paint(u)
    u.carrying = Key("yellow")
    held = GridPainter(ts).paint(u)
    x, y = map(int, u.agent_pos)
    diff = np.argwhere(np.any(plain != held, axis=2))
    assert len(diff) > 0
    # Only the agent's tile changes when the agent holds something.
    assert set(map(tuple, diff // ts)) == {(y, x)}
    fogged = GridPainter(ts).paint(u, fog=[(1, 1)])
    assert (fogged[ts : 2 * ts, ts : 2 * ts] == FOG_RGB).all()
    with pytest.raises(ValueError, match="outside"):
        GridPainter(ts).paint(u, fog=[(99, 0)])

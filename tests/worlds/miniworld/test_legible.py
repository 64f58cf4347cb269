"""Sign's cue is judgeable from the images: the reading frame shows the word legibly, the
storyboard keeps it, and NoCue hides the sign only in glimpses before it."""

import math

import numpy as np
import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")
from gridwm_judge.worlds.miniworld.backend import require_miniworld  # noqa: E402

require_miniworld()  # headless before miniworld is first imported

from gridwm_judge.render.keyframes import keyframes  # noqa: E402
from gridwm_judge.worlds.miniworld.backend import reset_env, without_observations  # noqa: E402
from gridwm_judge.worlds.miniworld.cards import get_card  # noqa: E402
from gridwm_judge.worlds.miniworld.legible import (  # noqa: E402
    MIN_LETTER_PX,
    VIEW_SIZE,
    face_corners,
    legible,
    readable_poses,
)
from gridwm_judge.worlds.miniworld.render import first_person  # noqa: E402
from gridwm_judge.worlds.miniworld.variants import build_group  # noqa: E402

SEED = 830000


def _sign_env(color_index=2):
    env, u = reset_env("MiniWorld-Sign-v0", {"color_index": color_index, "goal": 0}, 1)
    return env, u, next(i for i, e in enumerate(u.entities) if type(e).__name__ == "TextFrame")


def _pose(u, x, z, deg):
    u.agent.pos, u.agent.dir = np.array([x, 0.0, z]), math.radians(deg)


def test_projection_matches_the_render():
    """The projected face is where the render draws the sign (its changed pixels' box)."""
    env, u, i = _sign_env()
    _pose(u, 5.0, 10.25, 0.0)
    with_it = first_person(u, VIEW_SIZE)
    without = first_person(u, VIEW_SIZE, hide=(i,))
    ys, xs = np.nonzero(np.any(with_it != without, axis=2))
    w, h = VIEW_SIZE
    fov = math.tan(math.radians(u.agent.cam_fov_y) / 2)
    corners = face_corners(u.entities[i])
    d = corners - u.agent.cam_pos                      # facing +x: depth along x, right is +z
    px = (d[:, 2] / (d[:, 0] * fov * w / h) + 1) / 2 * w
    py = (1 - d[:, 1] / (d[:, 0] * fov)) / 2 * h
    assert abs(xs.min() - px.min()) <= 2 and abs(xs.max() - px.max()) <= 2
    assert abs(ys.min() - py.min()) <= 2 and abs(ys.max() - py.max()) <= 2
    assert (py.max() - py.min()) >= MIN_LETTER_PX


def test_legible_needs_the_whole_word_large_and_unhidden():
    env, u, i = _sign_env()
    sign = u.entities[i]
    _pose(u, 5.0, 10.25, 0.0)       # 5 m in front of the sign, facing it
    assert legible(u, i)
    _pose(u, 5.0, 10.25, 45.0)      # turned away: part of the word leaves the frame
    assert not legible(u, i)
    _pose(u, 1.0, 10.25, 0.0)       # 9 m away: letters too small
    assert not legible(u, i)
    _pose(u, 4.5, 5.0, -45.0)       # from the top room: oblique and cut by the wall's end
    assert not legible(u, i)
    # Geometry passes but a tall box stands in the line of sight: the render check refuses it.
    from miniworld.entity import Box

    _pose(u, 5.0, 10.25, 0.0)
    wall = Box(color="red", size=2.0)
    wall.randomize(u.params, None)
    u.place_entity(wall, pos=(7.0, 0.0, 10.25))
    try:
        assert bool(readable_poses(u.agent, sign, 5.0, 10.25, 0.0)) and not legible(u, i)
    finally:
        u.entities.pop()


@pytest.fixture(scope="module")
def group():
    return build_group("sign", SEED)


def test_reading_frame_is_legible_and_in_the_storyboard(group):
    g = group
    assert g.valid, g.reasons
    see = [e["t"] for e in g.full.events if e["type"] == "see"]
    assert len(see) == 1 and see[0] in keyframes(g)
    assert g.max_episode_steps == get_card("sign").step_limit == 40
    assert g.to_record()["max_episode_steps"] == 40 and len(g.actions) < 40
    env, u = reset_env(g.env_id, g.env_kwargs, g.seed, step_limit=g.max_episode_steps)
    cue = g.roles["cue"]
    readable = []
    with without_observations(u):
        for t in range(see[0] + 1):
            if t:
                env.step(g.actions[t - 1])
            readable.append(legible(u, cue))
    assert readable[-1] and not any(readable[:-1])   # the first legible frame is "see"


def test_nocue_hides_only_glimpses_before_the_reading_frame(group):
    g = group
    see = next(e["t"] for e in g.full.events if e["type"] == "see")
    masked = [m["t"] for m in g.nocue.mask]
    assert masked and max(masked) < see and all(m["entity"] == g.roles["cue"]
                                                 for m in g.nocue.mask)

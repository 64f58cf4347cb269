"""When a sign's word can be read in a shown first-person frame.

A judge reads Sign's cue from the storyboard's frames, so the test is made in the frame a
storyboard shows (:data:`VIEW_SIZE`): the sign's whole front face projects inside the frame,
the sign and each of its letters are at least :data:`MIN_LETTER_PX` high and wide there, and
nothing hides it (the pixels that change when the sign is hidden cover at least
:data:`MIN_VISIBLE` of its projected quad). The projection is MiniWorld's own camera
(``gluPerspective`` with the agent's vertical field of view, ``gluLookAt`` from
``agent.cam_pos`` along ``agent.cam_dir``; the camera pitch is 0 with domain randomisation off).
The geometric part needs no render, so the controller can test many candidate poses at once.
"""

from __future__ import annotations

import math

import numpy as np

from gridwm_judge.worlds.miniworld.render import VIEW_SIZE, entity_area

MIN_LETTER_PX = 16.0   # the sign's height and each letter's width, in pixels of VIEW_SIZE
MIN_VISIBLE = 0.9      # share of the projected quad that must show the sign itself
_EDGE_PX = 2.0         # the quad must stay this far inside the frame


def face_corners(sign) -> np.ndarray:
    """The front face's four corners (4, 3) in world coordinates: top-left, top-right,
    bottom-right, bottom-left as seen from the front (TextFrame draws at local x = 0.05)."""
    c, s = math.cos(sign.dir), math.sin(sign.dir)
    normal, along = np.array([c, 0.0, -s]), np.array([s, 0.0, c])   # glRotatef about +y
    centre = np.asarray(sign.pos, dtype=float) + 0.05 * normal
    hz, hy = sign.width / 2, sign.height / 2
    up = np.array([0.0, 1.0, 0.0])
    return np.array([centre + hz * along + hy * up, centre - hz * along + hy * up,
                     centre - hz * along - hy * up, centre + hz * along - hy * up])


def readable_poses(agent, sign, x, z, heading, size: tuple[int, int] = VIEW_SIZE) -> np.ndarray:
    """For agent poses (arrays ``x``, ``z``, ``heading`` in radians, broadcast together): the
    sign's face lies wholly inside the frame, faces the camera and its letters are large
    enough. Geometry only (occlusion is :func:`legible`'s render check)."""
    if float(agent.cam_pitch) != 0.0:
        raise ValueError(f"camera pitch {agent.cam_pitch} != 0 (domain randomisation on?)")
    x, z, heading = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (x, z, heading)))
    fwd = np.stack([np.cos(heading), np.zeros_like(heading), -np.sin(heading)], axis=-1)
    right = np.stack([np.sin(heading), np.zeros_like(heading), np.cos(heading)], axis=-1)
    eye = np.stack([x, np.full_like(x, float(agent.cam_height)), z], axis=-1) + \
        float(agent.cam_fwd_disp) * fwd
    corners = face_corners(sign)
    d = corners - eye[..., None, :]                                      # (..., 4, 3)
    depth = np.einsum("...kc,...c->...k", d, fwd)
    t = math.tan(math.radians(agent.cam_fov_y) / 2)
    w, h = size
    with np.errstate(divide="ignore", invalid="ignore"):
        px = (np.einsum("...kc,...c->...k", d, right) / (depth * t * (w / h)) + 1) / 2 * w
        py = (1 - d[..., 1] / (depth * t)) / 2 * h
    normal = np.array([math.cos(sign.dir), 0.0, -math.sin(sign.dir)])
    front = (eye - corners.mean(axis=0)) @ normal > 0                    # not behind its wall
    inside = (np.all(depth > 0.04, axis=-1) & np.all(px >= _EDGE_PX, axis=-1)
              & np.all(px <= w - _EDGE_PX, axis=-1) & np.all(py >= _EDGE_PX, axis=-1)
              & np.all(py <= h - _EDGE_PX, axis=-1))
    tall = np.minimum(py[..., 3] - py[..., 0], py[..., 2] - py[..., 1])
    letter = np.abs(px[..., 1] - px[..., 0]) / max(1, len(sign.str))
    return front & inside & (np.minimum(tall, letter) >= MIN_LETTER_PX)


def _quad_px(agent, sign, size) -> float:
    """Projected area of the sign's face in pixels of ``size`` (its corners in front)."""
    eye, fwd = np.asarray(agent.cam_pos, dtype=float), np.asarray(agent.cam_dir, dtype=float)
    right = np.cross(fwd, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    d = face_corners(sign) - eye
    depth = d @ fwd
    t = math.tan(math.radians(agent.cam_fov_y) / 2)
    w, h = size
    x = (d @ right) / (depth * t * (w / h)) * w / 2
    y = (d @ np.cross(right, fwd)) / (depth * t) * h / 2
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def legible(u, index: int, size: tuple[int, int] = VIEW_SIZE) -> bool:
    """Whether entity ``index`` (a TextFrame) can be read in the agent's current view."""
    sign, agent = u.entities[index], u.agent
    pos = agent.pos
    if not bool(readable_poses(agent, sign, pos[0], pos[2], agent.dir, size)):
        return False
    return entity_area(u, index, size) * size[0] * size[1] >= MIN_VISIBLE * _quad_px(
        agent, sign, size)

"""First-person frames, top-down maps and NoCue hiding, rendered by MiniWorld's own OpenGL code.

NoCue hides an entity at render time by drawing the frame without it (static entities such as
the sign are drawn into a display list, which is rebuilt without them); the simulation itself
is untouched. An entity's projected area is the share of pixels that change when it is
hidden, so it accounts for occlusion by walls and other objects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from gridwm_judge.worlds.miniworld.backend import (
    quiet_renderer_notes,
    reset_env,
    without_observations,
)
from gridwm_judge.worlds.miniworld.cards import get_card
from gridwm_judge.worlds.miniworld.records import ACTION_NAMES

AREA_SIZE = (80, 60)     # MiniWorld's own observation size, used to measure projected areas
VIEW_SIZE = (160, 120)
"""First-person frame size of MiniWorld storyboards and Task A views (width, height); Sign's
reading frame is legible at this size (``legible.py``)."""
MAP_SIZE = (VIEW_SIZE[0], VIEW_SIZE[0])
"""Task A's top-down map: a square as wide as the view."""
_FBS: dict[tuple[int, int], object] = {}


def _fb(u, size: tuple[int, int]):
    """One frame buffer per size in this process (buffers belong to the shared GL context)."""
    from miniworld.opengl import FrameBuffer

    u.shadow_window.switch_to()
    if size not in _FBS:
        with quiet_renderer_notes():
            _FBS[size] = FrameBuffer(int(size[0]), int(size[1]), 8)
    return _FBS[size]


@contextmanager
def hidden(u, indices):
    """Draw without the entities at ``indices`` (positions in ``u.entities``), then restore."""
    indices = sorted(set(indices))
    if not indices:
        yield
        return
    saved = [(i, u.entities[i]) for i in indices]
    static = any(e.is_static for _, e in saved)
    for i, _ in reversed(saved):
        del u.entities[i]
    if static:
        u._render_static()
    try:
        yield
    finally:
        for i, e in saved:
            u.entities.insert(i, e)
        if static:
            u._render_static()


def first_person(u, size: tuple[int, int] = AREA_SIZE, hide=()) -> np.ndarray:
    """The agent's view, (height, width, 3) uint8."""
    with hidden(u, hide):
        # The class method: ``backend.without_observations`` may shadow the instance's.
        return np.array(type(u).render_obs(u, _fb(u, size)), copy=True)


AGENT_MARKER = (255, 128, 0)
"""Fill of the agent's arrow on the map: orange, which no MiniWorld entity is (MiniWorld's own
agent triangle is a few pixels wide and red like PutNext's red box)."""


def top_down(u, size: tuple[int, int] = (160, 160), hide=()) -> np.ndarray:
    """The whole floor plan from above, the agent drawn as an orange arrow pointing where it
    faces."""
    with hidden(u, hide):
        img, scale = u.render_top_view(_fb(u, size), render_agent=False, return_scale=True)
    return agent_arrow(np.array(img, copy=True), u.agent, scale)


def agent_arrow(img: np.ndarray, agent, scale: dict) -> np.ndarray:
    """``img`` with the agent's arrow drawn at its pose (``scale``: render_top_view's map from
    world x, z to pixel column, row)."""
    from PIL import Image, ImageDraw

    col = float(agent.pos[0]) * scale["x_scale"] + scale["x_offset"]
    row = float(agent.pos[2]) * scale["z_scale"] + scale["z_offset"]
    length = max(10.0, 0.09 * img.shape[1])
    fx, fy = math.cos(agent.dir), -math.sin(agent.dir)       # forward, in (column, row)
    tip = (col + 0.6 * length * fx, row + 0.6 * length * fy)
    back = (col - 0.4 * length * fx, row - 0.4 * length * fy)
    half = 0.35 * length
    pts = [tip, (back[0] - half * fy, back[1] + half * fx),
           (back[0] + half * fy, back[1] - half * fx)]
    out = Image.fromarray(img)
    ImageDraw.Draw(out).polygon(pts, fill=AGENT_MARKER, outline=(0, 0, 0))
    return np.asarray(out).copy()


def in_view(u, ent, aspect: float) -> bool:
    """False only when ``ent`` lies wholly outside the camera's horizontal field of view
    (a conservative test: then it draws no pixel and needs no render)."""
    agent = u.agent
    dx, dz = float(ent.pos[0] - agent.pos[0]), float(ent.pos[2] - agent.pos[2])
    dist = math.hypot(dx, dz)
    half = max(float(ent.radius), float(getattr(ent, "width", 0.0)) / 2) + 0.5
    if dist <= half:
        return True
    off = abs((math.atan2(-dz, dx) - agent.dir + math.pi) % (2 * math.pi) - math.pi)
    half_fov = math.atan(math.tan(math.radians(agent.cam_fov_y) / 2) * aspect)
    return off <= half_fov + math.asin(half / dist)


def entity_area(u, index: int, size: tuple[int, int] = AREA_SIZE) -> float:
    """Share of the first-person frame that changes when entity ``index`` is hidden, in [0, 1]."""
    if not in_view(u, u.entities[index], size[0] / size[1]):
        return 0.0
    with_it = first_person(u, size)
    without = first_person(u, size, hide=(index,))
    return float(np.any(with_it != without, axis=2).mean())


def render_variant(group, variant: str, size: tuple[int, int] = VIEW_SIZE,
                   top_size: tuple[int, int] | None = None):
    """Frames of one variant of ``group``: a list of first-person arrays, or of
    (first-person, top-down) pairs when ``top_size`` is given. NoCue frames listed in the
    mask are drawn without the masked entity (in both views)."""
    run = getattr(group, variant)
    card = get_card(group.family)
    env, u = reset_env(group.env_id, group.env_kwargs, group.seed, run.intervention,
                       card.settable_attrs, group.max_episode_steps)
    masked = {m["t"]: (m["entity"],) for m in run.mask}
    frames = []
    for t in range(len(run.states)):
        if t:
            with without_observations(u):
                env.step(int(run.actions[t - 1]))
        pos = run.states[t]["agent"]["pos"]
        if not np.allclose(u.agent.pos, pos, atol=1e-9):
            raise RuntimeError(f"{group.group_id} {variant}: replay left the recorded pose at "
                               f"frame {t}")
        hide = masked.get(t, ())
        fp = first_person(u, size, hide)
        frames.append(fp if top_size is None else (fp, top_down(u, top_size, hide)))
    return frames


@dataclass(frozen=True)
class MiniWorldView:
    """MiniWorld's side of the world seam (``gridwm_judge.world.World``): its name, actions
    and one read-only RGB frame per state, the same size for every variant of a group.

    ``top_size`` (same width as ``size``) stacks the top-down map under the first-person view,
    the paper's Task A current-state picture; None gives first-person views only.
    """

    name: str = "miniworld"
    size: tuple[int, int] = VIEW_SIZE
    top_size: tuple[int, int] | None = None

    @property
    def action_names(self) -> tuple[str, ...]:
        return ACTION_NAMES

    def check(self, group, variant: str) -> None:
        """Refuse a group of another world, an unknown variant or a map wider than the view."""
        if getattr(group, "world", None) != self.name:
            raise ValueError(f"group {group.group_id} is a {getattr(group, 'world', None)!r} "
                             f"group; it cannot be rendered by the {self.name!r} world")
        if variant not in ("full", "nocue", "cf"):
            raise ValueError(f"unknown variant {variant!r}; expected one of full, nocue, cf")
        if self.top_size is not None and self.top_size[0] != self.size[0]:
            raise ValueError(f"top_size width {self.top_size[0]} must equal size width "
                             f"{self.size[0]} to stack the map under the view")

    def frames(self, group, variant: str) -> Sequence[np.ndarray]:
        self.check(group, variant)
        out = []
        for f in render_variant(group, variant, self.size, self.top_size):
            arr = f if self.top_size is None else np.concatenate(f, axis=0)
            arr.flags.writeable = False
            out.append(arr)
        return out


MINIWORLD = MiniWorldView()

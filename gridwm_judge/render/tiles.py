"""Read a rendered frame back into a symbolic grid (nearest-prototype tile classifier).

Prototypes are MiniGrid's own clean tile renderings of every object MiniGrid can draw
(walls, doors in each state, keys, balls, boxes, goal, lava, in each colour of the palette),
the agent in four directions on every cell it can stand on, with every carried-object badge,
and the NoCue fog tile. Classifying each tile of a frame by the nearest prototype (squared
L2) recovers the symbolic grid; used to show that visual probes preserve the scene and to
check that frames are aligned with the simulator's states (gate E2).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from minigrid.core.constants import COLOR_NAMES
from minigrid.core.world_object import Ball, Box, Door, Goal, Key, Lava, Wall

from gridwm_judge.render.painter import fog_tile, render_tile

FOG = "fog"


def cell_label(cell, agent_dir: int | None = None, carrying=None) -> str:
    """Label of one tile: ``type:color:state`` plus ``|agent<dir>`` and ``+type_color`` held."""
    if cell is None:
        base = "empty::"
    else:
        state = ""
        if cell.type == "door":
            state = "open" if cell.is_open else ("locked" if cell.is_locked else "closed")
        base = f"{cell.type}:{cell.color}:{state}"
    if agent_dir is not None:
        base += f"|agent{int(agent_dir)}"
        if carrying is not None:
            base += f"+{carrying.type}_{carrying.color}"
    return base


def symbolic_grid(env, fog=(), *, show_carrying: bool = True) -> np.ndarray:
    """(height, width) array of tile labels of the unwrapped ``env``'s current state."""
    grid = env.grid
    out = np.empty((grid.height, grid.width), dtype=object)
    ax, ay = int(env.agent_pos[0]), int(env.agent_pos[1])
    for j in range(grid.height):
        for i in range(grid.width):
            here = (i, j) == (ax, ay)
            carrying = env.carrying if (here and show_carrying) else None
            out[j, i] = cell_label(grid.get(i, j), env.agent_dir if here else None, carrying)
    for x, y in fog:
        out[int(y), int(x)] = FOG
    return out


def palette(env) -> tuple[str, ...]:
    """Colours of every object in ``env``'s grid and in the agent's hands (sorted)."""
    colors = {obj.color for obj in env.grid.grid if obj is not None}
    if env.carrying is not None:
        colors.add(env.carrying.color)
    return tuple(sorted(colors))


def _universe(colors: tuple[str, ...]):
    cells = [None, Goal(), Lava()]
    held = [None]
    standable = [None, Goal(), Lava()]
    for c in colors:
        cells += [Wall(c), Key(c), Ball(c), Box(c)]
        held += [Key(c), Ball(c), Box(c)]
        for is_open, is_locked in ((True, False), (False, False), (False, True)):
            cells.append(Door(c, is_open=is_open, is_locked=is_locked))
        standable.append(Door(c, is_open=True))
    yield from ((cell, None, None) for cell in cells)
    for d in range(4):
        for cell in standable:
            for h in held:
                yield cell, d, h


@lru_cache(maxsize=16)
def _prototypes(
    tile_size: int, colors: tuple[str, ...]
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    labels, protos = [], []
    seen: set[str] = set()
    for cell, d, h in _universe(colors):
        label = cell_label(cell, d, h)
        if label in seen:
            continue
        seen.add(label)
        labels.append(label)
        protos.append(render_tile(cell, d, h, tile_size).reshape(-1))
    labels.append(FOG)
    protos.append(np.ascontiguousarray(fog_tile(tile_size)).reshape(-1))
    mat = np.stack(protos).astype(np.float32)
    return tuple(labels), mat, (mat * mat).sum(axis=1)


def classify_frame(
    frame: np.ndarray, tile_size: int, colors: tuple[str, ...] = tuple(COLOR_NAMES)
) -> np.ndarray:
    """(height, width) array of the nearest prototype's label for every tile of ``frame``.

    ``colors`` limits the prototype library to objects of those colours (MiniGrid draws each
    new tile pixel by pixel, so the full library costs seconds to build); default: all.
    """
    unknown = sorted(set(colors) - set(COLOR_NAMES))
    if unknown:
        raise ValueError(f"unknown colours {unknown}; expected some of {', '.join(COLOR_NAMES)}")
    arr = np.asarray(frame)
    if arr.ndim != 3 or arr.shape[0] % tile_size or arr.shape[1] % tile_size:
        raise ValueError(f"frame {arr.shape} is not a whole number of {tile_size}px tiles")
    h, w = arr.shape[0] // tile_size, arr.shape[1] // tile_size
    tiles = (
        arr.reshape(h, tile_size, w, tile_size, 3).transpose(0, 2, 1, 3, 4).reshape(h * w, -1)
    ).astype(np.float32)
    labels, mat, sq = _prototypes(tile_size, tuple(sorted(set(colors))))
    dist = sq[None, :] - 2.0 * tiles @ mat.T
    best = np.argmin(dist, axis=1)
    return np.asarray(labels, dtype=object)[best].reshape(h, w)

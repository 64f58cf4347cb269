"""Shortest collision-free paths on MiniWorld's floor plan (grid A* + line-of-sight smoothing).

The floor is sampled on a square grid; a cell is free when a disc of the agent's radius plus a
margin around its centre lies inside a room, touches no wall segment and no entity other than
the ones the caller ignores. The controller follows the smoothed waypoints; it never sees the
grid, so the plan only has to be collision-free, not optimal.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator

import numpy as np

CELL = 0.25          # grid resolution in metres
MARGIN = 0.2         # clearance added to the agent's radius


class NoPathError(RuntimeError):
    """No collision-free path from the agent to the goal region."""


def _wall_clear(u, x: float, z: float, radius: float) -> bool:
    from miniworld.math import intersect_circle_segs

    # Rooms' bounding boxes (a little wider, so the doorway between two rooms counts as
    # inside); the wall segments do the real work.
    if not any(r.min_x - 0.05 <= x <= r.max_x + 0.05 and r.min_z - 0.05 <= z <= r.max_z + 0.05
               for r in u.rooms):
        return False
    return not intersect_circle_segs(np.array([x, 0.0, z]), radius, u.wall_segs)


def is_free(u, x: float, z: float, radius: float, ignore: tuple = (),
            ent_margin: float = 0.0, walls_ok: bool = False) -> bool:
    """Disc (x, z, radius) inside a room, clear of walls and of every non-ignored entity
    (kept ``ent_margin`` further off entities, e.g. where touching one ends the episode).
    ``walls_ok``: the caller has already checked the walls."""
    if not walls_ok and not _wall_clear(u, x, z, radius):
        return False
    for ent in u.entities:
        if ent is u.agent or ent in ignore or ent.radius <= 0:
            continue
        if math.hypot(ent.pos[0] - x, ent.pos[2] - z) < radius + ent.radius + ent_margin:
            return False
    return True


def segment_free(u, a, b, radius: float, ignore: tuple = (), ent_margin: float = 0.0) -> bool:
    n = max(2, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 0.1) + 1)
    return all(is_free(u, a[0] + (b[0] - a[0]) * k / (n - 1), a[1] + (b[1] - a[1]) * k / (n - 1),
                       radius, ignore, ent_margin) for k in range(n))


def _neighbours(c: tuple[int, int], ok) -> Iterator[tuple[tuple[int, int], float]]:
    """The 8-connected free cells next to ``c`` with the length of the step there; a diagonal
    step needs both cells beside it free (no cutting a wall corner)."""
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            n = (c[0] + di, c[1] + dj)
            if (di, dj) == (0, 0) or not ok(n):
                continue
            if di and dj and not (ok((c[0] + di, c[1])) and ok((c[0], c[1] + dj))):
                continue
            yield n, CELL * math.hypot(di, dj)


def plan_path(u, start, goal, goal_radius: float, radius: float | None = None,
              ignore: tuple = (), ent_margin: float = 0.0,
              spacing: float = 1.0) -> list[tuple[float, float]]:
    """Waypoints at most ``spacing`` apart from ``start`` to within ``goal_radius`` of ``goal``
    (both (x, z) in metres). Close waypoints keep the quantised heading on the planned line.
    Near the start a cell only needs the bare agent radius (the agent may begin close to a
    wall). Raises NoPathError when the goal region is unreachable.
    """
    radius = (u.agent.radius + MARGIN) if radius is None else radius
    x0, z0 = u.min_x, u.min_z
    nx = int(math.ceil((u.max_x - x0) / CELL)) + 1
    nz = int(math.ceil((u.max_z - z0) / CELL)) + 1

    def centre(i, j):
        return (x0 + i * CELL, z0 + j * CELL)

    free: dict[tuple[int, int], bool] = {}

    def ok(c):
        if c not in free:
            r = radius if math.dist(centre(*c), start) > 0.8 else u.agent.radius + 0.02
            free[c] = (0 <= c[0] < nx and 0 <= c[1] < nz) and is_free(u, *centre(*c), r,
                                                                      ignore, ent_margin)
        return free[c]

    s = (int(round((start[0] - x0) / CELL)), int(round((start[1] - z0) / CELL)))
    free[s] = True  # the agent's own cell, whatever the margin says
    h = lambda c: max(0.0, math.dist(centre(*c), goal) - goal_radius)  # noqa: E731
    frontier = [(h(s), 0.0, s)]
    came: dict = {s: None}
    cost = {s: 0.0}
    end = None
    while frontier:
        _, g, c = heapq.heappop(frontier)
        if g > cost[c]:
            continue
        if math.dist(centre(*c), goal) <= goal_radius:
            end = c
            break
        for n, step in _neighbours(c, ok):
            ng = g + step
            if ng < cost.get(n, math.inf):
                cost[n], came[n] = ng, c
                heapq.heappush(frontier, (ng + h(n), ng, n))
    if end is None:
        raise NoPathError(f"no path from ({start[0]:.2f}, {start[1]:.2f}) to within "
                          f"{goal_radius:.2f} m of ({goal[0]:.2f}, {goal[1]:.2f})")
    cells = []
    while end is not None:
        cells.append(end)
        end = came[end]
    pts = [tuple(start)] + [centre(*c) for c in reversed(cells[:-1])]
    return _densify(_smooth(u, pts, radius, ignore, ent_margin), spacing)


def _smooth(u, pts, radius, ignore, ent_margin):
    """Keep only the waypoints needed for straight, collision-free segments."""
    out, i = [pts[0]], 0
    while i < len(pts) - 1:
        j = len(pts) - 1
        while j > i + 1 and not segment_free(u, pts[i], pts[j], radius, ignore, ent_margin):
            j -= 1
        out.append(pts[j])
        i = j
    return out


def _densify(pts, spacing):
    out = []
    for a, b in zip(pts, pts[1:], strict=False):
        n = max(1, int(math.ceil(math.dist(a, b) / spacing)))
        out.extend((a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n)
                   for k in range(1, n + 1))
    return out


_WALL_CLEAR: dict[tuple, dict[tuple[int, int], bool]] = {}
"""(floor plan, radius) -> grid cell -> walls clear: a family's floor plan repeats across
seeds (Sign's never changes), and the wall test is most of a distance field's cost."""


def _layout_key(u) -> tuple:
    rooms = tuple((r.min_x, r.max_x, r.min_z, r.max_z) for r in u.rooms)
    return (type(u).__name__, rooms, np.asarray(u.wall_segs, dtype=float).tobytes())


def distance_field(u, source, radius: float | None = None, ignore: tuple = (),
                   ent_margin: float = 0.0) -> dict[tuple[float, float], float]:
    """Path length (m) from ``source`` (x, z) to every reachable free grid point (plan_path's
    grid and free test, 8-connected without cutting corners): the controller ranks detours
    with it without planning each one."""
    radius = (u.agent.radius + MARGIN) if radius is None else radius
    x0, z0 = u.min_x, u.min_z
    nx = int(math.ceil((u.max_x - x0) / CELL)) + 1
    nz = int(math.ceil((u.max_z - z0) / CELL)) + 1
    free: dict[tuple[int, int], bool] = {}
    walls = _WALL_CLEAR.setdefault((_layout_key(u), float(radius)), {})

    def ok(c):
        if c not in free:
            x, z = x0 + c[0] * CELL, z0 + c[1] * CELL
            if not (0 <= c[0] < nx and 0 <= c[1] < nz):
                free[c] = False
                return False
            if c not in walls:
                walls[c] = _wall_clear(u, x, z, radius)
            free[c] = walls[c] and is_free(u, x, z, radius, ignore, ent_margin, walls_ok=True)
        return free[c]

    s = (int(round((source[0] - x0) / CELL)), int(round((source[1] - z0) / CELL)))
    free[s] = True
    dist = {s: 0.0}
    frontier = [(0.0, s)]
    while frontier:
        g, c = heapq.heappop(frontier)
        if g > dist[c]:
            continue
        for n, step in _neighbours(c, ok):
            ng = g + step
            if ng < dist.get(n, math.inf):
                dist[n] = ng
                heapq.heappush(frontier, (ng, n))
    return {(x0 + i * CELL, z0 + j * CELL): d for (i, j), d in dist.items()}

"""Reading a MiniGrid grid: its objects with their cells, directions, door states.

MiniGrid stores a grid as one flat row-major list (``grid.grid[y * width + x]``); this is the
one place that turns a list index back into a cell. Coordinates are (column, row) of the full
grid including the outer wall; directions are MiniGrid's ``agent_dir`` (0 right, 1 down,
2 left, 3 up).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

DIRS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""Cell offset of each ``agent_dir``."""


def objects(grid) -> Iterator[tuple[tuple[int, int], Any]]:
    """((x, y), object) for every non-empty cell of a MiniGrid ``Grid``, in row-major order (a
    ``WorldObj`` subclass: a door has ``is_locked``, a key none)."""
    width = grid.width
    for idx, obj in enumerate(grid.grid):
        if obj is not None:
            yield (idx % width, idx // width), obj


def find(u, type_: str, color: str | None = None) -> list[tuple[int, int]]:
    """Cells of the env ``u`` holding an object of this type (and colour), row-major order."""
    return [pos for pos, obj in objects(u.grid)
            if obj.type == type_ and (color is None or obj.color == color)]


def front(pos: tuple[int, int], d: int) -> tuple[int, int]:
    """The cell in front of ``pos`` when facing direction ``d``."""
    return pos[0] + DIRS[d][0], pos[1] + DIRS[d][1]


def locked_door(u) -> tuple[tuple[int, int], str]:
    """Cell and colour of the first locked door of the env ``u`` (row-major order)."""
    for pos, obj in objects(u.grid):
        if obj.type == "door" and obj.is_locked:
            return pos, obj.color
    raise ValueError("no locked door in the grid")


def mission_object(u) -> tuple[int, int]:
    """The cell of the env ``u``'s mission object (KeyCorridor's target, the pickup envs' box)."""
    return int(u.obj.cur_pos[0]), int(u.obj.cur_pos[1])


def door_state(obj) -> str | None:
    """"open" / "closed" / "locked" for a door, None for any other object."""
    if obj.type != "door":
        return None
    if obj.is_open:
        return "open"
    return "locked" if obj.is_locked else "closed"

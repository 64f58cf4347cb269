"""Pixel reading for the pixel-heuristic baseline: storyboard panels and "agent on the goal".

Works from rendered images only (never audit columns). MiniGrid draws the agent as a red
triangle and the goal as a bright green tile, so "the agent stands on the goal" is a red blob
whose bounding box is otherwise mostly green. Composite storyboards are cut into panels at
bright gutter lines (recursive XY-cut; MiniGrid itself draws nothing white) and read
left-to-right, top-to-bottom. The rules are deliberately simple
so that their failure modes are explainable (e.g. a red key lying on the goal counts).
"""

from __future__ import annotations

import numpy as np

_BRIGHT = 180
_MIN_PANEL = 8


def to_array(image) -> np.ndarray:
    """RGB uint8 array of a PIL image (or an array)."""
    if isinstance(image, np.ndarray):
        arr = image
    else:
        arr = np.asarray(image.convert("RGB"))
    return arr[..., :3].astype(np.int16)


def _bright(arr: np.ndarray) -> np.ndarray:
    """Per pixel: all channels >= 180 (MiniGrid draws no white, so this is layout background).

    Computed once per image; every gutter and caption test below reads slices of it.
    """
    return (arr[..., 0] >= _BRIGHT) & (arr[..., 1] >= _BRIGHT) & (arr[..., 2] >= _BRIGHT)


def _gutters(bright: np.ndarray, axis: int) -> np.ndarray:
    """Boolean per line (rows if axis=0): the line is (almost all) bright background.

    The 97% share and the 180 threshold tolerate the noisy / style visual probes.
    """
    n = bright.shape[1 - axis]
    return np.count_nonzero(bright, axis=1 - axis) / n >= 0.97


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of False (content) in a gutter mask, as [start, stop)."""
    content = np.concatenate(([False], ~mask, [False]))
    edges = np.flatnonzero(content[1:] != content[:-1])
    return [
        (int(a), int(b))
        for a, b in zip(edges[::2], edges[1::2], strict=True)
        if b - a >= _MIN_PANEL
    ]


def _leaves(
    arr: np.ndarray, bright: np.ndarray, y: int, x: int, depth: int
) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """Recursive XY-cut at gutter lines; leaves as (top, left, pixels, bright mask)."""
    rows = _runs(_gutters(bright, 0))
    if not rows:
        return []
    if len(rows) > 1 and depth < 12:
        return [
            leaf for a, b in rows for leaf in _leaves(arr[a:b], bright[a:b], y + a, x, depth + 1)
        ]
    a, b = rows[0]
    arr, bright, y = arr[a:b], bright[a:b], y + a
    cols = _runs(_gutters(bright, 1))
    if not cols:
        return []
    if len(cols) > 1 and depth < 12:
        return [
            leaf
            for a, b in cols
            for leaf in _leaves(arr[:, a:b], bright[:, a:b], y, x + a, depth + 1)
        ]
    a, b = cols[0]
    trimmed, trimmed_bright = arr[:, a:b], bright[:, a:b]
    if trimmed.shape != arr.shape and depth < 12:
        return _leaves(trimmed, trimmed_bright, y, x + a, depth + 1)
    return [(y, x + a, trimmed, trimmed_bright)]


def _is_frame(arr: np.ndarray, bright: np.ndarray) -> bool:
    """Caption strips (dark text on white) are not frames: MiniGrid frames are mostly dark."""
    return min(arr.shape[:2]) >= _MIN_PANEL and bright.mean() < 0.5


def panel_boxes(image) -> list[tuple[int, int, np.ndarray]]:
    """(top, left, pixels) of every frame panel in an image, sorted top-to-bottom, then left."""
    arr = to_array(image)
    leaves = [
        (top, left, px)
        for top, left, px, bright in _leaves(arr, _bright(arr), 0, 0, 0)
        if _is_frame(px, bright)
    ]
    return sorted(leaves, key=lambda leaf: (leaf[0], leaf[1])) or [(0, 0, arr)]


def panels(image) -> list[np.ndarray]:
    """The frames of a storyboard image in reading order (one panel for a single frame)."""
    return [leaf[2] for leaf in panel_boxes(image)]


def _red(arr: np.ndarray) -> np.ndarray:
    r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
    return (r > 120) & (r > 2 * g + 20) & (r > 2 * b + 20)


def _green(arr: np.ndarray) -> np.ndarray:
    r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
    return (g > 150) & (g > 2 * r + 20) & (g > 2 * b + 20)


def agent_on_goal(frame: np.ndarray, min_green: float = 0.3) -> bool:
    """True if some red blob's bounding box is, apart from the blob, mostly goal green."""
    from scipy import ndimage

    red = _red(frame)
    if not red.any():
        return False
    labels, n = ndimage.label(red)
    green = _green(frame)
    for sl in ndimage.find_objects(labels):
        if sl is None:
            continue
        box_red = red[sl]
        rest = ~box_red
        if box_red.sum() < 4 or rest.sum() == 0:
            continue
        if green[sl][rest].mean() >= min_green:
            return True
    return False


def difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute pixel difference after cropping both to their common size."""
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    if h == 0 or w == 0:
        return float("inf")
    diff = np.abs(a[:h, :w] - b[:h, :w]).mean()
    size_penalty = abs(a.shape[0] - b.shape[0]) + abs(a.shape[1] - b.shape[1])
    return float(diff) + float(size_penalty)

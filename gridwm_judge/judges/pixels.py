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


RELEASE_PANEL = 224
"""The side of a panel in the paper's released storyboards: a 7 x 7-tile agent view at 32 px
a tile, set edge to edge in a grid without gutters, empty cells black (its generator's
``make_montage``)."""


def montage_panels(block: np.ndarray, side: int = RELEASE_PANEL) -> list[np.ndarray]:
    """The panels of a gutterless montage of ``side``-px square frames, in reading order,
    trailing empty (all-black) cells left out; a block that is no whole grid of such frames
    is one panel."""
    h, w = block.shape[:2]
    if h % side or w % side or (h == side and w == side):
        return [block]
    cells = [block[r:r + side, c:c + side] for r in range(0, h, side) for c in range(0, w, side)]
    while len(cells) > 1 and not cells[-1].any():
        cells.pop()
    return cells


def _red(arr: np.ndarray) -> np.ndarray:
    r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
    return (r > 120) & (r > 2 * g + 20) & (r > 2 * b + 20)


def _green(arr: np.ndarray) -> np.ndarray:
    r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
    return (g > 150) & (g > 2 * r + 20) & (g > 2 * b + 20)


def _components(mask: np.ndarray) -> np.ndarray:
    """``mask``'s connected components, labelled 1..n (``scipy.ndimage.label``)."""
    from scipy import ndimage

    # scipy is untyped: the inferred return also allows the bare count it gives with output=
    labels, _ = ndimage.label(mask)  # pyright: ignore[reportGeneralTypeIssues]
    return labels


def agent_on_goal(frame: np.ndarray, min_green: float = 0.3) -> bool:
    """True if some red blob's bounding box is, apart from the blob, mostly goal green."""
    from scipy import ndimage

    red = _red(frame)
    if not red.any():
        return False
    labels = _components(red)
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


# --- colour classes, the agent and NoCue marks (the shortcut judges' reading) ------------
HUES: dict[str, tuple[float, float]] = {
    "red": (345.0, 15.0),
    "orange": (15.0, 45.0),
    "yellow": (45.0, 75.0),
    "green": (75.0, 165.0),
    "blue": (195.0, 255.0),
    "purple": (255.0, 300.0),
}
"""Hue ranges (degrees) of the saturated colours both worlds draw objects in: MiniGrid's
palette (red, green, blue, purple, yellow; lava orange) and MiniWorld's lit entity colours.
Grey, black and white are not colour classes: walls, floors and grey objects look alike."""
_MIN_SATURATION = 0.5
_MIN_VALUE = 0.25


def colour_mask(frame: np.ndarray, colour: str) -> np.ndarray:
    """Per pixel: saturated and of ``colour``'s hue (``HUES``); robust to the noise and style
    probes, which keep hues. Channel-wise arithmetic (a reduction over the channel axis is
    several times slower on frames this size)."""
    if colour not in HUES:
        raise ValueError(f"unknown colour class {colour!r}; expected one of {', '.join(HUES)}")
    r, g, b = (frame[..., i].astype(np.float32) for i in range(3))
    hi = np.maximum(np.maximum(r, g), b)
    chroma = hi - np.minimum(np.minimum(r, g), b)
    keep = (chroma >= _MIN_SATURATION * hi) & (hi >= 255 * _MIN_VALUE) & (chroma > 0)
    out = np.zeros(keep.shape, dtype=bool)
    if not keep.any():
        return out
    r, g, b, hi, chroma = r[keep], g[keep], b[keep], hi[keep], chroma[keep]
    hue = np.where(hi == r, (60.0 * (g - b) / chroma) % 360.0,
                   np.where(hi == g, 60.0 * (b - r) / chroma + 120.0,
                            60.0 * (r - g) / chroma + 240.0))
    lo_h, hi_h = HUES[colour]
    out[keep] = (hue >= lo_h) | (hue < hi_h) if lo_h > hi_h else (hue >= lo_h) & (hue < hi_h)
    return out


def agent_box(frame: np.ndarray) -> tuple[slice, slice] | None:
    """Bounding box of MiniGrid's agent: the largest red blob shaped like its triangle, solid
    and filling about half its bounding box. A closed door or a box is a hollow outline, a key's
    head a ring (filling their holes adds area); a ball fills more of its box."""
    from scipy import ndimage

    red = colour_mask(frame, "red")
    labels = _components(red)
    best, best_size = None, 0
    for i, sl in enumerate(ndimage.find_objects(labels), start=1):
        if sl is None:
            continue
        blob = labels[sl] == i
        size = int(blob.sum())
        if size < 6 or not 0.3 <= size / blob.size <= 0.7 or size <= best_size:
            continue
        filled = ndimage.binary_fill_holes(blob)
        assert filled is not None  # scipy returns None only when given output=
        if filled.sum() > 1.1 * size:  # an outline, not the agent
            continue
        best, best_size = sl, size
    return best


def around(frame: np.ndarray, box: tuple[slice, slice], reach: float = 2.0
           ) -> tuple[slice, slice]:
    """``box`` grown by ``reach`` times its own size on every side, clipped to the frame: the
    agent's triangle spans 0.6-0.75 of a tile, so 2 reaches across the whole tile it faces
    (an opened door's outline lies on that tile's far edge)."""
    rows, cols = box
    dh = int(round(reach * (rows.stop - rows.start)))
    dw = int(round(reach * (cols.stop - cols.start)))
    return (slice(max(0, rows.start - dh), min(frame.shape[0], rows.stop + dh)),
            slice(max(0, cols.start - dw), min(frame.shape[1], cols.stop + dw)))


FOG_RANGE = (130, 195)
"""Channel range of MiniGrid's NoCue fog (160, 160, 160) under the noise and style probes;
MiniGrid draws its walls and grey objects at 100 and nothing else in this grey."""


def fog_marks(frame: np.ndarray, min_side: int = 6) -> int:
    """How many opaque light-grey squares (MiniGrid's NoCue fog, one per masked tile or a
    block of them) a MiniGrid frame shows: near-uniform grey blobs that fill their bounding
    box (thin layout rules and text do not)."""
    from scipy import ndimage

    r, g, b = (frame[..., i].astype(np.int16) for i in range(3))
    lo_v, hi_v = FOG_RANGE
    grey = ((r >= lo_v) & (r <= hi_v) & (g >= lo_v) & (g <= hi_v) & (b >= lo_v) & (b <= hi_v)
            & (np.abs(r - g) <= 30) & (np.abs(r - b) <= 30) & (np.abs(g - b) <= 30))
    if not grey.any():
        return 0
    labels = _components(grey)
    n = 0
    for i, sl in enumerate(ndimage.find_objects(labels), start=1):
        if sl is None:
            continue
        h, w = sl[0].stop - sl[0].start, sl[1].stop - sl[1].start
        if min(h, w) >= min_side and (labels[sl] == i).mean() >= 0.85:
            n += 1
    return n

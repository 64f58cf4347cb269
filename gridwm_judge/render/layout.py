"""Storyboard layouts: composite grid, split numbered images, and the Task A choice panel.

Composite: panels in a grid read left-to-right, top-to-bottom, each with its number in a
white caption strip above it; the long side is at most ``COMPOSITE_MAX_PX``. Split: the same
frames as separate images, each with its number, each at most ``SPLIT_MAX_PX`` on its long
side. Frames are only ever scaled down (box filter), never up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

COMPOSITE_MAX_PX = 1400
SPLIT_MAX_PX = 512
PANEL_MAX_PX = 480
GAP_PX = 8
BACKGROUND = (255, 255, 255)
TEXT = (0, 0, 0)


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _as_image(frame) -> Image.Image:
    if isinstance(frame, Image.Image):
        return frame.convert("RGB")
    arr = np.asarray(frame)
    if arr.ndim != 3 or arr.shape[2] != 3 or arr.dtype != np.uint8:
        raise ValueError(f"frames must be RGB uint8 (H, W, 3) arrays, got {arr.dtype} {arr.shape}")
    return Image.fromarray(arr, "RGB")


def _fit(img: Image.Image, max_w: int, max_h: int) -> Image.Image:
    """Scale down (never up) to fit in max_w x max_h, keeping the aspect ratio."""
    scale = min(1.0, max_w / img.width, max_h / img.height)
    if scale >= 1.0:
        return img
    size = (max(1, int(img.width * scale)), max(1, int(img.height * scale)))
    return img.resize(size, Image.Resampling.BOX)


def caption_height(panel_h: int) -> int:
    return max(16, min(40, panel_h // 8))


def _caption(draw: ImageDraw.ImageDraw, x: int, y: int, width: int, cap_h: int, text: str):
    """Draw ``text`` centred in the caption strip whose top-left corner is (x, y)."""
    font = _font(max(10, cap_h - 6))
    box = draw.textbbox((0, 0), text, font=font)
    tx = x + (width - (box[2] - box[0])) // 2 - box[0]
    ty = y + (cap_h - (box[3] - box[1])) // 2 - box[1]
    draw.text((tx, ty), text, fill=TEXT, font=font)


def _captioned(img: Image.Image, text: str, cap_h: int) -> Image.Image:
    out = Image.new("RGB", (img.width, img.height + cap_h), BACKGROUND)
    out.paste(img, (0, cap_h))
    _caption(ImageDraw.Draw(out), 0, 0, img.width, cap_h, text)
    return out


def grid_shape(n: int) -> tuple[int, int]:
    """(rows, cols) for n panels: at most 4 per row, rows as balanced as possible."""
    rows = math.ceil(n / 4)
    return rows, math.ceil(n / rows)


def panel_size(frame_w: int, frame_h: int, n: int) -> tuple[int, int]:
    """Pixel size of each panel of an n-frame composite of frame_w x frame_h frames.

    Callers that compose many storyboards from the same frames can pre-scale frames to this
    size once (``composite`` then pastes them as they are).
    """
    rows, cols = grid_shape(n)
    cap = caption_height(min(frame_h, PANEL_MAX_PX))
    avail_w = (COMPOSITE_MAX_PX - GAP_PX * (cols + 1)) / cols
    avail_h = (COMPOSITE_MAX_PX - GAP_PX * (rows + 1)) / rows - cap
    scale = min(1.0, PANEL_MAX_PX / max(frame_w, frame_h), avail_w / frame_w, avail_h / frame_h)
    return max(1, int(frame_w * scale)), max(1, int(frame_h * scale))


def scaled(frame, size: tuple[int, int]) -> Image.Image:
    """``frame`` as an image scaled down (box filter) to fit in ``size``."""
    return _fit(_as_image(frame), *size)


def composite(frames: Sequence, labels: Sequence[str] | None = None) -> Image.Image:
    """One storyboard image of ``frames`` (arrays or images), numbered 1..n unless ``labels``."""
    if not frames:
        raise ValueError("composite needs at least one frame")
    labels = [str(i + 1) for i in range(len(frames))] if labels is None else list(labels)
    if len(labels) != len(frames):
        raise ValueError(f"{len(labels)} labels for {len(frames)} frames")
    imgs = [_as_image(f) for f in frames]
    rows, cols = grid_shape(len(imgs))
    pw, ph = panel_size(max(i.width for i in imgs), max(i.height for i in imgs), len(imgs))
    cap = caption_height(ph)
    width = cols * pw + GAP_PX * (cols + 1)
    height = rows * (ph + cap) + GAP_PX * (rows + 1)
    canvas = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    for k, (img, text) in enumerate(zip(imgs, labels, strict=True)):
        r, c = divmod(k, cols)
        x, y = GAP_PX + c * (pw + GAP_PX), GAP_PX + r * (ph + cap + GAP_PX)
        canvas.paste(_fit(img, pw, ph), (x, y + cap))
        _caption(draw, x, y, pw, cap, text)
    return canvas


def split(frames: Sequence, labels: Sequence[str] | None = None) -> list[Image.Image]:
    """The frames as separate numbered images, each at most ``SPLIT_MAX_PX`` on its long side."""
    if not frames:
        raise ValueError("split needs at least one frame")
    labels = [str(i + 1) for i in range(len(frames))] if labels is None else list(labels)
    if len(labels) != len(frames):
        raise ValueError(f"{len(labels)} labels for {len(frames)} frames")
    out = []
    for frame, text in zip(frames, labels, strict=True):
        img = _as_image(frame)
        cap = caption_height(min(img.height, SPLIT_MAX_PX))
        img = _fit(img, SPLIT_MAX_PX, SPLIT_MAX_PX - cap)
        out.append(_captioned(img, text, cap))
    return out


def choice_panel(current, candidates: Sequence, letters: Sequence[str] = "ABCD") -> Image.Image:
    """Task A: current frame on the left, four lettered candidates (2x2) on the right.

    All five frames are shown at the same scale (the current frame centred vertically), so no
    candidate differs from the current frame by size alone.
    """
    if len(candidates) != 4 or len(letters) != 4:
        raise ValueError(f"a choice panel needs 4 candidates and 4 letters, got {len(candidates)}")
    cur = _as_image(current)
    cands = [_as_image(c) for c in candidates]
    fw = max(i.width for i in [cur, *cands])
    fh = max(i.height for i in [cur, *cands])
    cap = caption_height(min(fh, PANEL_MAX_PX))
    scale = min(
        1.0,
        (COMPOSITE_MAX_PX - 6 * GAP_PX) / (3 * fw),
        (COMPOSITE_MAX_PX - 3 * GAP_PX - 2 * cap) / (2 * fh),
        PANEL_MAX_PX / max(fw, fh),
    )
    pw, ph = max(1, int(fw * scale)), max(1, int(fh * scale))
    cap = caption_height(ph)
    width = 3 * pw + 6 * GAP_PX
    height = 2 * (ph + cap) + 3 * GAP_PX
    canvas = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    y0 = (height - ph - cap) // 2
    canvas.paste(_fit(cur, pw, ph), (GAP_PX, y0 + cap))
    _caption(draw, GAP_PX, y0, pw, cap, "Current")
    # A vertical rule separates the current state from the candidates.
    rule_x = pw + 3 * GAP_PX
    draw.line([(rule_x, GAP_PX), (rule_x, height - GAP_PX)], fill=(160, 160, 160), width=2)
    x0 = pw + 5 * GAP_PX
    for k, (img, letter) in enumerate(zip(cands, letters, strict=True)):
        r, c = divmod(k, 2)
        x, y = x0 + c * (pw + GAP_PX), GAP_PX + r * (ph + cap + GAP_PX)
        canvas.paste(_fit(img, pw, ph), (x, y + cap))
        _caption(draw, x, y, pw, cap, letter)
    return canvas

"""A request's images as their stored encoded bytes, decoded only when a judge reads pixels.

Why: most reference judges (always-yes/no, random, oracle) never look at an image, and an
HTTP judge can send the stored PNG as it is; decoding every image of every row for every judge
costs more than the judging. :class:`LazyImages` is a read-only sequence of RGB PIL
images (what :class:`~gridwm_judge.judges.base.JudgeRequest` promises) that decodes an image on
first access and keeps it, while :meth:`LazyImages.encoded` hands out the stored bytes.

``--max-pixels`` means one thing for every backend: :func:`fit_pixels` scales an image down
(aspect kept) before any backend sees it; ``LazyImages(encoded, max_pixels=N)`` applies it to
the pixels it hands out and re-encodes the bytes of any image it scaled.
"""

from __future__ import annotations

import base64
import io
import struct
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from gridwm_judge.lazy_sequence import LazySequence

if TYPE_CHECKING:
    from PIL import Image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_RGB8 = (8, 2)  # IHDR bit depth 8, colour type 2 (truecolour, no alpha)


def decode_rgb(data: bytes):
    """Encoded image bytes -> a fully loaded RGB PIL image (what a judge reads)."""
    from PIL import Image

    im = Image.open(io.BytesIO(data))
    im.load()
    return im if im.mode == "RGB" else im.convert("RGB")


def _check_max_pixels(max_pixels: int | None) -> None:
    if max_pixels is not None and (isinstance(max_pixels, bool) or int(max_pixels) < 1):
        raise ValueError(f"max_pixels must be a positive pixel count, got {max_pixels!r}")


def fit_pixels(image, max_pixels: int | None):
    """``image`` scaled down (never up, aspect kept, bicubic) to at most ``max_pixels`` pixels."""
    _check_max_pixels(max_pixels)
    if not max_pixels or image.width * image.height <= max_pixels:
        return image
    scale = (max_pixels / (image.width * image.height)) ** 0.5
    size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    return image.resize(size, resample=3)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG header, None for other formats."""
    if data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    return None


class LazyImages(LazySequence["Image.Image"]):
    """The images of one request, in order; ``images[i]`` decodes image i once (thread-safe).

    With ``max_pixels`` every image handed out is scaled by :func:`fit_pixels` first.
    """

    item_name = "image"

    def __init__(self, encoded: Iterable[bytes], max_pixels: int | None = None):
        self._encoded = tuple(bytes(b) for b in encoded)
        self._decoded: list[Any] = [None] * len(self._encoded)
        self._scaled: dict[int, bytes] = {}  # re-encoded bytes of the images fit_pixels scaled
        self._lock = threading.Lock()
        self.max_pixels = max_pixels
        _check_max_pixels(max_pixels)  # now, not at the first image read

    def __len__(self) -> int:
        return len(self._encoded)

    def _item(self, i: int) -> Image.Image:
        with self._lock:
            if self._decoded[i] is None:
                full = decode_rgb(self._encoded[i])
                self._decoded[i] = fit_pixels(full, self.max_pixels)
                if self._decoded[i] is not full:
                    buf = io.BytesIO()
                    self._decoded[i].save(buf, format="PNG")
                    self._scaled[i] = buf.getvalue()
            return self._decoded[i]

    def encoded(self, index: int) -> bytes:
        """The stored bytes of image ``index``, or a lossless PNG of it if it had to be scaled."""
        data = self._encoded[index]
        if not self.max_pixels:
            return data
        size = png_size(data)
        if size is not None and size[0] * size[1] <= self.max_pixels:
            return data  # within the limit: no decoding
        self[index]  # decodes and scales once
        return self._scaled.get(index, data)

    @property
    def decoded_count(self) -> int:
        """How many images have been decoded so far (0 for judges that never read pixels)."""
        return sum(im is not None for im in self._decoded)

    def __repr__(self) -> str:
        return f"LazyImages({len(self)} images, {self.decoded_count} decoded)"


def is_plain_rgb_png(data: bytes) -> bool:
    """True for an 8-bit truecolour PNG without a transparency chunk (read from chunk headers).

    Such a file decodes to exactly the RGB pixels a judge is meant to see, so it can be sent
    as stored; anything else (palette, alpha, 16-bit, other formats) is re-encoded as RGB.
    """
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR" or len(data) < 33:
        return False
    if (data[24], data[25]) != _PNG_RGB8:
        return False
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"tRNS":
            return False
        if kind in (b"IDAT", b"IEND"):
            return True
        pos += 12 + length
    return False


def png_bytes(images: Sequence[Any], index: int) -> bytes:
    """Lossless RGB PNG bytes of image ``index``: the stored file when it already is one."""
    if isinstance(images, LazyImages):
        data = images.encoded(index)
        if is_plain_rgb_png(data):
            return data
    buf = io.BytesIO()
    images[index].convert("RGB").save(buf, format="PNG")
    return buf.getvalue()


def png_data_url(images: Sequence[Any], index: int) -> str:
    """Image ``index`` as a ``data:image/png;base64,...`` URL (lossless, so pixels are exact)."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(images, index)).decode("ascii")

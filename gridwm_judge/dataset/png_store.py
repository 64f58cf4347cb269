"""PNG bytes for the build's images, each distinct image encoded once per build.

Kept apart from ``builder.py`` on purpose: ``datasets`` patches ``open``, ``os.path`` and
``pathlib.Path`` in a builder's module for streaming (``extend_dataset_builder_for_streaming``),
and this module's file reads and writes, thousands per build, should be plain local ones.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import xxhash

PNG_COMPRESS_LEVEL = 6
PNG_COMPRESS_TYPE = 3
"""zlib Z_RLE: MiniGrid frames are flat colour runs, so run-length matching compresses them
as well as the default strategy at a third of the time, and noisy frames (incompressible)
cost little more than Huffman-only."""


class PngCache:
    """PNG bytes per image: per distinct image object (held alive so ids stay unique), then
    per pixel content, shared through ``store`` (a folder) by every shard, config and worker
    process of one build, so an image several rows or configs show (probes that reuse frames,
    Oracle-State's arms, the prompt ablation's styles, a hard CF group's Full) is encoded once.
    PNG encoding is deterministic: a stored encoding is byte for byte a fresh one.

    The content key is a 128-bit xxh3 of the mode, size and pixels: the images are ours, not
    an adversary's, and it costs a fortieth of SHA-256 on a frame."""

    encodes = 0
    """Encodes done in this process (all caches): the benchmark's and tests' counter."""

    def __init__(self, compress_level: int = PNG_COMPRESS_LEVEL,
                 compress_type: int = PNG_COMPRESS_TYPE, store: str | Path | None = None) -> None:
        self.compress_level = compress_level
        self.compress_type = compress_type
        self.store = os.fspath(store) if store is not None else None
        self._cache: dict[int, tuple[Any, dict]] = {}

    def __call__(self, image: Any) -> dict:
        hit = self._cache.get(id(image))
        if hit is not None:
            return hit[1]
        encoded = {"bytes": self._stored(image), "path": None}
        self._cache[id(image)] = (image, encoded)
        return encoded

    def _stored(self, image: Any) -> bytes:
        if self.store is None:
            return self.encode(image)
        digest = xxhash.xxh3_128(f"{image.mode}|{image.size}|".encode())
        digest.update(image.tobytes())
        name = f"{digest.hexdigest()}.png"
        path = os.path.join(self.store, name)
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            data = self.encode(image)
            tmp = os.path.join(self.store, f".{name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # atomic: a concurrent worker reads a whole file or none
            return data

    def encode(self, image: Any) -> bytes:
        """PNG bytes of one image (no cache)."""
        type(self).encodes += 1
        buf = io.BytesIO()
        img = image if image.mode in ("RGB", "L", "RGBA") else image.convert("RGB")
        img.save(buf, format="PNG", compress_level=self.compress_level,
                 compress_type=self.compress_type)
        return buf.getvalue()

    def __len__(self) -> int:
        return len(self._cache)

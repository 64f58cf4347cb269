"""PNG bytes for the build's images, each distinct image encoded once per build.

The build's processes share their encodings through a folder (:class:`PackStore`). Kept apart
from ``builder.py`` on purpose: ``datasets`` patches ``open``, ``os.path`` and
``pathlib.Path`` in a builder's module for streaming (``extend_dataset_builder_for_streaming``),
and this module's file reads and writes, thousands per build, should be plain local ones.
"""

from __future__ import annotations

import io
import os
import secrets
import struct
from pathlib import Path
from typing import Any

import xxhash

PNG_COMPRESS_LEVEL = 6
PNG_COMPRESS_TYPE = 3
"""zlib Z_RLE: MiniGrid frames are flat colour runs, so run-length matching compresses them
as well as the default strategy at a third of the time, and noisy frames (incompressible)
cost little more than Huffman-only."""


class PackStore:
    """PNG bytes by content key, shared by the processes of one build through ``folder``.

    Each store object appends what it encodes to a pack file of its own
    (``<pid>-<random>.pack``, created new) and a fixed-size record (key, offset, length) to its
    ``.idx``, after the bytes, so a whole record always points at bytes already written; a key
    missing from its memory index is looked up again in the other files' new records. (A file
    per image cost 1.2 ms to create on ext4 here, a quarter of an encode; appending costs next
    to nothing.) Two processes that miss the same key at once both encode it, with the same
    bytes."""

    RECORD = struct.Struct("<16sQQ")

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._index: dict[bytes, tuple[str, int, int]] = {}
        self._read: dict[str, int] = {}   # another store's .idx -> bytes of it taken in
        self._own: tuple[int, int, str] | None = None   # pack fd, idx fd, their stem
        self._size = 0

    def get(self, key: bytes) -> bytes | None:
        hit = self._index.get(key)
        if hit is None:
            self._take_in_new_records()
            hit = self._index.get(key)
            if hit is None:
                return None
        name, offset, length = hit
        fd = os.open(os.path.join(self.folder, name), os.O_RDONLY)
        try:
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)

    def put(self, key: bytes, data: bytes) -> None:
        if self._own is None:
            # new files of this object alone: offsets count from 0 whatever was here before
            # (a released store, another object, a process with a reused pid)
            stem = f"{os.getpid()}-{secrets.token_hex(8)}"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            self._own = (os.open(os.path.join(self.folder, f"{stem}.pack"), flags, 0o644),
                         os.open(os.path.join(self.folder, f"{stem}.idx"), flags, 0o644),
                         stem)
        pack, idx, stem = self._own
        _write_all(pack, data)
        _write_all(idx, self.RECORD.pack(key, self._size, len(data)))
        self._index[key] = (f"{stem}.pack", self._size, len(data))
        self._size += len(data)

    def _take_in_new_records(self) -> None:
        own = f"{self._own[2]}.idx" if self._own is not None else ""
        for name in os.listdir(self.folder):
            if not name.endswith(".idx") or name == own:
                continue
            start = self._read.get(name, 0)
            with open(os.path.join(self.folder, name), "rb") as f:
                f.seek(start)
                new = f.read()
            records, taken = self._whole_records(new)
            pack = name[:-len(".idx")] + ".pack"
            for key, offset, length in records:
                self._index.setdefault(key, (pack, offset, length))
            self._read[name] = start + taken

    def close(self) -> None:
        if self._own is not None:
            os.close(self._own[0])
            os.close(self._own[1])
            self._own = None

    @classmethod
    def _whole_records(cls, data: bytes) -> tuple[list[tuple[bytes, int, int]], int]:
        """The whole records at the start of ``data`` and the bytes they take (a record being
        written waits for the next read)."""
        whole = len(data) - len(data) % cls.RECORD.size
        return list(cls.RECORD.iter_unpack(data[:whole])), whole

    @classmethod
    def count(cls, folder: str | Path) -> int:
        """Distinct images stored in ``folder``."""
        keys = set()
        for idx in Path(folder).glob("*.idx"):
            keys.update(k for k, _, _ in cls._whole_records(idx.read_bytes())[0])
        return len(keys)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_STORES: dict[tuple[str, int], PackStore] = {}
"""This process's store per folder (keyed by pid too: a forked child starts its own)."""


def pack_store(folder: str | Path) -> PackStore:
    """This process's :class:`PackStore` for ``folder``."""
    key = (os.path.realpath(folder), os.getpid())
    if key not in _STORES:
        _STORES[key] = PackStore(key[0])
    return _STORES[key]


def release(folder: str | Path) -> None:
    """Close this process's files of ``folder``'s store and forget it (the build is over)."""
    store = _STORES.pop((os.path.realpath(folder), os.getpid()), None)
    if store is not None:
        store.close()


class PngCache:
    """PNG bytes per image: per distinct image object (held alive so ids stay unique), then
    per pixel content, shared through ``store`` (a folder, :class:`PackStore`) by every shard,
    config and worker process of one build, so an image several rows or configs show (probes
    that reuse frames, Oracle-State's arms, the prompt ablation's styles, a hard CF group's
    Full) is encoded once.
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
        key = digest.digest()
        store = pack_store(self.store)
        data = store.get(key)
        if data is None:
            data = self.encode(image)
            store.put(key, data)
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

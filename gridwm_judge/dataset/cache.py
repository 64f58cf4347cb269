"""This package's Arrow copies in the ``datasets`` cache: what they hold and clearing them.

Reading a local dataset (``eval``, ``score``, ``report``) stores an Arrow copy of each config in
``HF_DATASETS_CACHE/gridwm-judge/<content hash>`` (``dataset_io``), and ``datasets`` never
removes them: after the documented workflows they held 2.4 GB. A process reading a copy
holds a shared lock on ``<copy>.lock`` until it exits; clearing takes the lock exclusively,
copy by copy, and leaves alone the copies someone holds.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from gridwm_judge.dataset_io import cached_copy_lock, package_cache_root
from gridwm_judge.locks import try_lock


@dataclass(frozen=True)
class CachedCopy:
    path: Path
    bytes: int
    in_use: bool
    what: str
    """``<dataset folder name>/<config>`` as ``datasets`` filed it ("" when unknown)."""


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _what(path: Path) -> str:
    for folder in sorted(p for p in path.iterdir() if p.is_dir()):
        configs = sorted(p.name for p in folder.iterdir() if p.is_dir())
        return f"{folder.name}/{configs[0]}" if configs else folder.name
    return ""


def copies(root: Path | None = None) -> list[CachedCopy]:
    """Every cached copy under ``root`` (default: this package's folder), largest first."""
    root = package_cache_root() if root is None else root
    if not root.is_dir():
        return []
    out = []
    for path in sorted(p for p in root.iterdir() if p.is_dir()):
        lock = try_lock(cached_copy_lock(path))
        if lock is not None:
            lock.release()
        out.append(CachedCopy(path, _size(path), in_use=lock is None, what=_what(path)))
    return sorted(out, key=lambda c: -c.bytes)


def clear(found: list[CachedCopy]) -> tuple[list[CachedCopy], list[CachedCopy]]:
    """Delete the copies nobody holds; (removed, left because in use)."""
    removed, left = [], []
    for c in found:
        lock = cached_copy_lock(c.path)
        held = try_lock(lock)
        if held is None:
            left.append(c)
            continue
        try:
            shutil.rmtree(c.path, ignore_errors=True)
            lock.unlink(missing_ok=True)
        finally:
            held.release()
        removed.append(c)
    return removed, left

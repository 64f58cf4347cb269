"""Write files all at once or not at all: a temporary name beside the target, then a rename.

A full disk, a kill or Ctrl-C mid-write leaves the previous file (or none) in place, never a
half-written one; the temporary file is removed on any failure. The rename is atomic on POSIX
and Windows because the temporary file lives in the target's own folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """A file handle on a temporary sibling of ``path``; renamed onto ``path`` on success."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files; mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if mode == "wb" else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it private; a plain file should not be
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """``Path.write_text``, atomically."""
    with atomic_open(path, "w", encoding) as fh:
        fh.write(text)


def write_bytes(path: str | Path, data: bytes) -> None:
    """``Path.write_bytes``, atomically."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def check_out_dir(out: str | Path, overwrite: bool, *, ours: tuple[str, ...], what: str,
                  inputs: tuple[Path, ...] = ()) -> None:
    """Refuse an output folder that would lose somebody's files: a file, a non-empty folder
    without ``overwrite``, and even with it a folder this tool did not write (one lacking any
    of the ``ours`` entries), the current folder, or a folder that holds one of ``inputs``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is a file; give a folder for --out")
    if not (out.is_dir() and any(out.iterdir())):
        return
    if not overwrite:
        raise FileExistsError(f"{out} exists and is not empty; pass --overwrite to replace it")
    here = out.resolve()
    held = [p for p in inputs if here == p.resolve() or here in p.resolve().parents]
    if here == Path.cwd().resolve() or held:
        which = f"holds the input {str(held[0])!r}" if held else "is the current folder"
        raise FileExistsError(f"--overwrite would replace {out}, which {which}; "
                              "give another --out")
    missing = [m for m in ours if not (out / m).exists()]
    if missing:
        raise FileExistsError(f"--overwrite replaces only a {what} written by gridwm-judge; "
                              f"{out} has no {missing[0]}, so it is left alone: give another "
                              "--out")


def make_folder(path: str | Path) -> list[Path]:
    """Make ``path`` with any missing parents; the folders made, deepest first (for
    :func:`remove_made`)."""
    path = Path(path)
    made = [p for p in (path, *path.parents) if not p.exists()]
    path.mkdir(parents=True, exist_ok=True)
    return made


def remove_made(made: list[Path]) -> None:
    """Remove the folders :func:`make_folder` made, deepest first, each only while empty: a
    refused or failed command leaves no folder it created, and one holding finished work stays
    with its parents."""
    for folder in made:
        try:
            folder.rmdir()
        except FileNotFoundError:  # removed already
            continue
        except OSError:  # not empty
            break


@contextlib.contextmanager
def new_folder(path: str | Path) -> Iterator[Path]:
    """``path``, made with any missing parents, which are removed again if the body raises
    (:func:`remove_made`)."""
    made = make_folder(path)
    try:
        yield Path(path)
    except BaseException:
        remove_made(made)
        raise


def replace_dir(stage: str | Path, out: str | Path) -> None:
    """Move a finished staging folder onto ``out``: an existing ``out`` is set aside first and
    removed after, so ``out`` is always either the old folder or the new one."""
    stage, out = Path(stage), Path(out)
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{time.time_ns()}")
        out.rename(old)
    stage.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask is process-wide, not thread-safe

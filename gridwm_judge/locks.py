"""Advisory locks between this package's processes, released by the OS when a holder ends
(even by ``kill -9``).

Exclusive locks are ``filelock.FileLock`` (``flock`` on Unix, ``LockFileEx`` on Windows), tried
once: a command that finds its lock held says so instead of waiting. The shared hold on a
cached dataset copy is a plain ``flock(LOCK_SH)``: filelock's only shared lock is its SQLite
``ReadWriteLock``, a different kind of lock that an exclusive ``FileLock`` does not see.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout


def try_lock(path: str | Path) -> FileLock | None:
    """``path`` locked exclusively by this process, or None when another process holds it.

    The lock file stays when released: deleting it would let a second process lock a new
    file while a third still holds the old one.
    """
    lock = FileLock(path, timeout=0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        return None
    return lock


def hold_shared(path: str | Path) -> int | None:
    """Wait for, then hold a shared lock on ``path`` until the returned descriptor is closed
    (or the process ends). Any number of processes share it; it keeps :func:`try_lock` out.
    None where the platform has no ``flock`` (Windows): nothing is held there."""
    try:
        import fcntl
    except ImportError:
        return None
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except BaseException:
        os.close(fd)
        raise
    return fd

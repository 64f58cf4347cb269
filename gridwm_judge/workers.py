"""Worker processes die with their parent, even on ``kill -9``, and leave Ctrl-C to it.

A process pool's workers outlive a parent killed with ``kill -9`` (they hold gigabytes and
keep computing), and Ctrl-C, sent to the whole foreground process group, makes each worker
print its own traceback. :func:`init_worker` fixes both in a worker: on Linux the kernel
sends it SIGKILL when its parent ends (``PR_SET_PDEATHSIG``); elsewhere a daemon thread
exits it when its parent pid changes; and on SIGINT it exits at once, silently, or ignores
it where its parent's pool must keep its workers, so only the parent reports Ctrl-C (and
stops a pool it still holds with :func:`stop_pool`).

Pass ``initializer=init_worker`` to pools this package creates; pools created inside
libraries (``datasets``' ``multiprocess.Pool``) are covered by :func:`workers_die_with_parent`,
which runs :func:`init_worker` in every child forked while it is active. A worker that makes
image after image also calls :func:`keep_freed_memory`.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from typing import TypeVar

PR_SET_PDEATHSIG = 1
_WATCH_S = 0.5
_state = {"active": 0, "quiet": 0, "parent": None}


def init_worker(parent_pid: int | None = None, kernel_signal: bool = True,
                quiet_ctrl_c: bool = True) -> None:
    """Make this process end when its parent does, and leave Ctrl-C to the parent.

    Ctrl-C reaches the whole foreground process group. With ``quiet_ctrl_c`` the worker exits
    at once without a traceback (for a pool the parent stops with :func:`stop_pool`, as the
    build does). Without it the worker ignores Ctrl-C and its parent stops the pool: what has
    not started is cancelled and the running tasks finish. A worker that died instead would
    print a traceback when idle in its queue, and would break its pool while the parent
    cancels the futures: on Python < 3.12 the pool's thread then races the cancellation and
    prints an InvalidStateError. (An ignored Ctrl-C outlives ``exec``: a program such a worker
    started would ignore it too; no worker of this package starts one.) ``kernel_signal`` False
    uses the parent-watch thread only: the kernel signal fires when the *thread* that forked
    the worker ends, which is too early for a child forked from a short-lived thread.
    """
    parent = parent_pid if parent_pid is not None else os.getppid()
    signal.signal(signal.SIGINT, _quiet_exit if quiet_ctrl_c else signal.SIG_IGN)
    if not (kernel_signal and _pdeathsig()):
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="gwj-parent").start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def _quiet_exit(signum, frame) -> None:
    os._exit(128 + signum)


def _linux_libc(function: str):
    """``function`` of this process's C library on Linux; None elsewhere or where that
    library lacks it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), function)
    except (OSError, AttributeError):
        return None


def _pdeathsig() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where unavailable."""
    prctl = _linux_libc("prctl")
    return prctl is not None and prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""glibc's ``mallopt`` parameters (malloc.h)."""
MMAP_BYTES = 32 << 20
"""Blocks below this come from the heap, not mmap (glibc's largest threshold on 64-bit)."""
KEEP_BYTES = 128 << 20
"""Free heap top held back from the kernel (32 MiB already gave the base build's fewest
faults; the default, 128 KiB, a third more)."""


def keep_freed_memory() -> bool:
    """Keep memory this process frees for its next allocations; False where glibc's
    ``mallopt`` is missing (another libc or platform: nothing changes).

    glibc returns freed blocks of over 128 KiB (and then its heap's free top) to the kernel,
    and a worker that frees and allocates image buffers all build long faults them in again,
    zeroed, a page at a time: kernel time the PNG encoding does not pay. With this and the
    64 MiB frame cache a base build's row workers took 250,000 page faults instead of 530,000
    (this alone: 360,000). For worker processes, whose allocator settings are no one else's.
    """
    mallopt = _linux_libc("mallopt")
    return mallopt is not None and bool(mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, KEEP_BYTES))


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_S)
    os._exit(1)


def _before_fork() -> None:
    _state["parent"] = os.getpid()
    _state["main_thread"] = threading.current_thread() is threading.main_thread()


def _after_fork_in_child() -> None:
    if _state["active"]:
        quiet = bool(_state["quiet"])
        _state["active"] = _state["quiet"] = 0  # a worker's own children are not covered
        init_worker(_state["parent"], kernel_signal=bool(_state.get("main_thread")),
                    quiet_ctrl_c=quiet)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def workers_die_with_parent(quiet_ctrl_c: bool = False) -> Iterator[None]:
    """While active, every child forked by this process runs :func:`init_worker`; on Ctrl-C
    the ``multiprocessing`` children started meanwhile and still alive are killed.

    Covers process pools made inside libraries (``datasets.Builder.download_and_prepare``
    with ``num_proc``) and pools of this package that do not pass the initializer. The
    command line keeps it active for the whole command. (Pools started with ``spawn`` or
    ``forkserver`` are not forked from here: they need ``initializer=init_worker``.)
    ``quiet_ctrl_c`` makes those children exit silently on Ctrl-C (see :func:`init_worker`).
    The kill: a worker forked in the instant Ctrl-C arrived never got the signal, and its
    pool may not have started the thread that would stop it, so it would wait for work, and
    Python's exit (``multiprocessing`` joins its children) for it, forever.
    """
    before = set(multiprocessing.active_children())
    _state["active"] += 1
    _state["quiet"] += bool(quiet_ctrl_c)
    try:
        yield
    except KeyboardInterrupt:
        for child in set(multiprocessing.active_children()) - before:
            with contextlib.suppress(Exception):
                child.kill()
        raise
    finally:
        _state["active"] -= 1
        _state["quiet"] -= bool(quiet_ctrl_c)


E = TypeVar("E", bound=Executor)


@contextlib.contextmanager
def owned_pool(executor: E) -> Iterator[E]:
    """Use ``executor`` (a ``ProcessPoolExecutor``) for a block: when the block ends it waits
    for the workers to finish; on Ctrl-C or an error it stops them now (:func:`stop_pool`)
    instead of waiting for their tasks."""
    try:
        yield executor
    except BaseException:
        stop_pool(executor)
        raise
    executor.shutdown()


def stop_pool(executor) -> None:
    """Stop a ``ProcessPoolExecutor`` now: kill its workers, do not wait for their tasks.

    ``shutdown(wait=True)`` would wait for every running task. Futures are not cancelled:
    the pool marks them broken itself, and cancelling them races that on Python < 3.12
    (an InvalidStateError traceback from the pool's thread).
    """
    kill = getattr(executor, "kill_workers", None)  # Python >= 3.14
    if kill is not None:
        kill()
    else:
        for proc in list((getattr(executor, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                proc.kill()
    executor.shutdown(wait=False)

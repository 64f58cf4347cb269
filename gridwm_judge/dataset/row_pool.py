"""One pool of worker processes builds every config's rows for the whole build.

With datasets' own ``num_proc`` each config forks a fresh pool: its workers start cold (render
and tile caches, allocator), both wait at the config's end for the slower one, and the next
config's pool starts after that. Here ``num_proc`` workers, started once, build and encode
the shards of every config one after another (``builder.shard_rows``), up to ``ahead`` shards
in advance and across config boundaries, while the main process writes each config's Parquet
from their results in shard order: the rows and their order are those of any other build.
"""

from __future__ import annotations

import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Any

from gridwm_judge.workers import init_worker

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""glibc's ``mallopt`` parameters (malloc.h)."""
KEEP_BYTES = 1 << 30
MMAP_BYTES = 32 << 20
"""Heap held back from the kernel (trim threshold) and the block size below which glibc
serves allocations from the heap (its largest mmap threshold on 64-bit)."""


def init_row_worker() -> None:
    """A row worker's initializer: :func:`init_worker`, and memory freed stays for reuse.

    A worker frees and allocates image buffers all build long; glibc hands large blocks and
    the heap's top back to the kernel and faults them in again, zeroed, a page at a time.
    Keeping them halved a base build's page faults in the workers here (530,000 to 250,000
    with the smaller frame cache), kernel time that the encode floor does not pay. Only
    where glibc's ``mallopt`` exists; the process is ours, its settings no one else's."""
    init_worker()
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):   # not glibc
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
    mallopt(M_TRIM_THRESHOLD, KEEP_BYTES)


class RowPool:
    """Shards of the build's configs, submitted to ``executor`` in the order given.

    ``jobs``: ``(config, shard, kwargs)`` in build order; ``build(shard, **kwargs)`` (run in a
    worker) returns a shard's rows as a list. :meth:`shards` gives a config's results in order
    (none for a config without shards); configs must be asked for in the order of ``jobs``."""

    def __init__(self, executor: Executor, build: Callable[..., list[dict]],
                 jobs: Iterable[tuple[str, Any, dict[str, Any]]], ahead: int) -> None:
        if ahead < 1:
            raise ValueError(f"ahead must be >= 1, got {ahead}")
        jobs = list(jobs)
        self._executor = executor
        self._build = build
        self._left = Counter(config for config, _, _ in jobs)
        self._jobs = iter(jobs)
        self._ahead = ahead
        self._window: deque[tuple[str, Future]] = deque()

    def _top_up(self) -> None:
        while len(self._window) < self._ahead:
            job = next(self._jobs, None)
            if job is None:
                return
            config, shard, kwargs = job
            self._window.append((config, self._executor.submit(self._build, shard, **kwargs)))

    def shards(self, config: str) -> Iterator[list[dict]]:
        """The rows of each of ``config``'s shards, in order, as the workers finish them."""
        if not self._left[config]:
            return
        self._top_up()
        if not self._window or self._window[0][0] != config:
            ahead = self._window[0][0] if self._window else "no config"
            raise RuntimeError(f"the row pool was asked for {config!r}; {ahead} comes next")
        while self._window and self._window[0][0] == config:
            _, future = self._window.popleft()
            self._left[config] -= 1
            self._top_up()   # the workers go on with the next shards while these are written
            yield future.result()

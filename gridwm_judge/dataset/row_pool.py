"""One pool of worker processes builds every config's rows for the whole build.

With datasets' own ``num_proc`` each config forks a fresh pool: its workers start cold (render
and tile caches, allocator), both wait at the config's end for the slower one, and the next
config's pool starts after that. Here ``num_proc`` workers, started once, build and encode
the shards of every config one after another (``builder.shard_rows``), up to ``ahead`` shards
in advance and across config boundaries, while the main process writes each config's Parquet
from their results in shard order: the rows and their order are those of any other build.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Any

from gridwm_judge.workers import init_worker, keep_freed_memory


def init_row_worker() -> None:
    """A row worker's initializer: it dies with the build (:func:`init_worker`) and reuses
    the image buffers it frees (:func:`keep_freed_memory`)."""
    init_worker()
    keep_freed_memory()


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

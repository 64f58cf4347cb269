"""The build's row pool: every config's shards built by one set of workers, handed back in
build order whatever order the workers finish them in, never more than ``ahead`` waiting."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gridwm_judge.dataset.row_pool import RowPool


def _rows(shard: int, *, config: str, delay: float) -> list[dict]:
    time.sleep(delay * (shard % 3))   # later shards of a config often finish first
    return [{"config": config, "shard": shard}]


class _Counting(ThreadPoolExecutor):
    """Counts the jobs submitted and not yet taken back."""

    def __init__(self) -> None:
        super().__init__(max_workers=3)
        self.lock = threading.Lock()
        self.submitted = 0

    def submit(self, *args, **kwargs):
        with self.lock:
            self.submitted += 1
        return super().submit(*args, **kwargs)


def _jobs(config: str, n: int, delay: float):
    return [(config, i, {"config": config, "delay": delay}) for i in range(n)]


def test_each_config_gets_its_shards_in_order_and_the_window_stays_bounded():
    with _Counting() as ex:
        pool = RowPool(ex, _rows, [*_jobs("task_c", 7, 0.01), *_jobs("task_d", 4, 0.005)],
                       ahead=3)
        taken = 0
        got = {}
        for config in ("task_c", "task_d"):
            got[config] = []
            for rows in pool.shards(config):
                taken += 1
                assert ex.submitted - taken == min(3, 11 - taken)   # a full window waits
                got[config] += [r["shard"] for r in rows if r["config"] == config]
        assert got == {"task_c": list(range(7)), "task_d": list(range(4))}
        assert ex.submitted == 11


def test_the_next_config_is_already_being_built_while_one_is_written():
    with _Counting() as ex:
        pool = RowPool(ex, _rows, [*_jobs("a", 1, 0), *_jobs("b", 2, 0)], ahead=4)
        assert next(iter(pool.shards("a"))) == [{"config": "a", "shard": 0}]
        assert ex.submitted == 3   # b's shards were submitted before a's rows were written


def test_asking_out_of_order_is_an_error_that_names_both():
    with ThreadPoolExecutor(1) as ex:
        pool = RowPool(ex, _rows, [*_jobs("task_c", 1, 0), *_jobs("task_d", 1, 0)], ahead=2)
        with pytest.raises(RuntimeError, match="asked for 'task_d'; task_c comes next"):
            next(iter(pool.shards("task_d")))
    with pytest.raises(ValueError, match="ahead must be >= 1, got 0"):
        RowPool(ThreadPoolExecutor(1), _rows, [], ahead=0)


def test_a_config_without_shards_gets_none_and_the_next_one_its_own():
    with ThreadPoolExecutor(1) as ex:
        pool = RowPool(ex, _rows, _jobs("task_d", 2, 0), ahead=2)
        assert list(pool.shards("task_c")) == []   # a config with no groups: no shards
        assert [r["shard"] for rows in pool.shards("task_d") for r in rows] == [0, 1]
        assert list(pool.shards("task_d")) == []


_HELD = """
import ctypes, os, sys
from gridwm_judge.dataset.row_pool import init_row_worker
if sys.argv[1] == "row_worker":
    init_row_worker()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def rss_kib():
    pages = int(open("/proc/self/statm").read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024
before = rss_kib()
block = libc.malloc(16 << 20)
ctypes.memset(block, 1, 16 << 20)
libc.free(block)
print(rss_kib() - before)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc" or not sys.platform.startswith("linux"),
                    reason="glibc's mallopt")
def test_a_row_worker_keeps_what_it_frees_for_its_next_images():
    """A 16 MiB image buffer freed by a row worker stays in the process for the next one
    (re-faulting it page by page cost the workers seconds of kernel time per build); a plain
    process with glibc's defaults hands it back to the kernel at once."""
    env = {k: v for k, v in os.environ.items()   # glibc's defaults, glibc's malloc
           if not k.startswith("MALLOC_") and k not in ("GLIBC_TUNABLES", "LD_PRELOAD")}

    def held_kib(mode):
        out = subprocess.run([sys.executable, "-c", _HELD, mode], capture_output=True,
                             text=True, check=True, env=env)
        return int(out.stdout.split()[-1])

    assert held_kib("row_worker") >= 15 << 10
    assert held_kib("plain") < 1 << 10

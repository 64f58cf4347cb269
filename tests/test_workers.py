"""Worker lifetimes on Ctrl-C, in real forked processes: a worker of a pool its parent stops
itself ignores Ctrl-C (it neither dies nor prints), and a worker that never got the signal does
not keep the command alive (a process the command did not start is left alone)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from gridwm_judge.workers import init_worker, workers_die_with_parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
CTX = multiprocessing.get_context("fork")


def _idle_worker(queue, ready) -> None:
    init_worker(quiet_ctrl_c=False)  # as the groups command's pool workers
    ready.set()
    while queue.get() is not None:  # idle, as a pool worker waiting for work
        pass


def test_ctrl_c_leaves_an_idle_worker_to_its_parent(capfd):
    queue, ready = CTX.Queue(), CTX.Event()
    worker = CTX.Process(target=_idle_worker, args=(queue, ready))
    worker.start()
    assert ready.wait(30)
    os.kill(worker.pid, signal.SIGINT)
    worker.join(0.5)
    assert worker.is_alive()  # no dead worker to break the pool the parent is stopping
    queue.put(None)  # the parent stops it: it ends normally
    worker.join(30)
    assert worker.exitcode == 0
    err = capfd.readouterr().err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_ctrl_c_kills_the_workers_a_command_started_and_only_those():
    older = CTX.Process(target=time.sleep, args=(600,))  # not daemonic: exit would join it
    older.start()
    try:
        with pytest.raises(KeyboardInterrupt), workers_die_with_parent():
            missed = CTX.Process(target=time.sleep, args=(600,))  # never got the signal
            missed.start()
            raise KeyboardInterrupt
        start = time.monotonic()
        missed.join(30)
        assert missed.exitcode == -signal.SIGKILL and time.monotonic() - start < 30
        assert older.is_alive()  # not the command's: left to its owner
    finally:
        older.kill()
        older.join(30)


def test_keeping_freed_memory_changes_nothing_where_glibc_is_missing(monkeypatch):
    import gridwm_judge.workers as workers

    monkeypatch.setattr(workers.sys, "platform", "darwin")
    assert workers.keep_freed_memory() is False

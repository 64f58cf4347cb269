"""Worker lifetimes on Ctrl-C, in real forked processes: a worker of a pool its parent stops
itself ignores Ctrl-C (it neither dies nor prints), and a worker that never got the signal does
not keep the command alive."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from gridwm_judge.workers import init_worker, kill_remaining_workers

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


def test_a_worker_that_missed_ctrl_c_is_killed_not_waited_for():
    worker = CTX.Process(target=time.sleep, args=(600,))  # not daemonic: exit would join it
    worker.start()
    start = time.monotonic()
    kill_remaining_workers()
    worker.join(30)
    assert worker.exitcode == -signal.SIGKILL and time.monotonic() - start < 30
    assert worker not in multiprocessing.active_children()

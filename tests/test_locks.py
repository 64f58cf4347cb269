"""Locks between processes: an exclusive lock is refused while another process holds it, a
shared hold keeps it out, and the OS frees both when the holder is killed (kill -9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from gridwm_judge.locks import hold_shared, try_lock

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock holders are Unix")


def _holder(path, how: str) -> subprocess.Popen:
    """A process holding ``path`` (``how``: try_lock or hold_shared) until it is killed."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from gridwm_judge.locks import {how}
        held = {how}({str(path)!r})
        print("held" if held is not None else "refused", flush=True)
        time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.mark.parametrize("how", ["try_lock", "hold_shared"])
def test_a_held_lock_is_refused_until_its_holder_is_killed(tmp_path, how):
    path = tmp_path / "x.lock"
    proc = _holder(path, how)
    try:
        assert try_lock(path) is None
    finally:
        _kill(proc)
    lock = try_lock(path)
    assert lock is not None
    lock.release()
    assert path.exists()  # kept: a new file would let two processes hold "the" lock


def test_shared_holds_share_and_an_exclusive_lock_keeps_them_waiting(tmp_path):
    path = tmp_path / "copy.lock"
    proc = _holder(path, "hold_shared")
    try:
        fd = hold_shared(path)  # a second reader joins at once
        assert fd is not None
        os.close(fd)
    finally:
        _kill(proc)
    lock = try_lock(path)
    assert lock is not None
    try:
        waiter = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            from gridwm_judge.locks import hold_shared
            hold_shared({str(path)!r})
            print("held", flush=True)
            """)], stdout=subprocess.PIPE, text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            waiter.wait(timeout=1)  # blocked behind the exclusive lock
    finally:
        lock.release()
    out, _ = waiter.communicate(timeout=30)
    assert out.strip() == "held"

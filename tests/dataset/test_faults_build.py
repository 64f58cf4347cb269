"""A build killed or interrupted mid-way: no worker survives, nothing half-written stays, and
the next build into the same place removes what a killed one left. Real builds, real signals."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import STAGE_LOCK, build_dataset, remove_dead_stages

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
slow = pytest.mark.slow


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    """Any thread of ``pid`` not yet dead: a killed process's main thread shows as a zombie
    while its other threads (pyarrow's) still hold its open files, the stage's lock included."""
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] not in "ZX":
                return True
        except OSError:
            continue
    return False


def _lock_free(stage: Path) -> bool:
    fd = os.open(stage / STAGE_LOCK, os.O_WRONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _start_build(out: Path, stage_has: str | None = None, printed: str | None = None,
                 **popen):
    """A base build with 2 workers, returned once its worker processes exist (and, with
    ``stage_has``, once its staging folder holds that path; with ``printed``, once it has
    printed that line: a later stage, reached sooner by building alone the config the path
    names, or task_a for ``printed``)."""
    config = Path(stage_has).name.split(".")[0] if stage_has else "task_a" if printed else None
    configs = ["--configs", config] if config else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridwm_judge", "build", "--profile", "base", "--out", str(out),
         "--num-proc", "2", *configs],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **popen)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    deadline = time.monotonic() + 180

    def ready() -> bool:
        if stage_has and not list(out.parent.glob(f".{out.name}.building-*/{stage_has}")):
            return False
        if printed and not any(line.startswith(printed) for line in list(lines)):
            return False
        return len(_children(proc.pid)) >= 2

    while not ready():
        assert proc.poll() is None, f"build ended early: {''.join(lines)[-2000:]}"
        assert time.monotonic() < deadline, "the build started no worker"
        time.sleep(0.02)
    return proc, _children(proc.pid)


def _wait_dead(pids: list[int], limit_s: float) -> float:
    start = time.monotonic()
    while any(_alive(p) for p in pids) and time.monotonic() - start < limit_s:
        time.sleep(0.02)
    return time.monotonic() - start


@slow
# the ceilings pool is reached through task_a (its least-change shortcut has a ceiling) and
# started after the build prints its line (task_a's row workers, seen once its rows are
# written, may be exiting): base's task_a is written in about 5 s here, task_c in about 13 s,
# and either's pool runs > 1 s
@pytest.mark.parametrize("stage_has, printed", [
    (None, None), (".prepared/task_c.incomplete", None),
    (None, "measuring the shortcut ceilings")],
    ids=["generation-pool", "rows-pool", "ceilings-pool"])
def test_kill_9_of_a_build_kills_its_workers_and_the_next_build_cleans_up(tmp_path, stage_has,
                                                                           printed):
    out = tmp_path / "ds"
    proc, workers = _start_build(out, stage_has, printed)
    assert workers and all(_alive(p) for p in workers)
    proc.kill()
    proc.wait(timeout=10)
    took = _wait_dead(workers, 10)
    print(f"kill -9 of build ({stage_has or printed or 'generation'}): {len(workers)} workers gone "
          f"after {took:.2f} s")
    assert not [p for p in workers if _alive(p)], "workers outlived their killed parent"
    stages = list(tmp_path.glob(".ds.building-*"))
    assert len(stages) == 1 and not out.exists()  # what the killed build left
    # every process that held the lock (workers forked after the snapshot too) is gone
    deadline = time.monotonic() + 10
    while not _lock_free(stages[0]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _lock_free(stages[0]), "a process of the killed build still holds its stage"

    # the next build (one small config: what it builds does not matter) cleans up
    assert main(["build", "--profile", "smoke", "--configs", "task_b", "--out", str(out),
                 "--num-proc", "1"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]
    assert (out / "README.md").is_file() and not (out / STAGE_LOCK).exists()


@slow
def test_ctrl_c_in_build_is_one_line_and_leaves_nothing(tmp_path):
    out = tmp_path / "new" / "ds"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridwm_judge", "build", "--profile", "base", "--out", str(out),
         "--num-proc", "2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True)
    while len(_children(proc.pid)) < 2:
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        time.sleep(0.05)
    workers = _children(proc.pid)
    start = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, err = proc.communicate(timeout=60)
    print(f"Ctrl-C in build: exit {proc.returncode} after {time.monotonic() - start:.2f} s")
    assert proc.returncode == 130
    lines = err.decode().strip().splitlines()
    assert lines == ["gridwm-judge build: interrupted; nothing half-written is left"], err.decode()
    assert _wait_dead(workers, 5) < 5
    assert not (tmp_path / "new").exists()  # not even the folder it made for --out


def test_a_live_build_keeps_its_staging_folder(tmp_path):
    out = tmp_path / "ds"
    live, dead, legacy_old, legacy_new = (tmp_path / f".ds.building-{n}"
                                          for n in ("live", "dead", "old", "new"))
    for d in (live, dead, legacy_old, legacy_new):
        d.mkdir()
        (d / "data.bin").write_bytes(b"x")
    for d in (live, dead):
        (d / STAGE_LOCK).touch()
    os.utime(legacy_old, (time.time() - 3600, time.time() - 3600))
    aside = tmp_path / ".ds.old-123"
    aside.mkdir()
    fd = os.open(live / STAGE_LOCK, os.O_WRONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        removed = remove_dead_stages(out)
    finally:
        os.close(fd)
    assert sorted(p.name for p in removed) == sorted([dead.name, legacy_old.name, aside.name])
    assert live.exists() and legacy_new.exists()


def test_a_stage_still_locked_when_a_build_starts_is_removed_when_it_ends(tmp_path):
    """A killed build's last threads can hold its lock a moment after it is killed: the next
    build keeps the stage at its start, and removes it once it has finished."""
    out = tmp_path / "ds"
    dying = tmp_path / ".ds.building-dying"
    dying.mkdir()
    fd = os.open(dying / STAGE_LOCK, os.O_WRONLY | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    seen = []

    def release(line: str) -> None:
        if fd not in seen:
            seen.append(fd)
            assert dying.exists()  # kept while held
            os.close(fd)

    build_dataset(out, "smoke", configs=["task_b"], progress=release)
    assert seen and sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_a_refused_build_creates_nothing(tmp_path, capsys):
    target = tmp_path / "a" / "b"
    assert main(["build", "--profile", "nope", "--out", str(target)]) == 2
    assert main(["build", "--profile", "smoke", "--configs", "task_z", "--out", str(target)]) == 2
    assert main(["build", "--profile", "smoke", "--seed", "-1", "--out", str(target)]) == 2
    assert list(tmp_path.iterdir()) == []
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("gridwm-judge build: error:") for line in err)


def test_kill_9_of_any_command_kills_its_workers(tmp_path):
    """`groups` makes its own process pool (the MiniGrid world's, no initializer): the command
    line covers it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridwm_judge", "groups", "--family", "all", "--n", "40",
         "--num-proc", "2", "--out", str(tmp_path / "g.jsonl")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(_children(proc.pid)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "groups started no worker"
        time.sleep(0.05)
    time.sleep(0.3)
    workers = _children(proc.pid)
    assert workers and all(_alive(p) for p in workers)
    proc.kill()
    proc.wait(timeout=10)
    took = _wait_dead(workers, 10)
    print(f"kill -9 of groups: {len(workers)} workers gone after {took:.2f} s")
    assert not [p for p in workers if _alive(p)], "workers outlived their killed parent"


def test_ctrl_c_in_groups_is_one_line(tmp_path):
    """A pool this package does not build (the MiniGrid world's) under Ctrl-C: one line, no
    worker traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridwm_judge", "groups", "--family", "all", "--n", "40",
         "--num-proc", "2", "--out", str(tmp_path / "g.jsonl")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    while len(_children(proc.pid)) < 2:
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        time.sleep(0.02)
    workers = _children(proc.pid)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip().splitlines() == [
        "gridwm-judge groups: interrupted; nothing half-written is left"], err.decode()
    assert _wait_dead(workers, 5) < 5
    assert not (tmp_path / "g.jsonl").exists()

"""A full disk: every command says what failed where in one line, exits non-zero, and leaves
earlier results whole. Simulated three ways: a patched write raising ENOSPC, a file-size
limit (RLIMIT_FSIZE, real EFBIG from the kernel, no root needed) and a tiny tmpfs (root)."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge import atomic
from gridwm_judge.cli import main
from gridwm_judge.runner import store as store_mod
from gridwm_judge.runner.store import PredictionStore, write_run_manifest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _eval(smoke, run) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress", "--tasks", "all",
            "--judge", "baseline:pixel-heuristic"]


def _records(run: Path) -> list[dict]:
    text = (run / "predictions.jsonl").read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "a partial line was left"
    return [json.loads(line) for line in text.splitlines()]


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_disk_full_mid_eval_is_one_line_and_keeps_whole_rows(smoke, tmp_path, monkeypatch,
                                                             capsys):
    run = tmp_path / "full"
    real_write, calls = os.write, []

    def write(fd, data):
        calls.append(fd)
        if len(calls) > 5:  # the disk fills after 5 rows; this write lands half a line
            real_write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", str(run / "predictions.jsonl"))
        return real_write(fd, data)

    monkeypatch.setattr(store_mod.os, "write", write)
    assert main(_eval(smoke, run)) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("gridwm-judge eval: error: No space left on device (")
    assert "predictions.jsonl" in line and "free some space and rerun" in line
    assert len(_records(run)) == 5  # the half line was cut, the 5 finished rows are whole
    monkeypatch.setattr(store_mod.os, "write", real_write)
    assert main(_eval(smoke, run)) == 0
    assert "13/13 (8 new, 5 resumed)" in capsys.readouterr().out
    assert len(_records(run)) == 13


def test_atomic_write_failure_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    write_run_manifest(tmp_path, {"judge": "old"})
    before = (tmp_path / "run.json").read_bytes()

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(OSError, match="No space left"):
        write_run_manifest(tmp_path, {"judge": "new"})
    assert (tmp_path / "run.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_discard_failure_keeps_every_record(tmp_path, monkeypatch):
    path = tmp_path / "p.jsonl"
    with PredictionStore(path) as store:
        for i in range(4):
            store.append({"uid": f"u{i}", "status": "error" if i % 2 else "ok"})
        monkeypatch.setattr(atomic.os, "replace", _raise_enospc)
        with pytest.raises(OSError):
            store.discard(lambda r: r["status"] == "error")
        assert len(store) == 4
        monkeypatch.undo()
        assert store.append({"uid": "u9", "status": "ok"})  # still appends to the live file
    assert [json.loads(x)["uid"] for x in path.read_text().splitlines()] == [
        "u0", "u1", "u2", "u3", "u9"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl", "p.lock"]


def _raise_enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _limit_file_size(nbytes: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))

    return preexec


def test_file_size_limit_from_the_kernel(smoke, tmp_path):
    warm = tmp_path / "warm"  # loads the dataset once, so its cache is not written again
    assert main(_eval(smoke, warm)) == 0
    run = tmp_path / "limited"
    proc = subprocess.run([sys.executable, "-m", "gridwm_judge", *_eval(smoke, run)], cwd=ROOT,
                          capture_output=True, text=True, preexec_fn=_limit_file_size(3000),
                          timeout=300)
    assert proc.returncode == 1, proc.stderr
    line = _one_error_line(proc.stderr)
    assert line.startswith("gridwm-judge eval: error: File too large"), line
    records = _records(run)
    assert 0 < len(records) < 13 and (run / "predictions.jsonl").stat().st_size <= 3000


@pytest.fixture()
def tiny_fs(tmp_path):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {res.stderr.strip()[:200]}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_build_on_a_full_filesystem_leaves_nothing(tiny_fs):
    proc = subprocess.run([sys.executable, "-m", "gridwm_judge", "build", "--profile", "smoke",
                           "--out", str(tiny_fs / "ds"), "--num-proc", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    line = _one_error_line(proc.stderr)
    assert line.startswith("gridwm-judge build: error: No space left on device"), line
    assert list(tiny_fs.iterdir()) == []  # no staging folder, no half-built dataset


def test_eval_on_a_full_filesystem_keeps_whole_rows(smoke, tiny_fs):
    filler = tiny_fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk, then free two pages
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        os.ftruncate(fd, os.fstat(fd).st_size - 2 * 4096)
    finally:
        os.close(fd)
    run = tiny_fs / "run"
    proc = subprocess.run([sys.executable, "-m", "gridwm_judge", *_eval(smoke, run)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    line = _one_error_line(proc.stderr)
    assert line.startswith("gridwm-judge eval: error: No space left on device"), line
    assert 0 < len(_records(run)) < 13
    assert json.loads((run / "run.json").read_text())["judge"] == "baseline:pixel-heuristic"

"""`eval --engine ray`: the same records as `--engine local`, replicas, kills, refusals.

One local Ray cluster (2 CPUs, no dashboard) is shared by the whole module: starting it costs
about 10 s here, and each eval on it about 10-20 s more (its replica actors start and import
the package). Evals in this process join that cluster; the killed-driver test's subprocess
joins it by address. Tests stop only the cluster this module started; one test runs eval as a
command that starts (and stops) a Ray of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed (scripts/setup.sh "
                          "installs it)")

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.testing.stub_server import StubServer  # noqa: E402

N_CDE = 11  # rows of tasks c, d, e in the smoke dataset (8 + 2 + 1)


@pytest.fixture(scope="module")
def cluster():
    """A local Ray for this module; yields its address (for a subprocess driver)."""
    if ray.is_initialized():
        pytest.skip("a Ray this module did not start is already running in this process")
    # Ray's session folder goes to a folder of its own in the test session's temp folder,
    # removed once the cluster has stopped, not to /tmp/ray; evals started by this process and
    # its subprocesses inherit both settings.
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_USAGE_STATS_ENABLED")}
    ray_tmp = tempfile.mkdtemp(prefix="r")  # short: Ray's socket paths under it <= 107 bytes
    os.environ.update(RAY_TMPDIR=ray_tmp, RAY_USAGE_STATS_ENABLED="0")
    start = time.monotonic()
    ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                   logging_level="error")
    print(f"\nRay start-up: {time.monotonic() - start:.1f} s", file=sys.stderr)
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()
        shutil.rmtree(ray_tmp, ignore_errors=True)  # the cluster's session folder, stopped
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _eval(smoke, run, *extra) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress", *extra]


def _records(run: Path) -> dict[str, dict]:
    lines = (run / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    by_uid = {r["uid"]: r for r in records}
    assert len(by_uid) == len(records), "a uid is stored twice"
    return by_uid


def _same_records(a: Path, b: Path) -> None:
    """Equal records but for the latency (uids, raw, parses, digests, request hashes)."""
    ra, rb = _records(a), _records(b)
    assert ra.keys() == rb.keys() and ra
    for uid in ra:
        assert {k: v for k, v in ra[uid].items() if k != "latency_s"} == \
            {k: v for k, v in rb[uid].items() if k != "latency_s"}, uid


def _replica_pids() -> list[int]:
    """Processes under this test process that hold a judge replica (Ray titles them
    ``ray::MapWorker(MapBatches(_Replica))``), read from /proc: only this module's cluster."""
    parent: dict[int, int] = {}
    title: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            title[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])

    def mine(pid: int) -> bool:
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [pid for pid, text in title.items() if "_Replica" in text and mine(pid)]


def _same_run(local: Path, remote: Path, replicas: int) -> None:
    """Equal run.json but for the engine (local vs ray with ``replicas``)."""
    a = json.loads((local / "run.json").read_text())
    b = json.loads((remote / "run.json").read_text())
    assert a["engine"] == {"name": "local"}
    assert b["engine"]["name"] == "ray" and b["engine"]["replicas"] == replicas
    for key in ("judge", "judge_options", "judge_settings", "max_tokens",
                "dataset_fingerprint", "oracle_upper_bound", "tasks", "as_sent", "usage"):
        assert a.get(key) == b.get(key), key


def test_baselines_through_ray_equal_local(cluster, smoke, tmp_path, capsys):
    """Every task on two replicas (the oracle, which reads the gold answers, runs on Ray in
    the eval-many test below)."""
    local, remote = tmp_path / "pixel-heuristic-local", tmp_path / "pixel-heuristic-ray"
    args = ("--tasks", "all", "--judge", "baseline:pixel-heuristic")
    assert main(_eval(smoke, local, *args)) == 0
    start = time.monotonic()
    assert main(_eval(smoke, remote, *args, "--engine", "ray", "--replicas", "2")) == 0
    print(f"pixel-heuristic on ray (joined): {time.monotonic() - start:.1f} s", file=sys.stderr)
    _same_records(local, remote)
    _same_run(local, remote, replicas=2)
    assert capsys.readouterr().out.count("answered 13/13 (13 new, 0 resumed)") == 2
    # a finished ray run resumes without asking anything, and may switch engine
    assert main(_eval(smoke, remote, *args)) == 0
    assert "answered 13/13 (0 new, 13 resumed)" in capsys.readouterr().out


def test_tiny_hf_model_through_ray_equals_local(cluster, smoke, tmp_path):
    """One replica: each loads torch and the model (seconds); splitting rows over replicas is
    what the baseline and HTTP tests check."""
    pytest.importorskip("torch")
    from gridwm_judge.testing.tiny_model import build_tiny_vlm

    tiny = build_tiny_vlm(tmp_path / "vlm", hidden_size=32, layers=2)
    args = ("--tasks", "c", "--judge", f"hf:{tiny}", "--batch-size", "2",
            "--max-tokens-c", "4", "--device", "cpu")
    assert main(_eval(smoke, tmp_path / "local", *args)) == 0
    assert main(_eval(smoke, tmp_path / "ray", *args, "--engine", "ray")) == 0
    _same_records(tmp_path / "local", tmp_path / "ray")


def test_http_backend_with_two_replicas(cluster, smoke, tmp_path):
    with StubServer(default_reply="No") as server:
        args = ("--tasks", "c,d,e", "--judge", "openai:stub", "--base-url", server.base_url,
                "--workers", "2")
        assert main(_eval(smoke, tmp_path / "local", *args)) == 0
        asked_local = len(server.requests)
        assert main(_eval(smoke, tmp_path / "ray", *args, "--engine", "ray",
                          "--replicas", "2")) == 0
        assert asked_local == N_CDE and len(server.requests) == 2 * N_CDE  # each row once
    _same_records(tmp_path / "local", tmp_path / "ray")
    a, b = (json.loads((tmp_path / n / "run.json").read_text()) for n in ("local", "ray"))
    assert a["as_sent"] == b["as_sent"] and a["usage"] == b["usage"] and b["usage"]


def test_a_killed_replica_has_its_rows_asked_again_none_doubled(cluster, smoke, tmp_path):
    run = tmp_path / "run"
    with StubServer(default_reply="Yes", delay_s=0.4) as server:
        args = _eval(smoke, run, "--tasks", "c,d,e", "--judge", "openai:stub",
                     "--base-url", server.base_url, "--workers", "1", "--batch-size", "2",
                     "--engine", "ray", "--replicas", "2")
        codes: list[int] = []
        driver = threading.Thread(target=lambda: codes.append(main(args)))
        driver.start()
        deadline = time.monotonic() + 120
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = _replica_pids()
        assert pids, "no replica process found"
        before = len(server.requests)
        os.kill(pids[0], signal.SIGKILL)
        driver.join(timeout=300)
        assert not driver.is_alive() and codes == [0]
        asked = len(server.requests)
    records = _records(run)
    assert len(records) == N_CDE and all(r["status"] == "ok" for r in records.values())
    print(f"replica kill: {before} requests before the kill, {asked} in all for {N_CDE} rows",
          file=sys.stderr)
    assert asked > N_CDE  # the killed replica's rows in flight were asked again


def test_a_killed_driver_loses_nothing_and_a_rerun_asks_only_the_rest(cluster, smoke, tmp_path):
    run = tmp_path / "killed"
    with StubServer(default_reply="Yes", delay_s=0.4) as server:
        args = _eval(smoke, run, "--tasks", "c,d,e", "--judge", "openai:stub",
                     "--base-url", server.base_url, "--workers", "1", "--batch-size", "1",
                     "--engine", "ray", "--replicas", "2")
        proc = subprocess.Popen([sys.executable, "-m", "gridwm_judge", *args, "--ray-address",
                                 cluster], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        preds = run / "predictions.jsonl"
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if preds.exists() and preds.read_text().count("\n") >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"eval ended early: {proc.communicate()[1].decode()[-2000:]}")
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        complete = preds.read_bytes().count(b"\n")
        assert 3 <= complete < N_CDE
        time.sleep(2)  # the dead driver's replicas are ended by Ray
        sent_before = len(server.requests)
        assert main(args) == 0
        resent = len(server.requests) - sent_before
    records = _records(run)
    print(f"driver kill: {complete} stored before the kill, {sent_before} asked; "
          f"rerun asked {resent}", file=sys.stderr)
    assert len(records) == N_CDE
    assert resent == N_CDE - complete  # nothing stored was asked again


def test_refusals(cluster, smoke, tmp_path, capsys, monkeypatch):
    base = ("--tasks", "c", "--judge", "baseline:always-yes")
    assert main(_eval(smoke, tmp_path / "a", *base, "--replicas", "2")) == 2
    assert "--replicas mean(s) nothing for --engine local" in capsys.readouterr().err
    assert main(_eval(smoke, tmp_path / "b", *base, "--ray-address", "x:1")) == 2
    assert "--ray-address mean(s) nothing" in capsys.readouterr().err
    assert main(_eval(smoke, tmp_path / "c", *base, "--engine", "ray", "--replicas", "0")) == 2
    assert "--replicas must be an integer >= 1" in capsys.readouterr().err
    assert main(_eval("org/some-hub-id", tmp_path / "d", *base, "--engine", "ray")) == 2
    assert "reads a local dataset folder" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(_eval(smoke, tmp_path / "e", *base, "--engine", "ray")) == 2
    assert 'pip install -e ".[ray]" in a clone of' in capsys.readouterr().err
    assert not any((tmp_path / n).exists() for n in "abcde")  # nothing half-made


def test_unreachable_address_is_one_line_within_30_s(smoke, tmp_path):
    import socket

    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gridwm_judge",
         *_eval(smoke, tmp_path / "r", "--tasks", "c", "--judge", "baseline:always-yes",
                "--engine", "ray", "--ray-address", f"127.0.0.1:{port}")],
        capture_output=True, text=True, timeout=60, env={**os.environ, "RAY_ADDRESS": ""})
    assert time.monotonic() - start < 30
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach a Ray cluster at" in lines[0]
    assert not (tmp_path / "r").exists()


def test_eval_many_runs_each_judge_on_the_cluster(cluster, smoke, tmp_path, capsys):
    """Two judges, each as its own eval gives: the oracle (gold answers reach the replica) on
    its own tasks and the default one replica, a random judge with its own seed and replicas."""
    import yaml

    judges = [{"judge": "baseline:oracle", "tasks": "c,e"},
              {"judge": "baseline:random", "seed": 5, "replicas": 2}]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"dataset": str(smoke), "tasks": "c,d",
                                    "out": str(tmp_path / "runs"), "judges": judges}))
    start = time.monotonic()
    assert main(["eval-many", str(spec), "--no-progress"]) == 0
    print(f"eval-many, 2 judges on ray (joined): {time.monotonic() - start:.1f} s",
          file=sys.stderr)
    out = capsys.readouterr().out
    assert "answered 9/9 (9 new, 0 resumed)" in out and "answered 10/10 (10 new, 0 resumed)" in out
    for entry in judges:
        name = entry["judge"].replace(":", "-")
        local = tmp_path / f"{name}-local"
        seed = ("--seed", str(entry["seed"])) if "seed" in entry else ()
        assert main(_eval(smoke, local, "--tasks", entry.get("tasks", "c,d"),
                          "--judge", entry["judge"], *seed)) == 0
        _same_records(local, tmp_path / "runs" / name)
        _same_run(local, tmp_path / "runs" / name, replicas=entry.get("replicas", 1))


def test_a_retry_after_holds_every_replica(cluster, smoke, tmp_path):
    """One replica gets 429 with Retry-After: 1.5; no replica starts a request in the next
    1.4 s (the limit is one actor all replicas ask), and every row is answered once."""
    from gridwm_judge.testing.stub_server import http_error

    with StubServer(default_reply="No", delay_s=0.05) as server:
        server.script("", http_error(429, retry_after=1.5))   # the first request, any prompt
        args = _eval(smoke, tmp_path / "ray", "--tasks", "c,d,e", "--judge", "openai:stub",
                     "--base-url", server.base_url, "--workers", "1", "--engine", "ray",
                     "--replicas", "2")
        assert main(args) == 0
        arrivals = list(server.arrivals)
    assert len(arrivals) == N_CDE + 1                       # the refused one asked again
    t429 = arrivals[0]
    window = [t for t in arrivals[1:] if t429 + 0.1 < t < t429 + 1.4]
    assert window == [], [round(t - t429, 2) for t in arrivals]


def test_a_local_ray_prints_no_ray_error_and_leaves_no_session_folder(smoke, tmp_path):
    """An eval that starts its own Ray (no address): Ray's ``core_worker.cc`` error about
    restartable actors with constructor arguments in the object store (ray-project/ray#53727)
    never reaches the terminal, and the Ray session folder it made is gone once it ends. Run as
    a command: Ray prints that error from C++ to file descriptor 2, once per process, and this
    module's process is already on its own Ray."""
    # RAY_TMPDIR (and TMPDIR, Ray's fallback) a fresh short folder: Ray's socket paths go under it
    root = Path(tempfile.mkdtemp(prefix="gwj-", dir="/tmp" if os.name == "posix" else None))
    try:
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "gridwm_judge",
             *_eval(smoke, tmp_path / "run", "--tasks", "c", "--judge", "baseline:always-yes",
                    "--engine", "ray")],
            capture_output=True, text=True, timeout=180,
            env={**os.environ, "RAY_ADDRESS": "", "RAY_TMPDIR": str(root), "TMPDIR": str(root)})
        print(f"eval on its own local Ray: {time.monotonic() - start:.1f} s", file=sys.stderr)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "answered 8/8 (8 new, 0 resumed)" in proc.stdout
        assert "core_worker.cc" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
        assert sorted(p.name for p in root.iterdir()) == []  # no session_* nor gwj-ray-* left
    finally:
        shutil.rmtree(root, ignore_errors=True)

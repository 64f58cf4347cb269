"""`eval --engine local` vs `--engine ray` on one dataset: wall time and the driver's peak RSS.

Each eval runs as its own process (so its peak RSS is its own, read from ru_maxrss); the
records of the two runs are compared (all fields but latency). Ray's start-up cost is timed
apart (ray.init + shutdown of a local 2-CPU Ray, nothing run). The driver of a Ray run reads
uids and image counts only, so its peak should not grow with the dataset's images: run it on
a smoke dataset and on `base` and compare. Usage:

    python benchmarks/bench_ray.py --dataset /tmp/gwj [--judge baseline:pixel-heuristic]
        [--tasks all] [--replicas 1]

Without --dataset it builds the smoke profile's task_c into a temporary folder first. Ray's
session folders go to the temporary folder too (RAY_TMPDIR).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTUP = """
import os, time
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
import ray
t = time.monotonic()
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="error")
ray.shutdown()
print(time.monotonic() - t)
"""


def _child(argv: list[str]) -> tuple[float, float, str]:
    """(wall s, the process's own peak RSS in MiB, stdout) of one child run to its end.

    The peak is the child's VmHWM, polled from /proc until it exits (ru_maxrss of children
    would also count the Ray processes the driver started and waited for)."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    peak_kib = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kib = max(peak_kib, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed: {err[-2000:]}")
    return wall, peak_kib / 1024, out.strip()


def _records(run: Path) -> dict[str, dict]:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    return {r["uid"]: {k: v for k, v in r.items() if k != "latency_s"}
            for r in map(json.loads, lines)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=None, help="default: build smoke's task_c")
    ap.add_argument("--judge", default="baseline:pixel-heuristic")
    ap.add_argument("--tasks", default="all")
    ap.add_argument("--replicas", type=int, default=1)
    args = ap.parse_args(argv)
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_USAGE_STATS_ENABLED")}
    try:
        return _run(args)
    finally:  # a caller in the same process (the tests) keeps its environment
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="r") as tmp:  # short: Ray's socket paths
        os.environ["RAY_TMPDIR"] = tmp  # read by the child processes
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        dataset = args.dataset
        if dataset is None:
            dataset = str(Path(tmp) / "smoke")
            subprocess.run([sys.executable, "-m", "gridwm_judge", "build", "--profile", "smoke",
                            "--configs", "task_c", "--out", dataset], check=True,
                           capture_output=True)
        startup = float(subprocess.run([sys.executable, "-c", STARTUP], capture_output=True,
                                       text=True, check=True).stdout.split()[-1])
        print(f"Ray start-up (init + shutdown, local 2 CPUs): {startup:.1f} s")
        rows = {}
        for engine in ("ray", "local"):
            out = Path(tmp) / engine
            cmd = ["-m", "gridwm_judge", "eval", "--dataset", dataset, "--tasks",
                   args.tasks, "--judge", args.judge, "--out", str(out), "--no-progress",
                   "--engine", engine]
            cmd += ["--replicas", str(args.replicas)] if engine == "ray" else []
            wall, peak, said = _child(cmd)
            rows[engine] = _records(out)
            print(f"--engine {engine:5s}: {wall:6.1f} s, driver peak RSS {peak:6.0f} MiB  "
                  f"({said.splitlines()[-1][:80]})")
        same = rows["ray"] == rows["local"]
        print(f"records equal (but latency): {same} ({len(rows['local'])} uids)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

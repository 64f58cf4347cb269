"""Benchmark: simulate + validate the trajectory groups the paper's base release needs.

Base set (Table 9): Task A 3 groups per core family (18), Task B 12 per core family (72),
Task C 6 each of KeyCorridor / MultiRoom / RedBlueDoor (18), Task D 2 queries + 1 reference
per core family (18), Task E 24 per Task E env (48). Groups of different tasks come from
disjoint seed blocks, so every group is simulated and validated anew (174 in all).
Prints valid groups/s per family and the total time (target: < 10 s on 2 CPU cores).

    python benchmarks/bench_sim.py [--seed 830000] [--groups N]

``--groups N`` caps each (task, family) entry at N groups (a quick run; the test suite uses 1).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from gridwm_judge.dataset.profiles import CORE as CORE_FAMILIES
from gridwm_judge.dataset.profiles import TASK_E_FAMILIES
from gridwm_judge.worlds.minigrid import generate_groups


def base_set() -> list[tuple[str, str, int]]:
    """(task, family, n groups) for the paper's base release."""
    plan = [("A", f, 3) for f in CORE_FAMILIES] + [("B", f, 12) for f in CORE_FAMILIES]
    plan += [("C", f, 6) for f in ("keycorridor", "multiroom", "redbluedoor")]
    plan += [("D", f, 3) for f in CORE_FAMILIES]
    plan += [("E", f, 24) for f in TASK_E_FAMILIES]
    return plan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=830000)
    parser.add_argument("--groups", type=int, default=None,
                        help="at most this many groups per (task, family) entry")
    args = parser.parse_args(argv)
    if args.groups is not None and args.groups < 1:
        parser.error(f"--groups must be at least 1, got {args.groups}")
    groups, drawn, seconds, per_task = Counter(), Counter(), Counter(), Counter()
    start, cpu_start = time.perf_counter(), time.process_time()
    for block, (task, family, n) in enumerate(base_set()):
        t0 = time.perf_counter()
        n = n if args.groups is None else min(n, args.groups)
        res = generate_groups(family, n, args.seed + 10_000 * block)
        seconds[family] += time.perf_counter() - t0
        groups[family] += len(res.groups)
        per_task[task] += len(res.groups)
        drawn[family] += res.n_drawn
    total = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(f"{'family':<20} {'valid':>6} {'drawn':>6} {'reject%':>8} {'seconds':>8} {'groups/s':>9}")
    for family in list(CORE_FAMILIES) + list(TASK_E_FAMILIES):
        g, d, s = groups[family], drawn[family], seconds[family]
        rej = (d - g) / d if d else 0.0
        print(f"{family:<20} {g:>6} {d:>6} {rej:>8.1%} {s:>8.2f} {g / s if s else 0.0:>9.1f}")
    print("groups per task: " + ", ".join(f"{t} {c}" for t, c in sorted(per_task.items())))
    n = sum(groups.values())
    print(f"total: {n} valid groups ({sum(drawn.values())} drawn) in {total:.2f} s wall, "
          f"{cpu:.2f} s CPU ({n / total:.1f} groups/s); target < 10 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

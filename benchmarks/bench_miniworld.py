"""Benchmark: MiniWorld groups per second per family (controller + Full / NoCue / CF + gates).

The first env of the process is created (OpenGL context, ~2-5 s) before timing starts, and the
Sign family's legible reading points are computed once per sign word inside the timing, as a
real run pays them. Prints valid groups/s, drawn seeds and rejects by gate per family.

    python benchmarks/bench_miniworld.py [--n 12] [--seed 830000]
"""

from __future__ import annotations

import argparse
import time

from gridwm_judge.miniworld.backend import shared_env
from gridwm_judge.miniworld.cards import FAMILIES, get_card
from gridwm_judge.miniworld.variants import generate_groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="valid groups per family")
    parser.add_argument("--seed", type=int, default=830000)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    shared_env(get_card(FAMILIES[0]).env_id)
    print(f"first env (OpenGL context): {time.perf_counter() - t0:.1f} s")
    total_t, total_n = 0.0, 0
    for family in FAMILIES:
        t0 = time.perf_counter()
        res = generate_groups(family, args.n, args.seed)
        dt = time.perf_counter() - t0
        total_t, total_n = total_t + dt, total_n + len(res.groups)
        rejects = ", ".join(f"{g}: {c}" for g, c in res.rejects.items()) or "none"
        print(f"{family:<10} {len(res.groups):>3} valid / {res.n_drawn:>3} drawn in {dt:6.1f} s "
              f"= {len(res.groups) / dt:5.2f} groups/s (rejects by gate: {rejects})")
    print(f"all        {total_n:>3} valid in {total_t:6.1f} s = {total_n / total_t:5.2f} groups/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: MiniWorld groups per second per family, and the ``miniworld`` profile's build.

Groups (default): the first env of the process is created (OpenGL context, ~2-5 s) before
timing starts; Sign's reading poses (where its word is legible) are searched per seed inside
the timing, as a real run pays them. Prints valid groups/s, drawn seeds and rejects by
gate per family.

``--build``: builds a profile (default ``miniworld``) into a temporary folder, as
``gridwm-judge build`` does, and prints the generation time, each config's time, rows and
images, the total time, the process's peak memory and each family's reject rate (the
target: under 90 s on the 2-core dev machine).

    python benchmarks/bench_miniworld.py [--n 12] [--seed 830000] [--families tmaze,sign]
    python benchmarks/bench_miniworld.py --build [--profile miniworld]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from gridwm_judge.worlds.miniworld.backend import shared_env
from gridwm_judge.worlds.miniworld.cards import FAMILIES, get_card
from gridwm_judge.worlds.miniworld.variants import generate_groups


def bench_groups(n: int, seed: int, families: tuple[str, ...] = FAMILIES) -> None:
    t0 = time.perf_counter()
    shared_env(get_card(families[0]).env_id)
    print(f"first env (OpenGL context): {time.perf_counter() - t0:.1f} s")
    total_t, total_n = 0.0, 0
    for family in families:
        t0 = time.perf_counter()
        res = generate_groups(family, n, seed)
        dt = time.perf_counter() - t0
        total_t, total_n = total_t + dt, total_n + len(res.groups)
        rejects = ", ".join(f"{g}: {c}" for g, c in res.rejects.items()) or "none"
        print(f"{family:<10} {len(res.groups):>3} valid / {res.n_drawn:>3} drawn in {dt:6.1f} s "
              f"= {len(res.groups) / dt:5.2f} groups/s (rejects by gate: {rejects})")
    print(f"all        {total_n:>3} valid in {total_t:6.1f} s = {total_n / total_t:5.2f} groups/s")


def bench_build(profile: str) -> None:
    from gridwm_judge.dataset.export import build_dataset

    with tempfile.TemporaryDirectory(prefix="bench-miniworld-") as tmp:
        t0 = time.perf_counter()
        rep = build_dataset(Path(tmp) / "out", profile)
        total = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in (Path(tmp) / "out").rglob("*.parquet"))
    print(f"profile {profile}: groups generated in {rep.generation_seconds:.1f} s")
    images = 0
    for config in rep.configs:
        v = rep.validation["configs"][config]
        images += v["images"]
        print(f"  {config:<12} {rep.rows[config]:>5} rows {v['images']:>6} images "
              f"{v['groups']:>3} groups in {rep.seconds[config]:6.1f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB on Linux
    print(f"total {total:.1f} s, {images} images, Parquet {size / 1e6:.0f} MB, "
          f"peak memory {peak:.0f} MiB")
    for e in rep.validation["generation"]["envs"]:
        drawn, valid = e["seeds_drawn"], e["groups_valid"]
        rejects = ", ".join(f"{g}: {c}" for g, c in e["rejects"].items()) or "none"
        print(f"  {e['family']:<10} {valid:>3} valid / {drawn:>3} seeds drawn, reject rate "
              f"{(drawn - valid) / max(1, drawn):.0%} ({rejects})")
    print(f"renderer: {rep.validation['generation'].get('miniworld_renderer')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="valid groups per family")
    parser.add_argument("--seed", type=int, default=830000)
    parser.add_argument("--build", action="store_true", help="time a profile's build instead")
    parser.add_argument("--profile", default="miniworld", help="profile for --build")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated families to time (default: all)")
    args = parser.parse_args(argv)
    families = tuple(f for f in args.families.split(",") if f)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        parser.error(f"unknown MiniWorld family {unknown[0] if unknown else ''!r}; expected some "
                     f"of {', '.join(FAMILIES)}")
    if args.build:
        bench_build(args.profile)
    else:
        bench_groups(args.n, args.seed, families)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

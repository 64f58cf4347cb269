"""`gridwm-judge build`, `push` and `cache`."""

from __future__ import annotations

import argparse
import os

from gridwm_judge.command_line import add_command
from gridwm_judge.dataset.profiles import PROFILES
from gridwm_judge.schema import DEFAULT_NOCUE_STYLE
from gridwm_judge.seeds import GENERATION_SEED, SAMPLING_SEED
from gridwm_judge.task_table import BUILT_CONFIGS

DEFAULT_NUM_PROC = max(1, min(4, os.cpu_count() or 1))


def _configs(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def register(subparsers: argparse._SubParsersAction) -> None:
    register_cache(subparsers)
    b = add_command(
        subparsers, "build", _build,
        help="build the benchmark into the Hugging Face Hub layout (Parquet + card)",
        description="Generate the trajectory groups, build the task configs and write "
                    "DIR/data/<config>/test-*.parquet, DIR/README.md and DIR/validation.json.",
    )
    b.add_argument("--profile", default="base",
                   help=f"what to build: {', '.join(PROFILES)} (default base)")
    b.add_argument("--out", required=True, help="output folder (must be empty or absent)")
    b.add_argument("--seed", type=int, default=GENERATION_SEED,
                   help=f"generation seed: first env.reset seed drawn (default {GENERATION_SEED})")
    b.add_argument("--sampling-seed", type=int, default=SAMPLING_SEED,
                   help="item sampling seed, e.g. Task A candidates "
                        f"(default {SAMPLING_SEED})")
    b.add_argument("--num-proc", type=int, default=DEFAULT_NUM_PROC,
                   help="worker processes; the output does not depend on it "
                        f"(default {DEFAULT_NUM_PROC}: the CPU count, at most 4)")
    b.add_argument("--configs", type=_configs, default=None,
                   help="comma-separated subset of the profile's configs (default all): "
                        f"{', '.join(BUILT_CONFIGS)}")
    b.add_argument("--nocue-style", default=DEFAULT_NOCUE_STYLE,
                   help="how MiniGrid's NoCue frames hide the evidence: clean (no mark only "
                        "NoCue shows: a key, ball, box or goal is erased; a door, wall or lava "
                        "cell keeps a grey square that Full and CF carry too, on wall cells) "
                        "or occlude (the paper's grey square on NoCue only) "
                        f"(default {DEFAULT_NOCUE_STYLE})")
    b.add_argument("--overwrite", action="store_true", help="replace a non-empty --out folder")

    p = add_command(
        subparsers, "push", _push, refused=(PermissionError,),  # the Hub refused the token
        help="upload a built folder to the Hugging Face Hub (one commit)",
        description="Create the dataset repo if needed and upload DIR in one commit, with an "
                    "eval.yaml declaring the benchmark's tasks (one per published figure of "
                    "the configs DIR holds; a DIR/eval.yaml of your own is used instead). The "
                    "token comes from HF_TOKEN or `hf auth login`.",
    )
    p.add_argument("dir", help="folder written by `gridwm-judge build`")
    p.add_argument("--repo-id", required=True, help="USER/NAME or ORG/NAME")
    p.add_argument("--private", action="store_true", help="create the repo as private")
    p.add_argument("--revision", default=None, help="branch to commit to (created if missing)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the folder, repo id and token and list what would be uploaded, "
                        "without contacting the Hub")


def _build(args: argparse.Namespace) -> int:
    from gridwm_judge.dataset.export import build_dataset

    report = build_dataset(args.out, args.profile, seed=args.seed,
                           sampling_seed=args.sampling_seed, num_proc=args.num_proc,
                           configs=args.configs, overwrite=args.overwrite,
                           progress=lambda line: print(line, flush=True),
                           nocue_style=args.nocue_style)
    print(f"wrote {report.out} ({report.total_seconds:.1f}s); "
          f"load it with datasets.load_dataset({str(report.out)!r}, {report.configs[0]!r})")
    return 0


def _push(args: argparse.Namespace) -> int:
    from gridwm_judge.dataset.push import plan_push, push_folder

    if args.dry_run:
        plan = plan_push(args.dir, args.repo_id, revision=args.revision)
        rev = f" (revision {plan.revision})" if plan.revision else ""
        print(f"would upload {len(plan.files)} files ({_mb(plan.bytes)}) from {args.dir} to "
              f"dataset repo {plan.repo_id}{rev} in one commit; token "
              + ("found" if plan.token_found else "NOT found: log in with `hf auth login` or "
                 "set HF_TOKEN before pushing"))
        for name, size in plan.files:
            print(f"  {name}  {_mb(size)}")
        if plan.eval_yaml is not None:
            print("\neval.yaml (generated: the benchmark's tasks, one per published figure):\n"
                  + plan.eval_yaml.rstrip())
        return 0
    res = push_folder(args.dir, args.repo_id, private=args.private, revision=args.revision)
    rev = f" (revision {res.revision})" if res.revision else ""
    print(f"pushed {args.dir} to {res.url}{rev}")
    return 0


SHOWN = 10
"""Copies listed one per line by ``cache`` (the largest)."""


def _mb(n: int) -> str:
    return f"{n / 1e3:,.1f} kB" if n < 100_000 else f"{n / 1e6:,.1f} MB"


def _cache(args: argparse.Namespace) -> int:
    import sys

    from gridwm_judge.dataset import cache
    from gridwm_judge.dataset_io import package_cache_root

    root = package_cache_root()
    found = cache.copies(root)
    total = sum(c.bytes for c in found)
    print(f"{root}: {len(found)} cached cop{'y' if len(found) == 1 else 'ies'}, {_mb(total)}")
    for c in found[:SHOWN]:
        print(f"  {c.path.name}  {_mb(c.bytes):>10}  {c.what}"
              + ("  (in use)" if c.in_use else ""))
    if len(found) > SHOWN:
        rest = found[SHOWN:]
        print(f"  ... and {len(rest)} smaller ({_mb(sum(c.bytes for c in rest))})")
    if not args.clear or not found:
        return 0
    free = [c for c in found if not c.in_use]
    if not args.yes:
        if not sys.stdin.isatty():
            raise ValueError("cache --clear asks before it deletes; pass --yes to clear "
                             "without asking")
        answer = input(f"delete {len(free)} cop{'y' if len(free) == 1 else 'ies'} "
                       f"({_mb(sum(c.bytes for c in free))})? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return 0
    removed, left = cache.clear(found)
    print(f"deleted {len(removed)} ({_mb(sum(c.bytes for c in removed))})"
          + (f"; left {len(left)} in use by a running command" if left else ""))
    return 0


def register_cache(subparsers: argparse._SubParsersAction) -> None:
    c = add_command(
        subparsers, "cache", _cache,
        help="show (and --clear) this package's Arrow copies in the datasets cache",
        description="Reading a local dataset stores an Arrow copy of each config in "
                    "HF_DATASETS_CACHE/gridwm-judge; datasets never removes them. This lists "
                    "them with their sizes; --clear deletes those no running command holds, "
                    "after asking (--yes: without asking).",
    )
    c.add_argument("--clear", action="store_true", help="delete the copies not in use")
    c.add_argument("--yes", action="store_true", help="with --clear: do not ask")

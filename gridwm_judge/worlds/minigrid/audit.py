"""MiniGrid's audit JSONL (the writer and line format are ``worlds.core.audit``'s).

Every argument is checked before anything is generated or written.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor

from gridwm_judge.worlds.core.audit import check_out, write_results
from gridwm_judge.worlds.core.draw import check_cf_kind
from gridwm_judge.worlds.minigrid.cards import FAMILIES, HARD_CF_FAMILIES
from gridwm_judge.worlds.minigrid.generate import check_args, generate_groups
from gridwm_judge.worlds.minigrid.records import TrajectoryGroup


def read_groups_jsonl(path: str | os.PathLike) -> list[TrajectoryGroup]:
    """Groups back from an audit file (no simulation needed)."""
    with open(path, encoding="utf-8") as fh:
        return [TrajectoryGroup.from_record(json.loads(line)) for line in fh if line.strip()]


def _families(family: str) -> tuple[str, ...]:
    if family == "all":
        return FAMILIES
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; expected 'all' or one of "
                         f"{', '.join(FAMILIES)}")
    return (family,)


def write_groups_jsonl(family: str, n: int, seed: int, out: str | os.PathLike,
                       env_id: str | None = None, overwrite: bool = False,
                       num_proc: int = 1, cf_kind: str = "paper") -> str:
    """Generate ``n`` valid groups per family and write them to ``out``; returns a summary.
    ``cf_kind`` "hard": hard-CF groups (``family`` 'all': the families that have one), gated
    by the simulator only (the static-cue gate runs where a config's groups are drawn)."""
    check_cf_kind(cf_kind)
    families = _families(family)
    if cf_kind == "hard":
        families = tuple(f for f in families if f in HARD_CF_FAMILIES)
        if not families:
            raise ValueError(f"no hard CF for family {family!r}; expected 'all' or one of "
                             f"{', '.join(HARD_CF_FAMILIES)}")
    if env_id is not None and len(families) != 1:
        raise ValueError("--env-id needs a single --family, not 'all'")
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise ValueError(f"num_proc must be a positive integer, got {num_proc!r}")
    for f in families:
        check_args(f, n, seed, env_id)
    out = check_out(out, overwrite)
    if num_proc > 1:
        with ProcessPoolExecutor(max_workers=num_proc) as pool:
            results = [generate_groups(f, n, seed, env_id=env_id, num_proc=num_proc,
                                       executor=pool, cf_kind=cf_kind) for f in families]
    else:
        results = [generate_groups(f, n, seed, env_id=env_id, cf_kind=cf_kind)
                   for f in families]
    return write_results(results, out)

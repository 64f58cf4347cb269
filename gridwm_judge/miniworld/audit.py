"""The MiniWorld audit JSONL: one line per valid group, written atomically (temp + rename).

Same line format as MiniGrid's ``sim.audit`` (compact JSON, fixed key order) with
``"world": "miniworld"``; same arguments give a byte-identical file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from gridwm_judge.miniworld.backend import require_miniworld
from gridwm_judge.miniworld.cards import families_for, get_card
from gridwm_judge.miniworld.records import MiniWorldGroup
from gridwm_judge.miniworld.variants import generate_groups
from gridwm_judge.sim.audit import summarize


def dumps_group(group: MiniWorldGroup) -> str:
    return json.dumps(group.to_record(), separators=(",", ":"), ensure_ascii=True)


def read_groups_jsonl(path: str | os.PathLike) -> list[MiniWorldGroup]:
    with open(path, encoding="utf-8") as fh:
        return [MiniWorldGroup.from_record(json.loads(line)) for line in fh if line.strip()]


def write_groups_jsonl(family: str, n: int, seed: int, out: str | os.PathLike,
                       env_id: str | None = None, overwrite: bool = False,
                       num_proc: int = 1) -> str:
    """Generate ``n`` valid groups per MiniWorld family (``family`` = 'miniworld' for all)."""
    families = families_for(family)
    if env_id is not None and (len(families) != 1 or env_id != get_card(families[0]).env_id):
        raise ValueError(f"--env-id {env_id!r} does not match the MiniWorld family; each "
                         f"family has one env id (its card's)")
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise ValueError(f"num_proc must be a positive integer, got {num_proc!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    out = Path(out)
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass --overwrite to replace it")
    if not out.parent.exists():
        raise FileNotFoundError(f"output folder {out.parent} does not exist")
    require_miniworld()
    # One OpenGL context per process: MiniWorld groups are generated in this process
    # whatever num_proc says (the output would be the same either way).
    results = [generate_groups(f, n, seed) for f in families]
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for r in results:
                for g in r.groups:
                    fh.write(dumps_group(g) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    total = sum(len(r.groups) for r in results)
    return f"{summarize(results)}\nwrote {total} groups to {out}"

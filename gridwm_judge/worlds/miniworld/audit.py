"""The MiniWorld audit JSONL: one line per valid group, written atomically (temp + rename).

Same line format and writer as MiniGrid's (``worlds.core.audit``: ``dumps_group``,
``write_results``; compact JSON, fixed key order) with ``"world": "miniworld"``; same arguments
give a byte-identical file.
"""

from __future__ import annotations

import json
import os

from gridwm_judge.worlds.core.audit import check_out, dumps_group, write_results
from gridwm_judge.worlds.core.draw import check_cf_kind, check_draw
from gridwm_judge.worlds.miniworld.backend import require_miniworld
from gridwm_judge.worlds.miniworld.cards import families_for, get_card
from gridwm_judge.worlds.miniworld.hard import generate_hard_groups
from gridwm_judge.worlds.miniworld.records import MiniWorldGroup
from gridwm_judge.worlds.miniworld.variants import generate_groups

__all__ = ["dumps_group", "read_groups_jsonl", "write_groups_jsonl"]


def read_groups_jsonl(path: str | os.PathLike) -> list[MiniWorldGroup]:
    with open(path, encoding="utf-8") as fh:
        return [MiniWorldGroup.from_record(json.loads(line)) for line in fh if line.strip()]


def write_groups_jsonl(family: str, n: int, seed: int, out: str | os.PathLike,
                       env_id: str | None = None, overwrite: bool = False,
                       num_proc: int = 1, cf_kind: str = "paper") -> str:
    """Generate ``n`` valid groups per MiniWorld family (``family`` = 'miniworld' for all);
    ``cf_kind`` "hard": hard-CF groups (``hard.generate_hard_groups``: the world's gates and
    H1 / H2 over every frame of the CF's walk; a build asks H2 of the storyboard's frames and
    runs the static-cue gate, so its groups can differ)."""
    check_cf_kind(cf_kind)
    families = families_for(family)
    if env_id is not None and (len(families) != 1 or env_id != get_card(families[0]).env_id):
        raise ValueError(f"--env-id {env_id!r} does not match the MiniWorld family; each "
                         f"family has one env id (its card's)")
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise ValueError(f"num_proc must be a positive integer, got {num_proc!r}")
    check_draw(n, seed)
    out = check_out(out, overwrite)
    require_miniworld()
    # One OpenGL context per process: MiniWorld groups are generated in this process
    # whatever num_proc says (the output would be the same either way).
    draw = generate_groups if cf_kind == "paper" else generate_hard_groups
    return write_results([draw(f, n, seed) for f in families], out)

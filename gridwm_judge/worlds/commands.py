"""`gridwm-judge groups`: generate validated trajectory groups and write the audit JSONL.

Bad input raises ValueError/FileExistsError before anything is written (the dispatcher
prints it as one line, exit 2); the file is written to a temporary name and renamed.
"""

from __future__ import annotations

import argparse

from gridwm_judge.command_line import add_command, options_of
from gridwm_judge.seeds import GENERATION_SEED
from gridwm_judge.worlds.core.draw import CF_KINDS
from gridwm_judge.worlds.minigrid.audit import write_groups_jsonl
from gridwm_judge.worlds.minigrid.cards import FAMILIES, HARD_CF_FAMILIES
from gridwm_judge.worlds.miniworld import audit as miniworld_audit
from gridwm_judge.worlds.miniworld.cards import FAMILIES as MINIWORLD_FAMILIES
from gridwm_judge.worlds.miniworld.cards import FAMILY_GROUP as MINIWORLD


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers, "groups", _run,
        help="generate validated Full/NoCue/CF trajectory groups (audit JSONL)",
        description=(
            "Draw consecutive seeds from --seed until --n valid groups per family pass every "
            "validator gate; write one JSON line per group and print the reject summary."
        ),
    )
    p.add_argument("--family", required=True,
                   help=f"one of {', '.join(FAMILIES)}, or 'all'; '{MINIWORLD}' or a MiniWorld "
                        f"family ({', '.join(MINIWORLD_FAMILIES)}) needs the 3d extra")
    p.add_argument("--n", type=int, required=True, help="valid groups per family (> 0)")
    p.add_argument("--seed", type=int, default=GENERATION_SEED,
                   help=f"first seed (>= 0; default {GENERATION_SEED}, the paper's "
                        "generation seed)")
    p.add_argument("--env-id", default=None, help="registered env id (default: the card's)")
    p.add_argument("--out", required=True, help="output .jsonl path")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--num-proc", type=int, default=1, help="worker processes (same output)")
    p.add_argument("--cf", dest="cf_kind", choices=CF_KINDS, default="paper",
                   help="the CF of each group: the paper's (default) or a hard one (MiniGrid's "
                        f"{', '.join(HARD_CF_FAMILIES)}, every MiniWorld family: Full's objects "
                        "at t=0, the failure from where things are; simulator gates only)")


def _run(args: argparse.Namespace) -> int:
    if args.family not in ("all", *FAMILIES, MINIWORLD, *MINIWORLD_FAMILIES):
        raise ValueError(
            f"unknown family {args.family!r}; expected 'all' or one of {', '.join(FAMILIES)}; "
            f"or '{MINIWORLD}' or one of {', '.join(MINIWORLD_FAMILIES)} (3d extra)"
        )
    in_3d = args.family in (*MINIWORLD_FAMILIES, MINIWORLD)
    write = miniworld_audit.write_groups_jsonl if in_3d else write_groups_jsonl
    print(write(**options_of(args, "family", "n", "seed", "out", "env_id", "overwrite",
                             "num_proc", "cf_kind")))
    return 0

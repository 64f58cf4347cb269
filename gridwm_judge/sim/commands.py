"""`gridwm-judge groups`: generate validated trajectory groups and write the audit JSONL.

The handler imports the simulator lazily so that building the CLI parser stays cheap.
Bad input raises ValueError/FileExistsError before anything is written (the dispatcher
prints it as one line, exit 2); the file is written to a temporary name and renamed.
"""

from __future__ import annotations

import argparse

# Kept literal so building the CLI does not import gymnasium; a test pins it to sim.FAMILIES.
FAMILY_CHOICES = ("doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom",
                  "unlockpickup", "blockedunlockpickup")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "groups",
        help="generate validated Full/NoCue/CF trajectory groups (audit JSONL)",
        description=(
            "Draw consecutive seeds from --seed until --n valid groups per family pass every "
            "validator gate; write one JSON line per group and print the reject summary."
        ),
    )
    p.add_argument("--family", required=True,
                   help=f"one of {', '.join(FAMILY_CHOICES)}, or 'all'; 'miniworld' or a "
                        "MiniWorld family (tmaze, fourrooms, sign, putnext) needs the 3d extra")
    p.add_argument("--n", type=int, required=True, help="valid groups per family (> 0)")
    p.add_argument("--seed", type=int, default=830000,
                   help="first seed (>= 0; default 830000, the paper's generation seed)")
    p.add_argument("--env-id", default=None, help="registered env id (default: the card's)")
    p.add_argument("--out", required=True, help="output .jsonl path")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--num-proc", type=int, default=1, help="worker processes (same output)")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from gridwm_judge.miniworld.cards import FAMILIES, FAMILY_GROUP

    if args.family in FAMILIES + (FAMILY_GROUP,):
        from gridwm_judge.miniworld.audit import write_groups_jsonl
    else:
        from gridwm_judge.sim.audit import write_groups_jsonl

    summary = write_groups_jsonl(
        family=args.family,
        n=args.n,
        seed=args.seed,
        out=args.out,
        env_id=args.env_id,
        overwrite=args.overwrite,
        num_proc=args.num_proc,
    )
    print(summary)
    return 0

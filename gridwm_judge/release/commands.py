"""``gridwm-judge import-paper``."""

from __future__ import annotations

import argparse

from gridwm_judge.command_line import add_command
from gridwm_judge.release.importer import import_paper
from gridwm_judge.release.layout import CLONE_LINE


def _import(args: argparse.Namespace) -> int:
    summary = import_paper(args.path, args.out, overwrite=args.overwrite, progress=print)
    for line in summary.lines():
        print(line)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers, "import-paper", _import,
        help="import the paper's released exams and published judges' answers",
        description="Read a checkout of the paper's public release "
        f"({CLONE_LINE}), check its files against its SHA256SUMS, and write DIR: the exams "
        "it holds as dataset configs (paper_task_d_r, paper_task_a, paper_task_c, "
        "paper_task_e; load_dataset(DIR, 'paper_task_d_r')) and, for Task D-R, each "
        "published judge's answers as a run marked as published "
        "(DIR/runs/published/<model>/). A refused import writes nothing.",
    )
    p.add_argument("path", help="the release's folder (a clone or an unpacked archive)")
    p.add_argument("--out", required=True, help="the dataset folder to write (new or empty)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a dataset folder an earlier import or build wrote")

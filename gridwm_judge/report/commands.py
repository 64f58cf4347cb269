"""``gridwm-judge report``."""

from __future__ import annotations

import argparse

from gridwm_judge.command_line import add_command
from gridwm_judge.report.writer import write_report


def _report(args: argparse.Namespace) -> int:
    res = write_report(
        args.run_dirs, args.out, overwrite=args.overwrite, n_resamples=args.n_resamples,
        allow_mismatch=args.allow_mismatch, dataset=args.dataset,
    )
    print(res.headline)
    print()
    print(
        f"wrote {len(res.tables)} table files and {len(res.figures)} figures; start at {res.index}"
    )
    if res.gallery_left_out is None:
        print(f"the same report as one page, with the failure gallery: {res.html}")
    else:
        print(f"the same report as one page: {res.html}; failure gallery left out: "
              f"{res.gallery_left_out}")
    return 0


def register(subparsers) -> None:
    p = add_command(
        subparsers, "report", _report,
        help="tables, plots and failure modes of one or more eval runs",
        description="Read each RUN_DIR (run.json + predictions.jsonl from `eval`, and "
        "scores.json from `score` if present, else score against the dataset in run.json) "
        "and write REPORT_DIR/index.md, tables/ (md, csv, json), figures/ (png), "
        "failure_modes.md and index.html (the same report as one page that opens from disk, "
        "with a failure gallery per judge and task; its images under gallery/). A folder "
        "written by `score --out` (scores.json of several judges) "
        "works as a RUN_DIR too.",
    )
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="folders written by eval")
    p.add_argument("--out", required=True, help="report folder")
    p.add_argument("--overwrite", action="store_true", help="replace an existing report")
    p.add_argument(
        "--n-resamples",
        type=int,
        default=None,
        help="bootstrap resamples when a run has no scores.json (default: scorer's)",
    )
    p.add_argument(
        "--dataset",
        default=None,
        help="where index.html's failure gallery reads the items by uid (default: the dataset "
        "each run.json records); one that cannot be read leaves the gallery out, with a line "
        "saying why",
    )
    p.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="when a run is scored here: score it even if its predictions answered items other "
        "than its dataset's (written into the report)",
    )

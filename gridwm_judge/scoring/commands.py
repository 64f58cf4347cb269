"""``gridwm-judge score``: predictions + dataset -> scores.json and rows.jsonl."""

from __future__ import annotations

import argparse
from pathlib import Path

from gridwm_judge.command_line import add_command
from gridwm_judge.parsing import PARSER_VERSIONS
from gridwm_judge.records import SCORES_FILE, TaskCoverage
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES
from gridwm_judge.scoring.judge_scores import mode_line
from gridwm_judge.scoring.score import score
from gridwm_judge.task_table import parse_task_list


def _coverage_text(task: str, c: TaskCoverage) -> str:
    if c.answered == 0 and c.errored == 0:
        return f"{task} not run"
    text = f"{task} answered {c.answered}/{c.asked}"
    return text + (f" ({c.errored} errored)" if c.errored else "")


def _handler(args: argparse.Namespace) -> int:
    tasks = parse_task_list(args.tasks) if args.tasks else None
    settings = Settings(n_resamples=args.n_resamples, seed=args.seed, with_les=not args.no_les)
    record = score(
        args.dataset,
        args.predictions,
        args.out,
        settings=settings,
        tasks=tasks,
        rules=args.rules,
        overwrite=args.overwrite,
        allow_mismatch=args.allow_mismatch,
    )
    for note in record.overrides:
        print(f"warning: scored despite a mismatch ({note})")
    for judge, scores in record.judges.items():
        cov = ", ".join(_coverage_text(t, c) for t, c in scores.coverage.items())
        worlds = dict.fromkeys(m.world for m in scores.failure_modes)
        modes = "; ".join(
            (f"{w}: " if len(worlds) > 1 else "")
            + mode_line([m for m in scores.failure_modes if m.world == w]) for w in worlds)
        print(f"{judge}: {cov}; failure modes: {modes or 'not assessed'}")
    print(f"wrote {Path(args.out) / SCORES_FILE} and rows.jsonl in {record.elapsed_s} s")
    return 0


def register(subparsers) -> None:
    p = add_command(
        subparsers, "score", _handler,
        help="score judge predictions against a dataset (scores.json + rows.jsonl)",
        description="Join predictions to dataset rows by uid, check they answered the items "
        "the dataset holds, parse the raw answers, compute every metric per task with "
        "group-bootstrap CIs, and diagnose failure modes. Requests that errored are counted "
        "in the coverage and never scored.",
    )
    p.add_argument(
        "--dataset", required=True, help="dataset folder (scriptless Hub layout) or Hub repo id"
    )
    p.add_argument(
        "--predictions", required=True, nargs="+", help="predictions.jsonl file(s), any judges"
    )
    p.add_argument("--out", required=True, help="output folder for scores.json and rows.jsonl")
    p.add_argument(
        "--tasks", default="", help="comma list of tasks or configs (default: all present)"
    )
    p.add_argument(
        "--rules",
        choices=tuple(PARSER_VERSIONS),
        default="committed",
        help="parser rules: 'committed' reads where the model commits to an answer; 'paper' "
        "is the paper's keyword rules (to reproduce its tables); 'published' takes the parse "
        "each answer was published with (the paper's judges, from `import-paper`)",
    )
    p.add_argument("--n-resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=BOOTSTRAP_SEED, help="bootstrap seed")
    p.add_argument("--no-les", action="store_true", help="skip the LES mixed-model fits")
    p.add_argument("--overwrite", action="store_true", help="replace an existing scores.json")
    p.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="score even when predictions answered items other than the dataset's (or cannot "
        "be checked); the override is written into scores.json",
    )

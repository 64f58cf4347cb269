"""``gridwm-judge quickstart``: build a small dataset, run the weight-free baseline judges (the
five reference judges and the four shortcut judges), score them, write the report and print
the headline table -- no downloads, about a minute.

Why a profile of its own: ``smoke`` has two Task C groups, so every judge, the oracle too,
would carry the low-activation caution (G_active < 10) and the table could not show the
benchmark's point. ``quickstart`` keeps just enough: 10 Task C groups (Full and CF under the
temporal x visual probes, composite and split) and 12 Task D query groups (Full and CF under
the framing and style conditions), so the
oracle is unflagged, the constant judges are perfectly stable yet degenerate, and the pixel
heuristic sits in between with its own flags. And 12 ``task_c_hard`` groups (4 per family, at
least the 10 active groups a causal scope needs), on which the shortcut judges that match the
oracle on ``task_c`` fall to 0.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gridwm_judge.atomic import make_folder, remove_made
from gridwm_judge.command_line import add_command
from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.judges import judge_tasks
from gridwm_judge.judges.shortcuts import NAMES as SHORTCUTS
from gridwm_judge.records import PREDICTIONS_FILE
from gridwm_judge.report.writer import write_report
from gridwm_judge.runner.evaluate import EvalConfig, run_eval
from gridwm_judge.scoring.score import load_rows, score
from gridwm_judge.scoring.task_scores import Settings
from gridwm_judge.task_table import TASK_NAMES
from gridwm_judge.workers import owned_pool

BASELINES = ("always-yes", "always-no", "random", "pixel-heuristic", "oracle", *SHORTCUTS)
PROFILE = "quickstart"
HOW_TO_READ = (
    "How to read it: NS/JCR = 1 means no verdict moved under the presentation probes (frame",
    "order, noise/style, framing). Stability alone is not reliability: the constant judges are",
    "perfectly stable and still flagged (all-fail / success-biased, stability-trap) because",
    "they never change their verdict, not even when the counterfactual makes the trajectory",
    "fail. IDR_raw is the share of groups whose Full trajectory is accepted AND whose",
    "counterfactual is rejected; the oracle (it reads the gold answer: a scorer sanity check,",
    "not a model) sets the ceiling. The shortcut judges (first-frame, last-frame, mask-artifact,",
    "least-change) read the images but never follow the trajectory; 'shortcut IDR' is the best",
    "of them: a judge's IDR_raw means little unless it is above it. Here last-frame matches the",
    "oracle: these counterfactuals show in the last frame. On task_c_hard they do not, and",
    "every shortcut's IDR_raw falls to 0 (report/tables/hard_counterfactuals.md).",
)


@dataclass(frozen=True)
class QuickstartResult:
    out: Path
    dataset: Path
    run_dirs: tuple[Path, ...]
    report: Path
    headline: str
    timings: dict[str, float]


def default_out(cwd: Path | None = None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return (cwd or Path.cwd()) / f"gwj-quickstart-{stamp}"


def run_quickstart(
    out: str | Path | None = None,
    *,
    judges: Sequence[str] = BASELINES,
    profile=None,
    n_resamples: int = 2000,
    dataset: str | Path | None = None,
    log=print,
) -> QuickstartResult:
    """Build ``profile`` (a profile name or object; default the ``quickstart`` profile) unless
    ``dataset`` is given, evaluate the baseline ``judges`` (two at a time on two cores), score,
    report. A failed or interrupted quickstart removes the folder it created."""
    out = (Path(out) if out is not None else default_out()).resolve()
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; pass a new --out folder")
    made = make_folder(out)
    try:
        return _run(out, judges=judges, profile=profile, n_resamples=n_resamples,
                    dataset=dataset, log=log)
    except BaseException:
        if made:
            shutil.rmtree(out, ignore_errors=True)
            remove_made(made)
        raise


def _run(out: Path, *, judges, profile, n_resamples, dataset, log) -> QuickstartResult:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if dataset is None:
        dataset = out / "dataset"
        log(f"[1/4] building the {PROFILE!r} dataset into {dataset} ...")
        num_proc = max(1, min(2, os.cpu_count() or 1))
        build_dataset(dataset, profile or PROFILE, num_proc=num_proc)
    dataset = Path(dataset)
    timings["build_s"] = time.perf_counter() - t0

    t = time.perf_counter()
    rows = load_rows(str(dataset))  # also prepares the datasets cache once for the workers
    log(f"[2/4] running {len(judges)} baseline judges: {', '.join(judges)} ...")
    configs = [
        EvalConfig(
            dataset=str(dataset),
            tasks=judge_tasks(f"baseline:{name}", (*TASK_NAMES, "CH")),
            judge=f"baseline:{name}",
            out=out / "runs" / name,
            progress=False,
        )
        for name in judges
    ]
    run_dirs = [cfg.out for cfg in configs]
    workers = max(1, min(len(configs), os.cpu_count() or 1, 4))
    slow_first = sorted(configs, key=lambda c: c.judge != "baseline:pixel-heuristic")
    if workers == 1:
        for cfg in slow_first:
            run_eval(cfg)
    else:
        # Ctrl-C (its workers ignore it) or a failed run stops them now
        with owned_pool(ProcessPoolExecutor(max_workers=workers)) as pool:
            for fut in [pool.submit(run_eval, cfg) for cfg in slow_first]:
                fut.result()
    timings["eval_s"] = time.perf_counter() - t

    t = time.perf_counter()
    log("[3/4] scoring (group bootstrap, LES fits) ...")
    settings = Settings(n_resamples=n_resamples)
    for run_dir in run_dirs:
        score(str(dataset), [run_dir / PREDICTIONS_FILE], run_dir, settings=settings, rows=rows)
    timings["score_s"] = time.perf_counter() - t

    t = time.perf_counter()
    log("[4/4] writing the report ...")
    result = write_report(run_dirs, out / "report", overwrite=True)
    timings["report_s"] = time.perf_counter() - t
    timings["total_s"] = time.perf_counter() - t0
    return QuickstartResult(out, dataset, tuple(run_dirs), result.out, result.headline, timings)


def main(out: str | None, *, stream=None, profile=None, judges: Sequence[str] | None = None) -> int:
    """The ``quickstart`` command: run everything, print progress and the headline table."""

    def log(msg: str) -> None:
        print(msg, file=stream or sys.stdout, flush=True)

    res = run_quickstart(out, log=log, profile=profile, judges=judges or BASELINES)
    log("")
    log(res.headline)
    log("")
    for line in HOW_TO_READ:
        log(line)
    log("")
    log(
        f"quickstart finished in {res.timings['total_s']:.0f} s "
        f"(build {res.timings['build_s']:.0f} s, eval {res.timings['eval_s']:.0f} s, "
        f"score {res.timings['score_s']:.0f} s, report {res.timings['report_s']:.0f} s)"
    )
    log(f"everything is in {res.out}/ : dataset/, runs/<judge>/, report/")
    log(f"read {res.report / 'index.md'} next, or open {res.report / 'index.html'} in a browser "
        "(the same report on one page, with a gallery of each judge's failures)")
    return 0


def register(subparsers) -> None:
    q = add_command(
        subparsers, "quickstart", lambda args: main(args.out),
        help="build a small dataset, run the 9 baseline judges, score and report (about 34 s "
             "on 2 idle cores)",
        description="No downloads: builds the 'quickstart' profile, runs always-yes, always-no, "
        "random, pixel-heuristic, oracle and the shortcut judges (first-frame, last-frame, "
        "mask-artifact, least-change), scores them, writes the report and prints the "
        "headline table.",
    )
    q.add_argument(
        "--out",
        default=None,
        help="new folder for everything (default: ./gwj-quickstart-<UTC timestamp>)",
    )

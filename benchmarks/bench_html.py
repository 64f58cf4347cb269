"""HTML report benchmark: the size of index.html and of the files it shows (gallery images,
figures), and the time to write the report and the page.

Builds a profile (or reads ``--dataset``), runs baseline judges on it, scores them, writes
the report and times it, then writes index.html alone again (the failure gallery read from
the dataset, its images written) and times that. Targets: the quickstart's page under 20 MB
with its nine judges, a ``base`` run of five judges under 50 MB, the page written in under
30 s.

    python benchmarks/bench_html.py --profile quickstart [--judges 9]
    python benchmarks/bench_html.py --profile base --judges 5 [--dataset DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

TARGET_MB = {"quickstart": 20.0, "base": 50.0}
TARGET_S = 30.0


def _mb(paths) -> float:
    return sum(p.stat().st_size for p in paths if p.is_file()) / 1e6


def main(argv: list[str] | None = None) -> int:
    from gridwm_judge.dataset.export import build_dataset
    from gridwm_judge.judges import judge_tasks
    from gridwm_judge.quickstart import BASELINES
    from gridwm_judge.records import PREDICTIONS_FILE
    from gridwm_judge.report import collect, failures, write_report
    from gridwm_judge.report.gallery_items import FOLDER
    from gridwm_judge.report.html import write_html
    from gridwm_judge.report.sections import all_tables
    from gridwm_judge.report.writer import index_document
    from gridwm_judge.runner.evaluate import EvalConfig, run_eval
    from gridwm_judge.scoring.score import load_rows, score
    from gridwm_judge.scoring.task_scores import Settings
    from gridwm_judge.task_table import ALL_TASKS

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--profile", default="quickstart")
    ap.add_argument("--configs", default=None, help="comma-separated subset to build")
    ap.add_argument("--dataset", default=None, help="a built dataset (default: build --profile)")
    ap.add_argument("--judges", type=int, default=len(BASELINES),
                    help=f"the first N of the baselines ({', '.join(BASELINES)})")
    ap.add_argument("--resamples", type=int, default=200, help="bootstrap resamples of score")
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--out", default=None, help="keep everything here (default: a temp dir)")
    args = ap.parse_args(argv)
    if not 1 <= args.judges <= len(BASELINES):
        ap.error(f"--judges must be 1 to {len(BASELINES)}, got {args.judges}")

    with tempfile.TemporaryDirectory(prefix="gwj-bench-html-") as tmp:
        root = Path(args.out or tmp)
        dataset = Path(args.dataset) if args.dataset else root / "dataset"
        t0 = time.perf_counter()
        if not args.dataset:
            configs = [c for c in args.configs.split(",") if c] if args.configs else None
            build_dataset(dataset, args.profile, num_proc=args.num_proc, configs=configs)
        t_build = time.perf_counter() - t0
        rows = load_rows(str(dataset))
        asked = tuple(dict.fromkeys(str(r["task"]) for r in rows))
        t0 = time.perf_counter()
        runs = []
        for name in BASELINES[:args.judges]:
            judge = f"baseline:{name}"
            tasks = tuple(t for t in judge_tasks(judge, tuple(t.name for t in ALL_TASKS))
                          if t in asked)
            if not tasks:
                continue
            out = root / "runs" / name
            run_eval(EvalConfig(dataset=str(dataset), tasks=tasks, judge=judge, out=out,
                                progress=False))
            score(str(dataset), [out / PREDICTIONS_FILE], out, rows=rows, tasks=tasks,
                  settings=Settings(n_resamples=args.resamples))
            runs.append(out)
        t_eval = time.perf_counter() - t0
        report = root / "report"
        t0 = time.perf_counter()
        res = write_report(runs, report, overwrite=True)
        t_report = time.perf_counter() - t0
        data = collect(runs, work_dir=root / "collect")
        shutil.rmtree(report / FOLDER, ignore_errors=True)
        document = index_document(data, all_tables(data), res.figures, report)
        t0 = time.perf_counter()
        write_html(report, data, document, failures.markdown(data.judges))
        t_html = time.perf_counter() - t0

        page = report / "index.html"
        gallery = list((report / FOLDER).rglob("*"))
        figures = list((report / "figures").glob("*.png"))
        total = _mb([page, *gallery, *figures])
        items = page.read_text(encoding="utf-8").count('class="gitem"')
        print(f"profile {args.profile}: {len(runs)} judges, tasks {', '.join(asked)}; "
              f"build {t_build:.1f} s, eval+score {t_eval:.1f} s")
        print(f"report written in {t_report:.1f} s (tables, figures, page); "
              f"the page alone in {t_html:.1f} s")
        print(f"index.html {_mb([page]):.2f} MB, gallery {sum(1 for p in gallery if p.is_file())}"
              f" files {_mb(gallery):.2f} MB, figures {_mb(figures):.2f} MB: "
              f"{total:.2f} MB in all; {items} gallery items")
        target = TARGET_MB.get(args.profile)
        ok = t_html < TARGET_S and (target is None or total < target)
        if target is not None:
            print(f"targets: under {target:.0f} MB and {TARGET_S:.0f} s: "
                  f"{'met' if ok else 'MISSED'}")
        print(f"report folder: {res.out}" if args.out else "(temporary folder removed)")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

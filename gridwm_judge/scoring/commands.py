"""``gridwm-judge score``: predictions + dataset -> scores.json and rows.jsonl."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gridwm_judge.scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from gridwm_judge.scoring.join import AUDIT, join_judge, read_predictions, write_rows
from gridwm_judge.scoring.significance import holm, wilcoxon
from gridwm_judge.scoring.tables import Settings, score_judge

FORMAT = "gridwm-judge-scores/1"
TASK_CONFIGS = {f"task_{t.lower()}": t for t in "ABCDE"}
COMPARED = ("jacc_neu", "p_active", "idr_raw")


def load_rows(dataset: str, tasks: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Audit columns of every row of the dataset's task configs (images are never decoded)."""
    from gridwm_judge.dataset_io import available_configs, load_task

    configs = [c for c in available_configs(dataset) if c in TASK_CONFIGS]
    if tasks:
        want = {f"task_{t.lower()}" for t in tasks}
        missing = sorted(want - set(configs))
        if missing:
            raise ValueError(
                f"dataset {dataset!r} has no config {missing[0]!r}; it has: {', '.join(configs)}"
            )
        configs = [c for c in configs if c in want]
    if not configs:
        raise ValueError(
            f"dataset {dataset!r} has no task configs (expected some of {', '.join(TASK_CONFIGS)})"
        )
    rows: list[dict[str, Any]] = []
    for config in configs:
        ds = load_task(dataset, config)
        cols = [c for c in AUDIT if c in ds.column_names]
        rows.extend(ds.select_columns(cols).to_list())
    return rows


def _task_of(rec: Mapping[str, Any]) -> str:
    return str(rec.get("task") or str(rec["uid"]).split(".")[0]).upper()


def _run_records(predictions: Sequence[str | Path]) -> dict[str, Any]:
    """The run.json beside each predictions file (judge spec, seeds, dataset fingerprint)."""
    runs = {}
    for p in predictions:
        run = Path(p).parent / "run.json"
        if run.is_file():
            try:
                runs[str(p)] = json.loads(run.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{run}: not valid JSON ({exc.msg})") from None
    return runs


def _oracle_is_not_action_ignorant(block: dict) -> None:
    """An oracle answers from gold under every action condition: its Task A deltas are 0 by
    construction, which says nothing about a heuristic (the mode is not applicable)."""
    for mode in block["failure_modes"]:
        if mode["name"] == "action_ignorant_heuristic" and mode["flagged"]:
            mode["flagged"] = None
            mode["evidence"] = [
                "not applicable: the oracle reads the gold answer under every action "
                "condition, so its deltas are 0 by construction",
                *mode["evidence"],
            ]


def compare_judges(judges: Mapping[str, dict]) -> dict:
    """Composite vs split across judges (Wilcoxon signed-rank), Holm over the family."""
    tests = {}
    for metric in COMPARED:
        x, y = [], []
        for blk in judges.values():
            reps = blk["tasks"].get("C", {}).get("representations", {})
            if "composite" in reps and "split" in reps:
                a = reps["composite"]["causal"]["metrics"][metric]["value"]
                b = reps["split"]["causal"]["metrics"][metric]["value"]
                if a is not None and b is not None:
                    x.append(a)
                    y.append(b)
        if len(x) >= 2:
            t = wilcoxon(x, y)
            tests[metric] = {
                "statistic": t.statistic,
                "p_value": t.p_value,
                "method": t.method,
                "n_judges": len(x),
                "n_nonzero": t.n,
            }
    if tests:
        adj = holm([t["p_value"] for t in tests.values()])
        for t, p in zip(tests.values(), adj, strict=True):
            t["p_holm"] = float(p)
    return {"C_composite_vs_split": tests}


def score(
    dataset: str,
    predictions: Sequence[str | Path],
    out: str | Path,
    *,
    settings: Settings | None = None,
    tasks: Sequence[str] | None = None,
    overwrite: bool = False,
    rows: list[dict[str, Any]] | None = None,
) -> dict:
    """Score every judge found in ``predictions`` on ``dataset``; write DIR/scores.json and
    DIR/rows.jsonl; return the scores document. ``rows`` skips loading the dataset."""
    settings = settings or Settings()
    out = Path(out)
    target = out / "scores.json"
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass --overwrite to replace it")
    started = time.perf_counter()
    if rows is None:
        rows = load_rows(dataset, tasks)
    by_judge = read_predictions(predictions)
    if tasks:  # predictions for tasks not scored are set aside, not unknown
        keep = {t.upper() for t in tasks}
        by_judge = {j: [r for r in recs if _task_of(r) in keep] for j, recs in by_judge.items()}
    if not by_judge:
        raise ValueError(f"no prediction records in {', '.join(map(str, predictions))}")
    judges, graded_all, coverage = {}, [], {}
    for judge in sorted(by_judge):
        graded, cov = join_judge(judge, rows, by_judge[judge])
        # A task the judge was never run on is reported as coverage 0, not scored: its
        # all-missing rows would otherwise read as an all-invalid (and "unstable") judge.
        run = {t for t, c in cov.items() if c.n_predicted > 0}
        graded = [g for g in graded if g.task in run]
        graded_all.extend(graded)
        coverage[judge] = {t: c.to_json() for t, c in cov.items()}
        judges[judge] = {"coverage": coverage[judge], **score_judge(graded, settings)}
    runs = _run_records(predictions)
    for run in runs.values():
        if run.get("oracle_upper_bound") and run.get("judge") in judges:
            _oracle_is_not_action_ignorant(judges[run["judge"]])
    fingerprint = None
    try:
        from gridwm_judge.dataset_io import dataset_fingerprint

        fingerprint = dataset_fingerprint(dataset) if Path(dataset).is_dir() else None
    except (ImportError, OSError):
        pass
    from gridwm_judge import __version__

    doc = {
        "format": FORMAT,
        "package_version": __version__,
        "dataset": str(dataset),
        "dataset_fingerprint": fingerprint,
        "predictions": [str(p) for p in predictions],
        "runs": runs,
        "bootstrap": {
            "n_resamples": settings.n_resamples,
            "seed": settings.seed,
            "level": settings.level,
            "unit": "group_id",
            "env_unit": "env_id",
        },
        "judges": judges,
        "comparisons": compare_judges(judges),
        "elapsed_s": None,
    }
    out.mkdir(parents=True, exist_ok=True)
    write_rows(out / "rows.jsonl", graded_all)
    doc["elapsed_s"] = round(time.perf_counter() - started, 3)
    target.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return doc


def _handler(args: argparse.Namespace) -> int:
    tasks = [t.strip().upper() for t in args.tasks.split(",")] if args.tasks else None
    settings = Settings(n_resamples=args.n_resamples, seed=args.seed, with_les=not args.no_les)
    doc = score(
        args.dataset,
        args.predictions,
        args.out,
        settings=settings,
        tasks=tasks,
        overwrite=args.overwrite,
    )
    for judge, blk in doc["judges"].items():
        cov = ", ".join(
            f"{t} {c['n_predicted']}/{c['n_items']}" for t, c in blk["coverage"].items()
        )
        flags = [m["name"] for m in blk["failure_modes"] if m["flagged"]]
        print(f"{judge}: coverage {cov}; failure modes: {', '.join(flags) or 'none'}")
    print(f"wrote {Path(args.out) / 'scores.json'} and rows.jsonl in {doc['elapsed_s']} s")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score",
        help="score judge predictions against a dataset (scores.json + rows.jsonl)",
        description="Join predictions to dataset rows by uid, re-parse raw answers, compute every "
        "metric per task with group-bootstrap CIs, and diagnose failure modes.",
    )
    p.add_argument(
        "--dataset", required=True, help="dataset folder (scriptless Hub layout) or Hub repo id"
    )
    p.add_argument(
        "--predictions", required=True, nargs="+", help="predictions.jsonl file(s), any judges"
    )
    p.add_argument("--out", required=True, help="output folder for scores.json and rows.jsonl")
    p.add_argument(
        "--tasks", default="", help="comma-separated subset of A,B,C,D,E (default: all present)"
    )
    p.add_argument("--n-resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
    p.add_argument("--no-les", action="store_true", help="skip the LES mixed-model fits")
    p.add_argument("--overwrite", action="store_true", help="replace an existing scores.json")
    p.set_defaults(handler=_handler)

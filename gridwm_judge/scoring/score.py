"""Score predictions against a dataset: load the items, check that every prediction answered
the item the dataset holds under its uid now, join, score each judge, write scores.json and
rows.jsonl.

The check: each run's run.json names the dataset fingerprint it was asked from and every
prediction carries the hash of its request; both are compared with the dataset given. A
mismatch is refused (one line naming how many rows and an example uid); ``allow_mismatch``
scores anyway and the override is written into the scores.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gridwm_judge import __version__
from gridwm_judge.atomic import write_text
from gridwm_judge.dataset_io import (
    available_configs,
    dataset_fingerprint,
    dataset_provenance,
    load_task,
)
from gridwm_judge.install import release_line
from gridwm_judge.item_hash import item_digest, request_hash, stored_image_bytes
from gridwm_judge.parsing import PARSER_VERSIONS
from gridwm_judge.records import (
    RUN_FILE,
    SCORED_ROWS_FILE,
    SCORES_FILE,
    JudgeScores,
    PredictionRecord,
    RunRecord,
    ScoresRecord,
    read_prediction_file,
)
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.comparisons import compare_judges
from gridwm_judge.scoring.join import join_judge, write_rows
from gridwm_judge.scoring.judge_scores import failure_modes, score_tasks
from gridwm_judge.task_table import CONFIGS, is_task, task_spec

if TYPE_CHECKING:
    import pyarrow as pa

ROW_COLUMNS = ("uid", "task", "family", "env_id", "group_id", "item_id", "label", "answer",
               "variant", "temporal", "visual", "framing", "representation", "probe_family",
               "action_condition", "question", "prompt_style", "evidence")
_BATCH = 64


class ItemMismatchError(ValueError):
    """Predictions answered items other than the ones the dataset holds now."""


@dataclass(frozen=True)
class RunPredictions:
    """One predictions file, its run.json (None when absent) and its records."""

    path: Path
    run: RunRecord | None
    records: tuple[PredictionRecord, ...]


def load_rows(dataset: str, tasks: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Audit columns of every row of the dataset's task configs, plus ``item_digest`` (the hash
    of prompt and stored image bytes; images are never decoded)."""
    configs = [c for c in available_configs(dataset) if is_task(c)]
    if tasks:
        want = [task_spec(t).config for t in tasks]
        missing = [c for c in want if c not in configs]
        if missing:
            raise ValueError(
                f"dataset {dataset!r} has no config {missing[0]!r}; it has: {', '.join(configs)}"
            )
        configs = [c for c in configs if c in want]
    if not configs:
        raise ValueError(
            f"dataset {dataset!r} has no task configs (expected some of {', '.join(CONFIGS)})"
        )
    rows: list[dict[str, Any]] = []
    for config in configs:
        ds = load_task(dataset, config)
        cols = [c for c in ROW_COLUMNS if c in ds.column_names]
        audit = ds.select_columns(cols).to_list()
        items = ds.select_columns(["uid", "prompt", "images"]).with_format("arrow")
        digests = []
        for batch in items.iter(batch_size=_BATCH):
            for item in cast("pa.Table", batch).to_pylist():
                images = [stored_image_bytes(im, item["uid"]) for im in item["images"] or ()]
                digests.append(item_digest(task_spec(config).name, item["prompt"], images))
        for row, digest in zip(audit, digests, strict=True):
            row["item_digest"] = digest
        rows.extend(audit)
    return rows


def read_runs(predictions: Sequence[str | Path]) -> list[RunPredictions]:
    """Each predictions file with the run.json beside it."""
    out = []
    for p in predictions:
        path = Path(p)
        records = tuple(read_prediction_file(path))
        run_path = path.parent / RUN_FILE
        run = RunRecord.read(run_path) if run_path.is_file() else None
        out.append(RunPredictions(path, run, records))
    return out


def _answered_other_item(run: RunPredictions, rec: PredictionRecord,
                         row: Mapping[str, Any]) -> bool | None:
    """Whether ``rec`` answered an item other than ``row``'s; None when it cannot be told.
    Without an item digest the request hash is checked, with the budget the row was asked
    with (its prompt style's)."""
    digest = row["item_digest"]
    if rec.item_digest:
        return rec.item_digest != digest
    if run.run is None or not rec.request_hash:
        return None
    spec = task_spec(rec.task)
    base = run.run.budget(spec.name, spec.max_tokens)
    budget = spec.budget(str(row.get("prompt_style") or ""), base)
    return rec.request_hash != request_hash(run.run.identity(), budget, digest)


def mismatches(runs: Sequence[RunPredictions], rows: Sequence[Mapping[str, Any]],
               fingerprint: str | None) -> list[str]:
    """Why the predictions may not be scored against these rows (empty: they may)."""
    by_uid = {str(r["uid"]): r for r in rows}
    problems = []
    for run in runs:
        checks = [(r.uid, _answered_other_item(run, r, by_uid[r.uid]))
                  for r in run.records if r.uid in by_uid]
        bad = [uid for uid, other in checks if other]
        unknown = [uid for uid, other in checks if other is None]
        if bad:
            problems.append(f"{run.path}: {len(bad)} prediction(s) answered a different item "
                            f"than the dataset holds under their uid (e.g. {bad[0]!r})")
        if unknown:
            problems.append(f"{run.path}: {len(unknown)} prediction(s) carry no item hash "
                            f"to check (e.g. {unknown[0]!r})")
        recorded = run.run.dataset_fingerprint if run.run else None
        if fingerprint and recorded and recorded != fingerprint:
            problems.append(f"{run.path}: the run was asked from dataset {recorded[:19]}..., "
                            f"the dataset given is {fingerprint[:19]}...")
    return problems


SHOWN_PROBLEMS = 5
"""Problems a refusal to score names one by one (one per predictions file at most)."""
UNVERSIONED = "0.1.0"
"""The dataset version of a build (or a run's dataset) that records none: versions were first
recorded by 0.2.0."""


def version_change(runs: Sequence[RunPredictions], dataset: str) -> str:
    """Why the items may differ when a run was asked from another dataset version (or NoCue
    style) than the given local dataset's, with how to rebuild the one it was asked from
    ("" otherwise). Package and dataset versions share their numbers, so a run that records no
    builder package is rebuilt by the release of its dataset version."""
    if not Path(dataset).is_dir():
        return ""
    given = dataset_provenance(dataset)
    here = given.get("dataset_version") or UNVERSIONED
    for run in runs:
        if run.run is None:
            continue
        prov = run.run.dataset_provenance
        asked = prov.get("dataset_version") or UNVERSIONED
        style = prov.get("nocue_style")
        other_style = bool(style and given.get("nocue_style") and style != given["nocue_style"])
        if asked == here and not other_style:
            continue
        package = prov.get("package_version") or asked
        seeds = prov.get("seeds") or {}
        build = (f"gridwm-judge build --profile {prov.get('profile', 'PROFILE')} "
                 f"--seed {seeds.get('generation', 'SEED')} "
                 f"--sampling-seed {seeds.get('sampling', 'SEED')}"
                 + (f" --nocue-style {style}" if style else "") + " --out DIR")
        if asked == here:
            return (f". {run.path} was asked from a --nocue-style {style} build, the dataset "
                    f"given is {given['nocue_style']}: rebuild the one it was asked from with "
                    f"{build}")
        return (f". The dataset changed version: {run.path} was asked from dataset version "
                f"{asked}, the dataset given is version {here} (CHANGELOG.md says what "
                f"changed). Rebuild the one it was asked from with the release that built it: "
                f"{release_line(package)} && {build}"
                + (" (its task_c and task_d items are also rebuilt by this release with "
                   "--nocue-style occlude)" if asked == UNVERSIONED else ""))
    return ""


def _unknown_uids(runs: Sequence[RunPredictions], known: set[str], keep: set[str] | None
                  ) -> list[str]:
    """One problem per predictions file with uids the dataset does not hold."""
    problems = []
    for run in runs:
        bad = [r.uid for r in run.records
               if (keep is None or r.task in keep) and r.uid not in known]
        if bad:
            problems.append(f"{run.path}: {len(bad)} prediction(s) for uids the dataset does not "
                            f"hold (e.g. {bad[0]!r}); --allow-mismatch sets them aside")
    return problems


def _local_fingerprint(dataset: str) -> str | None:
    return dataset_fingerprint(dataset) if Path(dataset).is_dir() else None


def score(
    dataset: str,
    predictions: Sequence[str | Path],
    out: str | Path,
    *,
    settings: Settings | None = None,
    tasks: Sequence[str] | None = None,
    rules: str = "committed",
    overwrite: bool = False,
    allow_mismatch: bool = False,
    rows: list[dict[str, Any]] | None = None,
) -> ScoresRecord:
    """Score every judge found in ``predictions`` on ``dataset``; write DIR/scores.json and
    DIR/rows.jsonl; return the scores. ``rows`` (from :func:`load_rows`) skips reloading."""
    settings = settings or Settings()
    if rules not in PARSER_VERSIONS:
        raise ValueError(f"unknown parser rules {rules!r}; expected one of "
                         f"{', '.join(PARSER_VERSIONS)}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is a file; give a folder for --out")
    target = out / SCORES_FILE
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass --overwrite to replace it")
    started = time.perf_counter()
    runs = read_runs(predictions)
    if rows is None:
        rows = load_rows(dataset, tasks)
    fingerprint = _local_fingerprint(dataset)
    keep = {task_spec(t).name for t in tasks} if tasks else None
    known = {str(r["uid"]) for r in rows}
    problems = _unknown_uids(runs, known, keep) + mismatches(runs, rows, fingerprint)
    if problems and not allow_mismatch:
        shown = problems[:SHOWN_PROBLEMS]
        more = (f" (and {len(problems) - len(shown)} more)"
                if len(problems) > len(shown) else "")
        raise ItemMismatchError(f"refusing to score: {'; '.join(shown)}{more}; score against the "
                                "dataset the run was asked from, or pass --allow-mismatch"
                                + version_change(runs, dataset))
    by_judge: dict[str, list[PredictionRecord]] = {}
    reads_gold: set[str] = set()
    for run in runs:
        for rec in run.records:
            # predictions for tasks not scored, or (allowed) for uids the dataset lacks: aside
            if (keep is None or rec.task in keep) and rec.uid in known:
                by_judge.setdefault(rec.judge, []).append(rec)
        if run.run and run.run.oracle_upper_bound:
            reads_gold.add(run.run.judge)
    if not by_judge:
        raise ValueError(f"no prediction records in {', '.join(map(str, predictions))}")
    judges, graded_all = {}, []
    for judge in sorted(by_judge):
        joined = join_judge(judge, rows, by_judge[judge], rules=rules)
        graded_all.extend(joined.graded)
        results = score_tasks(joined.graded, settings)
        judges[judge] = JudgeScores(
            joined.coverage, failure_modes(results, reads_gold=judge in reads_gold), results)
    record = ScoresRecord(
        package_version=__version__,
        dataset=str(dataset),
        dataset_fingerprint=fingerprint,
        predictions=tuple(str(p) for p in predictions),
        runs={str(r.path): r.run.to_json() for r in runs if r.run is not None},
        parser={"rules": rules, "version": PARSER_VERSIONS[rules]},
        bootstrap={"n_resamples": settings.n_resamples, "seed": settings.seed,
                   "level": settings.level, "unit": "group_id", "env_unit": "env_id"},
        judges=judges,
        comparisons=compare_judges(judges),
        overrides=tuple(f"allow_mismatch: {p}" for p in problems),
        elapsed_s=round(time.perf_counter() - started, 3),
    )
    out.mkdir(parents=True, exist_ok=True)
    write_rows(out / SCORED_ROWS_FILE, graded_all)
    write_text(target, record.dumps())
    return record

"""Gather what a report reads: each RUN_DIR's run.json, its scores (scores.json, or scored now
against the dataset its run.json names) and a merged view over every judge of every run.

A report never computes a metric itself: every number comes from the scores record
(:class:`gridwm_judge.records.ScoresRecord`); only the across-judge comparison is run again,
by the scoring package, over the union of the runs shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gridwm_judge.records import (
    PREDICTIONS_FILE,
    RUN_FILE,
    SCORES_FILE,
    JudgeScores,
    RunRecord,
    ScoresRecord,
)
from gridwm_judge.results import Results
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.comparisons import compare_judges
from gridwm_judge.scoring.score import score
from gridwm_judge.scoring.scores_file import read_scores
from gridwm_judge.task_table import ALL_TASKS


@dataclass(frozen=True)
class RunInput:
    """One RUN_DIR: where it is, its run.json, and the scores document that covers it."""

    name: str  # short, unique among the report's runs (the folder name, suffixed if repeated)
    path: Path
    run: RunRecord | None  # None: no run.json, and a scores.json that records none
    scores: ScoresRecord
    scores_path: Path
    scored_now: bool  # True when the report computed scores.json itself

    @property
    def dataset(self) -> str:
        return (self.run.dataset if self.run else "") or self.scores.dataset or ""

    @property
    def fingerprint(self) -> str | None:
        return (self.run.dataset_fingerprint if self.run else None) or (
            self.scores.dataset_fingerprint)


@dataclass(frozen=True)
class JudgeEntry:
    """One judge's scores, labelled for the report's columns."""

    label: str  # judge id, suffixed with the run name when two runs hold the same judge
    judge: str
    run: RunInput
    scores: JudgeScores = field(repr=False)
    is_oracle: bool = False  # reads the gold answer (run.json "oracle_upper_bound")

    @property
    def results(self) -> Results:
        return self.scores.results

    def asked(self, tasks: Sequence[str]) -> bool:
        """Whether this judge was asked any of ``tasks`` (task names, e.g. "C", "MC"): at
        least one of its requests was sent (answered or errored). A task of the dataset the
        run never requested is not asked, though its coverage counts its rows."""
        return any((cov := self.scores.coverage.get(t)) is not None
                   and cov.answered + cov.errored > 0 for t in tasks)


@dataclass(frozen=True)
class ReportData:
    runs: tuple[RunInput, ...]
    judges: tuple[JudgeEntry, ...]
    comparisons: Results
    n_resamples: int | None = None
    """Bootstrap resamples for what the report computes itself (None: the default)."""

    def asked(self, tasks: Sequence[str]) -> bool:
        """Whether any judge of the report was asked any of ``tasks``: a section is drawn
        only then, so a report shows what was run."""
        return any(e.asked(tasks) for e in self.judges)

    def only(self, tasks: Sequence[str]) -> ReportData:
        """This report with only the judges asked any of ``tasks`` (a figure of those tasks
        shows them, not other judges as bars of "not run")."""
        return replace(self, judges=tuple(e for e in self.judges if e.asked(tasks)))

    def run(self) -> tuple[str, ...]:
        """The tasks some judge was asked, in task-table order."""
        return tuple(t.name for t in ALL_TASKS if self.asked((t.name,)))

    def not_run(self) -> tuple[str, ...]:
        """The task table's tasks no judge was asked (their sections are left out)."""
        return tuple(t.name for t in ALL_TASKS if not self.asked((t.name,)))


def resolve_dataset(dataset: str, run_dir: Path) -> str:
    """The dataset a run.json names: a path written ``./...`` or ``../...`` is relative to the
    run folder (a published run inside the folder it was imported into); any other as
    written, else relative to the run folder's parents."""
    if not dataset:
        raise ValueError(f"{run_dir / RUN_FILE} names no dataset; pass scores.json instead")
    p = Path(dataset).expanduser()
    if dataset.startswith(("./", "../")) and (run_dir / p).is_dir():
        return str(run_dir / p)
    if p.is_dir() or p.is_absolute():
        return str(p)
    for base in (run_dir, *run_dir.resolve().parents):
        if (base / p).is_dir():
            return str(base / p)
    return dataset  # a Hub repo id


def _score_now(run_dir: Path, run: RunRecord, out: Path, n_resamples: int | None,
               allow_mismatch: bool = False) -> Path:
    dataset = resolve_dataset(run.dataset, run_dir)
    settings = Settings() if n_resamples is None else Settings(n_resamples=n_resamples)
    tasks = run.tasks or None
    score(dataset, [run_dir / PREDICTIONS_FILE], out, settings=settings, tasks=tasks,
          overwrite=True, allow_mismatch=allow_mismatch)
    return out / SCORES_FILE


def load_run(
    run_dir: str | Path, *, score_dir: Path, name: str, n_resamples: int | None = None,
    allow_mismatch: bool = False,
) -> RunInput:
    """Read RUN_DIR; score it into ``score_dir`` when it has no scores.json of its own."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"run folder {str(run_dir)!r} does not exist")
    run_json, preds = run_dir / RUN_FILE, run_dir / PREDICTIONS_FILE
    run = RunRecord.read(run_json) if run_json.is_file() else None
    scores_path = run_dir / SCORES_FILE
    scored_now = False
    if not scores_path.is_file():
        if not preds.is_file():
            raise FileNotFoundError(
                f"{run_dir} holds neither {SCORES_FILE} nor {PREDICTIONS_FILE}; expected a folder "
                "written by `gridwm-judge eval` (and optionally `gridwm-judge score`)"
            )
        if not run:
            raise FileNotFoundError(f"{run_json} is missing: cannot tell which dataset to score")
        scores_path = _score_now(run_dir, run, score_dir, n_resamples, allow_mismatch)
        scored_now = True
    scores = read_scores(scores_path)
    if not run and scores.runs:  # a scores.json written from this run records it
        first = next(iter(scores.runs.items()))
        run = RunRecord.from_json(first[1], where=f"{scores_path}: runs[{first[0]!r}]")
    return RunInput(name, run_dir, run, scores, scores_path, scored_now)


def _unique_names(paths: Sequence[Path]) -> list[str]:
    names, seen = [], {}
    for p in paths:
        base = p.resolve().name or "run"
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return names


def collect(
    run_dirs: Sequence[str | Path], *, work_dir: Path, n_resamples: int | None = None,
    allow_mismatch: bool = False,
) -> ReportData:
    """Load every run and merge their judges; re-run the across-judge comparisons on the union."""
    if not run_dirs:
        raise ValueError(
            "no RUN_DIR given; pass at least one folder written by `gridwm-judge eval`"
        )
    paths = list({Path(p).resolve(): Path(p) for p in run_dirs}.values())  # a run given twice
    names = _unique_names(paths)
    runs = tuple(
        load_run(p, score_dir=work_dir / "scores" / n, name=n, n_resamples=n_resamples,
                 allow_mismatch=allow_mismatch)
        for p, n in zip(paths, names, strict=True)
    )
    own = [(r, j) for r in runs for j in _judges_of(r)]
    counts: dict[str, int] = {}
    for _r, j in own:
        counts[j] = counts.get(j, 0) + 1
    entries = tuple(
        JudgeEntry(
            j if counts[j] == 1 else f"{j} [{r.name}]",
            j,
            r,
            r.scores.judges[j],
            _oracle(r, j),
        )
        for r, j in own
    )
    comparisons = compare_judges({e.label: e.scores for e in entries})
    return ReportData(runs, entries, comparisons, n_resamples)


def _oracle(run: RunInput, judge: str) -> bool:
    """Whether ``judge`` read the gold answer, from the run.json that produced it."""
    records = [run.run] if run.run and (run.path / RUN_FILE).is_file() else []
    records += [RunRecord.from_json(r, where=f"{run.scores_path}: runs[{p!r}]")
                for p, r in run.scores.runs.items()]
    for rec in records:
        if rec.judge == judge:
            return rec.oracle_upper_bound
    return judge == "baseline:oracle"


def _judges_of(run: RunInput) -> list[str]:
    """The judges of a run: its run.json's judge when scores.json holds several, else all."""
    judges = list(run.scores.judges)
    mine = run.run.judge if run.run and (run.path / RUN_FILE).is_file() else None
    if mine in judges and len(run.scores.predictions) > 1:
        return [mine]
    return judges

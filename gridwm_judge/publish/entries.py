"""What gets published: one judge's scored run, read from a run folder or a score folder.

A SOURCE is a folder holding ``scores.json``: a run folder scored into itself (what
``quickstart`` writes, or ``score --out RUN``), or a ``score --out`` folder over several runs
(the paper's ten published judges). Each judge of that scores.json becomes one
:class:`Entry`: its run record, its figures, its predictions file. An entry is keyed by judge
and dataset digest (:attr:`Entry.key`): publishing it again replaces its rows, and entries of
different digests are never ranked together.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gridwm_judge.records import (
    PREDICTIONS_FILE,
    RUN_FILE,
    SCORES_FILE,
    JudgeScores,
    RunRecord,
    ScoresRecord,
)
from gridwm_judge.scoring.scores_file import read_scores


class PublishError(ValueError):
    """A source that cannot be published as it is; the message names it and what to do."""


def local_model(judge: str) -> str | None:
    """The local path a judge's spec names as its model (``hf:/home/me/ckpt``), None where it
    names a Hub id, an API model or a rule."""
    rest = judge.partition(":")[2]
    if rest.startswith(("/", "~", "./", "../")) or (rest and Path(rest).exists()):
        return rest
    return None


def public_judge(judge: str) -> str:
    """The judge as published: a local model path becomes ``local/<folder name>-<hash>`` (a
    path names a folder on someone's disk, and may name the person); anything else as is."""
    path = local_model(judge)
    if path is None:
        return judge
    digest = hashlib.sha256(path.encode()).hexdigest()[:8]
    return f"{judge.partition(':')[0]}:local/{Path(path.rstrip('/')).name}-{digest}"


@dataclass(frozen=True)
class Entry:
    """One judge's scored run: everything a publish writes about it."""

    judge: str
    run: RunRecord
    scores: JudgeScores
    record: ScoresRecord  # the scores.json it came from (parser, bootstrap, fingerprint)
    predictions: Path
    source: Path

    @property
    def digest(self) -> str:
        """The dataset digest the run answered (run.json's fingerprint, ``sha256:...``)."""
        return self.run.dataset_fingerprint or ""

    @property
    def dataset_version(self) -> str:
        return str(self.run.dataset_provenance.get("dataset_version") or "")

    @property
    def key(self) -> str:
        """``<judge slug>-<judge hash>--<digest head>``: the same judge on the same dataset is
        the same key (a file name in the results repo), whatever folder it came from."""
        public = public_judge(self.judge)
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", public).strip("-")[:60] or "judge"
        judge_hash = hashlib.sha256(public.encode()).hexdigest()[:8]
        return f"{slug}-{judge_hash}--{self.digest.removeprefix('sha256:')[:12]}"


def _predictions_of(source: Path, record: ScoresRecord, judge: str
                    ) -> tuple[RunRecord, Path]:
    """The run record and predictions file of ``judge`` in ``record`` (its ``runs`` maps each
    predictions path it scored to that run's run.json)."""
    for path, obj in record.runs.items():
        run = RunRecord.from_json(obj, where=f"{source / SCORES_FILE}: runs[{path!r}]")
        if run.judge != judge:
            continue
        for candidate in (Path(path), source / Path(path).name,
                          source / Path(path).parent.name / Path(path).name):
            if candidate.is_file():
                return run, candidate
        raise PublishError(f"{source / SCORES_FILE} scored {judge} from {path}, which is no "
                           "longer there; score the run again where it is")
    if (source / RUN_FILE).is_file() and (source / PREDICTIONS_FILE).is_file():
        run = RunRecord.read(source / RUN_FILE)
        if run.judge == judge:
            return run, source / PREDICTIONS_FILE
    raise PublishError(f"{source / SCORES_FILE} holds scores of {judge} but no run record for "
                       "it; score the run's predictions.jsonl with `gridwm-judge score`")


def entries_of(source: str | Path) -> list[Entry]:
    """Every judge of ``source``'s scores.json as an :class:`Entry`; a folder without scores,
    or scores of another dataset than the run answered, is a :class:`PublishError`."""
    source = Path(source)
    if not source.is_dir():
        raise PublishError(f"{source} is not a folder; expected a run folder with "
                           f"{SCORES_FILE} or a `gridwm-judge score --out` folder")
    if not (source / SCORES_FILE).is_file() and not (source / PREDICTIONS_FILE).is_file():
        raise PublishError(f"{source} holds neither {SCORES_FILE} nor {PREDICTIONS_FILE}: "
                           "expected a scored run folder (`gridwm-judge eval`, then `score "
                           "--out RUN`) or a `gridwm-judge score --out` folder")
    if not (source / SCORES_FILE).is_file():
        hint = (f"gridwm-judge score --dataset DATASET --predictions {source / PREDICTIONS_FILE} "
                f"--out {source}")
        raise PublishError(f"{source} has no {SCORES_FILE}: nothing scored to publish; run "
                           f"`{hint}` first")
    try:
        record = read_scores(source / SCORES_FILE)
    except (ValueError, KeyError, TypeError) as exc:
        raise PublishError(f"{source / SCORES_FILE} cannot be read: {exc}") from None
    out = []
    for judge, scores in record.judges.items():
        run, predictions = _predictions_of(source, record, judge)
        if not run.dataset_fingerprint:
            raise PublishError(f"{source}: the run of {judge} records no dataset digest; "
                               "only runs of `gridwm-judge eval` (or import-paper) are published")
        if record.dataset_fingerprint and record.dataset_fingerprint != run.dataset_fingerprint:
            raise PublishError(
                f"{source / SCORES_FILE} scored {judge} against another dataset "
                f"({record.dataset_fingerprint[:19]}...) than the run answered "
                f"({run.dataset_fingerprint[:19]}...); score it against the run's dataset")
        out.append(Entry(judge, run, scores, record, predictions, source))
    if not out:
        raise PublishError(f"{source / SCORES_FILE} holds no judge's scores")
    return out


def gather(sources: Sequence[str | Path]) -> list[Entry]:
    """The entries of every source, in order; the same judge on the same dataset twice is a
    :class:`PublishError` (which one is meant?)."""
    seen: dict[str, Path] = {}
    out: list[Entry] = []
    for source in sources:
        for e in entries_of(source):
            if e.key in seen:
                raise PublishError(f"{e.judge} on dataset {e.digest[:19]}... is in both "
                                   f"{seen[e.key]} and {e.source}; publish one of them")
            seen[e.key] = e.source
            out.append(e)
    return out


def judges(entries: Iterable[Entry]) -> list[str]:
    return list(dict.fromkeys(e.judge for e in entries))

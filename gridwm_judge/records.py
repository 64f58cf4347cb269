"""The typed, versioned records that cross the pipeline after the dataset: a judge's
prediction for one item (``predictions.jsonl``), what a run means (``run.json``) and the
scores of a set of judges (``scores.json``). The dataset row is
:class:`gridwm_judge.schema.DatasetRow`.

Each record is a frozen dataclass with ``to_json`` / ``from_json``; ``from_json`` checks what
it reads and names the bad value, so no part reads another part's output through chains of
``dict.get``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from gridwm_judge.results import Results

STATUSES = ("ok", "error", "truncated", "empty")
"""What came back for a request. ``ok`` / ``empty`` / ``truncated`` are what the model said;
``error`` means nothing came back (transport, HTTP error, timeout): it is never scored."""
ANSWERED = ("ok", "empty", "truncated")
PARSE_MODES = ("strict", "recovered", "invalid")
PREDICTION_FORMAT = "gridwm-judge-prediction/2"

# The files of a run folder (written by eval and score).
PREDICTIONS_FILE = "predictions.jsonl"
RUN_FILE = "run.json"
SCORES_FILE = "scores.json"
SCORED_ROWS_FILE = "rows.jsonl"
RUN_FORMAT = "gridwm-judge-run/1"
PUBLISHED = "published"
"""A run's ``source.kind`` (and its judge spec's prefix) for answers imported from the paper's
release: not a run this package made."""
SCORES_FORMAT = "gridwm-judge-scores/3"
PREVIOUS_SCORES_FORMAT = "gridwm-judge-scores/2"
"""Read by ``score`` and ``report`` (its nested ``tasks`` blocks become results on reading)."""


@dataclass(frozen=True)
class PublishedParse:
    """The parse an answer was published with (the paper's release publishes its authors'
    own per row): ``value`` "success" / "failure" / a letter / a label, or None where it
    gave none; ``mode`` strict / recovered / invalid in this package's terms;
    ``as_published`` the release's own fields (its parse mode, normalised answer, gold ...)."""

    value: str | None
    mode: str
    as_published: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in PARSE_MODES:
            raise ValueError(f"published parse mode {self.mode!r} is not one of "
                             f"{', '.join(PARSE_MODES)}")

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "mode": self.mode, "as_published": dict(self.as_published)}

    @classmethod
    def from_json(cls, obj: Any) -> PublishedParse:
        if not isinstance(obj, Mapping):
            raise ValueError(f"a published parse is an object, got {type(obj).__name__}")
        return cls(obj.get("value"), str(obj.get("mode")), dict(obj.get("as_published") or {}))


@dataclass(frozen=True)
class PredictionRecord:
    """One judge's answer to one item, as ``eval`` stores it (one JSON line per uid).

    ``raw`` is the answer text and ``reasoning`` a reasoning model's thinking (never parsed).
    ``parsed`` / ``parse_mode`` are eval's reading, kept for a quick look; ``score`` parses
    ``raw`` again, so a better parser applies to old runs. ``request_hash`` identifies what was
    asked (judge, prompt, images, budget) and ``item_digest`` the item alone (prompt and
    images): scoring refuses a dataset whose item under that uid differs. ``sent`` holds the
    decoding fields the request carried (as the backend wrote them) and ``served`` what the
    server said answered it (``model``, ``fingerprint``), ``finish_reason`` the API's word for
why the answer ended (``refusal``, ``SAFETY``, ...); all None where not known. ``published``
is the :class:`PublishedParse` an answer was published with (answers imported from the paper's
release), what ``score --rules published`` reads; None elsewhere.
    """

    uid: str
    judge: str
    task: str
    raw: str | None
    status: str
    request_hash: str
    item_digest: str = ""
    parsed: Any = None
    parse_mode: str = "invalid"
    latency_s: float = 0.0
    usage: Mapping[str, int | None] | None = None
    error: str | None = None
    reasoning: str | None = None
    sent: Mapping[str, Any] | None = None
    served: Mapping[str, str] | None = None
    finish_reason: str | None = None
    published: PublishedParse | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(
                f"prediction {self.uid!r} has unknown status {self.status!r}; "
                f"expected one of {', '.join(STATUSES)}"
            )

    @property
    def answered(self) -> bool:
        """Something came back from the model (errors are not answers)."""
        return self.status in ANSWERED

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PREDICTION_FORMAT,
            "uid": self.uid,
            "judge": self.judge,
            "task": self.task,
            "raw": self.raw,
            "reasoning": self.reasoning,
            "status": self.status,
            "parsed": self.parsed,
            "parse_mode": self.parse_mode,
            "request_hash": self.request_hash,
            "item_digest": self.item_digest,
            "latency_s": self.latency_s,
            "usage": dict(self.usage) if self.usage is not None else None,
            "error": self.error,
            **({"sent": dict(self.sent)} if self.sent is not None else {}),
            **({"served": dict(self.served)} if self.served is not None else {}),
            **({"finish_reason": self.finish_reason} if self.finish_reason else {}),
            **({"published": self.published.to_json()} if self.published is not None else {}),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, where: str = "") -> PredictionRecord:
        """Read one line; records of format 1 (no ``format`` / ``reasoning``) read the same."""
        at = f"{where}: " if where else ""
        if not isinstance(obj, Mapping) or "uid" not in obj:
            raise ValueError(f"{at}a prediction record needs a 'uid' field")
        for key in ("judge", "status"):
            if not isinstance(obj.get(key), str):
                raise ValueError(f"{at}prediction {obj['uid']!r} has no string {key!r} field")
        uid = str(obj["uid"])
        try:
            return cls(
                uid=uid,
                judge=obj["judge"],
                task=str(obj.get("task") or uid.split(".")[0]).upper(),
                raw=obj.get("raw"),
                status=obj["status"],
                request_hash=str(obj.get("request_hash") or ""),
                item_digest=str(obj.get("item_digest") or ""),
                parsed=obj.get("parsed"),
                parse_mode=str(obj.get("parse_mode") or "invalid"),
                latency_s=float(obj.get("latency_s") or 0.0),
                usage=obj.get("usage"),
                error=obj.get("error"),
                reasoning=obj.get("reasoning"),
                sent=obj.get("sent"),
                served=obj.get("served"),
                finish_reason=obj.get("finish_reason"),
                published=(None if obj.get("published") is None
                           else PublishedParse.from_json(obj["published"])),
            )
        except ValueError as exc:
            raise ValueError(f"{at}{exc}") from None


def read_prediction_file(path: str | Path) -> list[PredictionRecord]:
    """Every record of one predictions.jsonl, checked line by line."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{str(path)!r} is a folder; expected a predictions.jsonl file")
    if not path.is_file():
        raise FileNotFoundError(f"predictions file {str(path)!r} does not exist")
    out = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg}); if eval was "
                                 "interrupted, rerun the same eval command to repair the file"
                                 ) from None
            out.append(PredictionRecord.from_json(obj, where=f"{path}:{n}"))
    return out


# --- run ---------------------------------------------------------------------------------
_RUN_OPTIONAL = ("judge_settings", "as_sent", "usage", "cost", "source")
"""RunRecord fields written only when known."""


@dataclass(frozen=True)
class RunRecord:
    """run.json: what a run means and how it went, written by ``eval`` (and by
    ``import-inspect``), read by ``score`` and ``report``.

    The identity of the run (a resume must match it): ``judge`` (its spec), ``judge_options``
    and ``judge_settings`` (the answer-changing settings; None until the judge is loaded),
    ``max_tokens`` per task (``"TASK/STYLE"`` where a prompt style's differs),
    ``representation``, ``seed``, ``dataset_fingerprint`` and ``prompt_version``. What it
    asked: ``dataset`` (a path or Hub id; ``../../..``, relative to the run folder, in a
    published run inside the folder it was imported into), its ``dataset_provenance`` (the
    build's version, profile and seeds), ``tasks``, ``limit``. How it ran: ``engine``,
    ``operational`` (workers, retries ...: they may change on a resume), ``created`` /
    ``updated``, ``as_sent`` (what the requests carried), ``usage`` (tokens) and ``cost`` (their
    USD by the prices file, with its date; ``usd`` None and why where unknown);
    ``oracle_upper_bound`` for a judge that reads the gold answer; ``source`` for a run
    converted from another framework's log, or (``kind`` "published") answers published with
    the paper's release: :attr:`published`.
    A run.json of no ``format`` (written before it had one) reads the same.
    """

    judge: str
    dataset: str = ""
    judge_options: Mapping[str, Any] = field(default_factory=dict)
    judge_settings: Mapping[str, Any] | None = None
    max_tokens: Mapping[str, int] = field(default_factory=dict)
    representation: str | None = None
    seed: int | None = None
    dataset_fingerprint: str | None = None
    dataset_provenance: Mapping[str, Any] = field(default_factory=dict)
    prompt_version: str | None = None
    package_version: str | None = None
    tasks: tuple[str, ...] = ()
    limit: int | None = None
    engine: Mapping[str, Any] = field(default_factory=dict)
    operational: Mapping[str, Any] = field(default_factory=dict)
    created: str | None = None
    updated: str | None = None
    oracle_upper_bound: bool = False
    as_sent: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] | None = None
    cost: Mapping[str, Any] | None = None
    source: Mapping[str, Any] | None = None

    @property
    def published(self) -> bool:
        """Answers published with the paper's release, imported by ``import-paper``: nothing
        this package asked (model and provider as the release records them)."""
        return isinstance(self.source, Mapping) and self.source.get("kind") == PUBLISHED

    def identity(self) -> dict[str, Any]:
        """What a request hash is taken over besides the item and budget: the judge, its
        options and its settings."""
        return {"judge": self.judge, "judge_options": _plain(self.judge_options),
                "judge_settings": _plain(self.judge_settings)}

    def budget(self, task: str, default: int) -> int:
        """The token budget the run gave ``task`` (``default`` where it names none)."""
        return int(self.max_tokens.get(task, default))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": RUN_FORMAT}
        for f in fields(self):
            value = _plain(getattr(self, f.name))
            if f.name not in _RUN_OPTIONAL or value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, obj: Any, *, where: str = RUN_FILE) -> RunRecord:
        fmt = obj.get("format") if isinstance(obj, Mapping) else None
        if not isinstance(obj, Mapping) or fmt not in (None, RUN_FORMAT):
            raise ValueError(
                f"{where} has format {fmt!r}, this version reads {RUN_FORMAT!r}: run "
                "`gridwm-judge eval` again into a new --out folder (or use the release that "
                "wrote it)")
        if not isinstance(obj.get("judge"), str):
            raise ValueError(f"{where} has no string 'judge' field (the judge spec it ran)")
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in obj.items() if k in known and v is not None}
        try:
            return cls(**{**kw, "tasks": tuple(kw.get("tasks", ())),
                          "oracle_upper_bound": bool(kw.get("oracle_upper_bound", False))})
        except TypeError as exc:
            raise ValueError(f"{where}: {exc}") from None

    @classmethod
    def read(cls, path: str | Path) -> RunRecord:
        return cls.from_json(_json_file(path), where=str(path))


def _json_file(path: str | Path) -> Any:
    """The JSON value in ``path``; a file that is not JSON is one ValueError naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg})") from None


def _plain(value: Any) -> Any:
    """A mapping as a plain dict (what JSON and the request hash take)."""
    return dict(value) if isinstance(value, Mapping) else value


# --- scores -----------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskCoverage:
    """How much of one task a judge answered.

    ``asked`` counts the task's dataset rows; ``answered`` those whose request came back
    (ok / empty / truncated), ``errored`` those where nothing came back, ``missing`` those
    never asked; ``invalid`` the answered ones that did not parse. Only answered rows are
    scored; ``coverage`` = answered / asked. For answers published with a parse of their own
    (the paper's release), ``disagree`` counts the answered rows whose published verdict and
    this package's parser's (the default rules) differ, and ``disagree_head`` names the
    first; None for answers without one.
    """

    asked: int
    answered: int
    errored: int
    missing: int
    invalid: int
    parse_modes: Mapping[str, int]
    statuses: Mapping[str, int]
    unanswered_head: tuple[str, ...] = ()
    disagree: int | None = None
    disagree_head: tuple[str, ...] = ()

    @property
    def coverage(self) -> float | None:
        return None if self.asked == 0 else self.answered / self.asked

    @property
    def complete(self) -> bool:
        return self.asked > 0 and self.answered == self.asked

    def to_json(self) -> dict[str, Any]:
        return {
            "asked": self.asked,
            "answered": self.answered,
            "errored": self.errored,
            "missing": self.missing,
            "invalid": self.invalid,
            "coverage": self.coverage,
            "parse_modes": dict(self.parse_modes),
            "statuses": dict(self.statuses),
            "unanswered_head": list(self.unanswered_head),
            **({"disagree": self.disagree, "disagree_head": list(self.disagree_head)}
               if self.disagree is not None else {}),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TaskCoverage:
        disagree = obj.get("disagree")
        return cls(int(obj["asked"]), int(obj["answered"]), int(obj["errored"]),
                   int(obj["missing"]), int(obj["invalid"]), dict(obj["parse_modes"]),
                   dict(obj["statuses"]), tuple(obj.get("unanswered_head", ())),
                   None if disagree is None else int(disagree),
                   tuple(obj.get("disagree_head", ())))


MODE_STATUSES = ("flagged", "suggested", "clear", "not assessed", "not applicable")


MODE_LABELS: Mapping[str, str] = {
    "presentation_leakage": "leakage",
    "representation_fragility": "rep-fragile",
    "action_ignorant_heuristic": "action-ignorant",
    "causal_misgrounding": "misgrounded",
    "stability_trap": "stability-trap",
    "all_fail": "all-fail",
    "success_biased": "success-biased",
    "low_activation": "low-activation",
}
"""Each failure mode's and degenerate-judge flag's one display name, in the order every output
lists them: what ``score`` prints, the report's tables, scores.json's ``label`` and the docs
say (the key is the mode's ``name`` in scores.json)."""


@dataclass(frozen=True)
class FailureModeRecord:
    """One failure mode of one judge in one world ("minigrid", or "miniworld": diagnosed on its
    own, never pooled): its status and the evidence sentences behind it. ``label`` is the
    one name every output shows it by (:data:`MODE_LABELS`)."""

    name: str
    status: str
    evidence: tuple[str, ...] = ()
    world: str = "minigrid"

    def __post_init__(self) -> None:
        if self.status not in MODE_STATUSES:
            raise ValueError(f"unknown failure-mode status {self.status!r}")

    @property
    def flagged(self) -> bool:
        return self.status == "flagged"

    @property
    def label(self) -> str:
        return MODE_LABELS.get(self.name, self.name)

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "label": self.label, "status": self.status,
               "flagged": self.flagged, "evidence": list(self.evidence)}
        return out if self.world == "minigrid" else {**out, "world": self.world}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> FailureModeRecord:
        return cls(str(obj["name"]), str(obj["status"]), tuple(obj.get("evidence", ())),
                   str(obj.get("world", "minigrid")))


@dataclass(frozen=True)
class JudgeScores:
    """One judge's scores: coverage per task, its failure modes and its metric results (a flat
    list of :class:`gridwm_judge.results.MetricResult`; read them with ``results.select``)."""

    coverage: Mapping[str, TaskCoverage]
    failure_modes: tuple[FailureModeRecord, ...]
    results: Results = field(repr=False)

    def mode(self, name: str, world: str = "minigrid") -> FailureModeRecord | None:
        return next((m for m in self.failure_modes if m.name == name and m.world == world), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "coverage": {t: c.to_json() for t, c in self.coverage.items()},
            "failure_modes": [m.to_json() for m in self.failure_modes],
            "results": self.results.to_json(),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> JudgeScores:
        return cls(
            {t: TaskCoverage.from_json(c) for t, c in obj["coverage"].items()},
            tuple(FailureModeRecord.from_json(m) for m in obj["failure_modes"]),
            Results.from_json(obj["results"]),
        )


class OldScoresFormat(ValueError):
    """A scores.json written in the previous format (its ``tasks`` are nested blocks)."""


@dataclass(frozen=True)
class ScoresRecord:
    """scores.json: what was scored against what, how, and every judge's scores."""

    package_version: str
    dataset: str
    dataset_fingerprint: str | None
    predictions: tuple[str, ...]
    runs: Mapping[str, Any]
    parser: Mapping[str, str]
    bootstrap: Mapping[str, Any]
    judges: Mapping[str, JudgeScores]
    comparisons: Results
    overrides: tuple[str, ...] = ()
    elapsed_s: float | None = None

    def dumps(self) -> str:
        """scores.json's text: indented, with each result on one line (a result is one
        figure: one line to read or grep, and the file stays about as small as nested
        blocks were)."""
        obj = self.to_json()
        lines: list[str] = []

        def mark(items: list[dict[str, Any]]) -> list[str]:
            lines.extend(json.dumps(r) for r in items)
            return [f"\u0000gwj-result-{k}" for k in range(len(lines) - len(items), len(lines))]

        obj["comparisons"] = mark(obj["comparisons"])
        for j in obj["judges"].values():
            j["results"] = mark(j["results"])
        text = json.dumps(obj, indent=1)
        return re.sub(r'"\\u0000gwj-result-(\d+)"', lambda m: lines[int(m.group(1))],
                      text) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "format": SCORES_FORMAT,
            "package_version": self.package_version,
            "dataset": self.dataset,
            "dataset_fingerprint": self.dataset_fingerprint,
            "predictions": list(self.predictions),
            "runs": self.runs,
            "parser": dict(self.parser),
            "bootstrap": dict(self.bootstrap),
            "overrides": list(self.overrides),
            "elapsed_s": self.elapsed_s,
            "judges": {j: s.to_json() for j, s in self.judges.items()},
            "comparisons": self.comparisons.to_json(),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, where: str = "scores.json") -> ScoresRecord:
        fmt = obj.get("format") if isinstance(obj, Mapping) else None
        if fmt == PREVIOUS_SCORES_FORMAT:
            raise OldScoresFormat(
                f"{where} has format {fmt!r}: read it with gridwm_judge.scoring.read_scores, "
                "or score the run again with `gridwm-judge score`")
        if fmt != SCORES_FORMAT:
            raise ValueError(
                f"{where} has format {fmt!r}, this version reads {SCORES_FORMAT!r}; "
                "score the run again with `gridwm-judge score`"
            )
        return cls(
            package_version=str(obj["package_version"]),
            dataset=str(obj["dataset"]),
            dataset_fingerprint=obj.get("dataset_fingerprint"),
            predictions=tuple(obj["predictions"]),
            runs=obj.get("runs", {}),
            parser=obj["parser"],
            bootstrap=obj["bootstrap"],
            judges={j: JudgeScores.from_json(s) for j, s in obj["judges"].items()},
            comparisons=Results.from_json(obj.get("comparisons", ())),
            overrides=tuple(obj.get("overrides", ())),
            elapsed_s=obj.get("elapsed_s"),
        )

    @classmethod
    def read(cls, path: str | Path) -> ScoresRecord:
        return cls.from_json(_json_file(path), where=str(path))


def counts(values: Sequence[str]) -> dict[str, int]:
    """value -> occurrences, in first-seen order."""
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out

"""The results repo's four tables, one fixed schema each, so every published judge's file
reads as one table: ``results`` (one row per figure, the flat
:class:`~gridwm_judge.results.MetricResult` fields with the judge, dataset digest and version),
``runs`` (one row per published run: what it asked, how, as sent, usage, coverage),
``predictions`` (one row per answer) and ``groups`` (per trajectory group of each Full-CF
config and representation, whether the judge discriminated it: IDR_raw's numerator, what the
leaderboard's paired tests between judges read).

Everything passes through :func:`gridwm_judge.redact.redact` on the way out: a key in a base
URL, a header echoed in an error text never reaches a file. A local dataset path is not
published (it names a folder on someone's disk); a Hub dataset id is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gridwm_judge.dataset_io import HUB_ID
from gridwm_judge.publish.entries import Entry, local_model, public_judge
from gridwm_judge.records import SCORED_ROWS_FILE, read_prediction_file
from gridwm_judge.redact import redact, redact_value
from gridwm_judge.results import MetricResult
from gridwm_judge.scoring.judge_pairs import PAIRED_TASKS, discrimination, read_graded

TABLES: tuple[str, ...] = ("results", "runs", "predictions", "groups")
_S, _F, _I, _B = pa.string(), pa.float64(), pa.int64(), pa.bool_()
_ENTRY = [("run_key", _S), ("judge", _S), ("dataset", _S), ("dataset_digest", _S),
          ("dataset_version", _S), ("package_version", _S), ("published", _B)]
"""The columns every table starts with: which run of which judge on which dataset."""
_RESULT = [("task", _S), ("world", _S), ("name", _S), ("value", _F), ("ci_low", _F),
           ("ci_high", _F), ("ci_env_low", _F), ("ci_env_high", _F), ("numerator", _F),
           ("denominator", _F), ("groups", _I), ("status", _S), ("representation", _S),
           ("family", _S), ("probe", _S), ("arm", _S), ("style", _S), ("condition", _S),
           ("baseline", _S), ("protocol", _S), ("env_level", _B), ("p_value", _F),
           ("method", _S), ("detail", _S), ("note", _S), ("parser", _S)]
_RUN = [("model", _S), ("provider", _S), ("engine", _S), ("tasks", _S), ("created", _S),
        ("updated", _S), ("prompt_version", _S), ("oracle_upper_bound", _B),
        ("judge_options", _S), ("judge_settings", _S), ("max_tokens", _S), ("as_sent", _S),
        ("usage", _S), ("coverage", _S), ("failure_modes", _S), ("parser", _S),
        ("bootstrap", _S), ("n_predictions", _I)]
_PREDICTION = [("uid", _S), ("task", _S), ("status", _S), ("raw", _S), ("reasoning", _S),
               ("parsed", _S), ("parse_mode", _S), ("request_hash", _S), ("item_digest", _S),
               ("latency_s", _F), ("usage", _S), ("error", _S), ("sent", _S), ("served", _S),
               ("finish_reason", _S), ("published_parse", _S)]
_GROUP = [("task", _S), ("representation", _S), ("group_id", _S), ("discriminated", _B)]
SCHEMAS: dict[str, pa.Schema] = {
    "results": pa.schema(_ENTRY + _RESULT),
    "runs": pa.schema(_ENTRY + _RUN),
    "predictions": pa.schema(_ENTRY + _PREDICTION),
    "groups": pa.schema(_ENTRY + _GROUP),
}
"""The schema of each table: JSON-valued fields are JSON text (one type for every judge)."""

assert {f.name for f in fields(MetricResult)} - {"ci", "ci_env"} <= {
    name for name, _ in _RESULT}, "a MetricResult field has no results column"


def _json(value: Any, e: Entry) -> str | None:
    return None if value is None else _text(json.dumps(redact_value(value), sort_keys=True), e)


def _text(value: str | None, e: Entry) -> str | None:
    """``value`` redacted, with the judge's local model path (if any) as it is published."""
    if value is None:
        return None
    path = local_model(e.judge)
    text = redact(value)
    return text.replace(path, public_judge(e.judge).partition(":")[2]) if path else text


def public_dataset(dataset: str) -> str:
    """A run's dataset as published: a Hub id as written, a local path as '' (its digest
    names it)."""
    return dataset if HUB_ID.match(dataset or "") and not Path(dataset).exists() else ""


def _entry_columns(e: Entry) -> dict[str, Any]:
    return {"run_key": e.key, "judge": redact(public_judge(e.judge)),
            "dataset": public_dataset(e.run.dataset),
            "dataset_digest": e.digest, "dataset_version": e.dataset_version,
            "package_version": e.record.package_version, "published": e.run.published}


def result_row(e: Entry, r: MetricResult) -> dict[str, Any]:
    """One figure of one entry as a results row (CIs as low / high columns)."""
    row = {f.name: getattr(r, f.name) for f in fields(r) if f.name not in ("ci", "ci_env")}
    row.update(ci_low=r.ci[0] if r.ci else None, ci_high=r.ci[1] if r.ci else None,
               ci_env_low=r.ci_env[0] if r.ci_env else None,
               ci_env_high=r.ci_env[1] if r.ci_env else None,
               parser=e.record.parser.get("version"))
    return {**_entry_columns(e), **row}


def result_of(row: Mapping[str, Any]) -> MetricResult:
    """A results row back as the :class:`MetricResult` it was written from."""
    kw: dict[str, Any] = {f.name: row.get(f.name) for f in fields(MetricResult)
                          if f.name not in ("ci", "ci_env")}
    kw["env_level"] = bool(kw.get("env_level"))
    kw["status"] = kw.get("status") or "ok"
    low, high = row.get("ci_low"), row.get("ci_high")
    elow, ehigh = row.get("ci_env_low"), row.get("ci_env_high")
    return MetricResult(**kw, ci=None if low is None or high is None else (low, high),
                        ci_env=None if elow is None or ehigh is None else (elow, ehigh))


def results_rows(e: Entry) -> list[dict[str, Any]]:
    return [result_row(e, r) for r in e.scores.results]


def run_rows(e: Entry, n_predictions: int) -> list[dict[str, Any]]:
    run = e.run
    src = run.source or {}
    settings = run.judge_settings or {}
    return [{**_entry_columns(e),
             "model": _text(str(src.get("model") or settings.get("model") or "") or None, e),
             "provider": _text(str(src.get("provider") or settings.get("backend") or "")
                               or None, e),
             "engine": str(run.engine.get("name") or "") or None,
             "tasks": ",".join(run.tasks), "created": run.created, "updated": run.updated,
             "prompt_version": run.prompt_version, "oracle_upper_bound": run.oracle_upper_bound,
             "judge_options": _json(run.judge_options, e), "judge_settings": _json(settings, e),
             "max_tokens": _json(run.max_tokens, e), "as_sent": _json(run.as_sent, e),
             "usage": _json(run.usage, e),
             "coverage": _json({t: c.to_json() for t, c in e.scores.coverage.items()}, e),
             "failure_modes": _json([m.to_json() for m in e.scores.failure_modes], e),
             "parser": _json(e.record.parser, e), "bootstrap": _json(e.record.bootstrap, e),
             "n_predictions": n_predictions}]


def prediction_rows(e: Entry) -> list[dict[str, Any]]:
    out = []
    for p in read_prediction_file(e.predictions):
        if p.judge != e.judge:
            continue
        out.append({**_entry_columns(e), "uid": p.uid, "task": p.task, "status": p.status,
                    "raw": _text(p.raw, e), "reasoning": _text(p.reasoning, e),
                    "parsed": _json(p.parsed, e), "parse_mode": p.parse_mode,
                    "request_hash": p.request_hash, "item_digest": p.item_digest,
                    "latency_s": p.latency_s, "usage": _json(p.usage, e),
                    "error": _text(p.error, e),
                    "sent": _json(p.sent, e), "served": _json(p.served, e),
                    "finish_reason": p.finish_reason,
                    "published_parse": _json(p.published.to_json() if p.published else None, e)})
    return out


def group_rows(e: Entry) -> list[dict[str, Any]]:
    """Per group of each Full-CF task and representation ``e`` answered, whether it
    discriminated it, from the graded rows ``score`` wrote beside scores.json (none when that
    file is gone)."""
    path = e.source / SCORED_ROWS_FILE
    if not path.is_file():
        return []
    graded = [r for r in read_graded(path) if r.judge == e.judge and r.task in PAIRED_TASKS]
    out = []
    for task, rep in sorted({(r.task, r.representation) for r in graded}):
        for group, hit in discrimination(graded, task, rep).items():
            out.append({**_entry_columns(e), "task": task, "representation": rep,
                        "group_id": group, "discriminated": hit})
    return out


def tables_of(e: Entry) -> dict[str, list[dict[str, Any]]]:
    """The rows ``e`` adds to each table."""
    predictions = prediction_rows(e)
    return {"results": results_rows(e), "runs": run_rows(e, len(predictions)),
            "predictions": predictions, "groups": group_rows(e)}


def parquet_bytes(table: str, rows: Sequence[Mapping[str, Any]]) -> bytes:
    """``rows`` as one Parquet file of ``table``'s schema."""
    schema = SCHEMAS[table]
    data = pa.Table.from_pylist([{n: r.get(n) for n in schema.names} for r in rows],
                                schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink)
    return sink.getvalue().to_pybytes()

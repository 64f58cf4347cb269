"""The Task D-R judges' answers the release publishes, as this package's run folders
(``predictions.jsonl`` + ``run.json``), each marked as published: nothing here was asked by
this package.

Per model folder (``frozen_outputs/minigrid/taskd-r/<model>/``): ``responses.jsonl`` gives the
raw text and the provider's metadata (model, provider, finish reason, latency, usage) and
``score_per_row.jsonl`` the authors' own parse of each answer, kept beside the raw text in the
record's ``published`` field (what ``score --rules published`` reads). A prediction's item
digest and request hash are this package's, taken over the imported item (the release's prompt
and image bytes, checked against its SHA256SUMS), so ``score`` checks them as it checks any run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gridwm_judge.item_hash import item_digest, request_hash
from gridwm_judge.judges.base import status_for
from gridwm_judge.records import PUBLISHED, PredictionRecord, PublishedParse, RunRecord
from gridwm_judge.release.layout import DR_OUTPUTS, Release, ReleaseError, json_lines
from gridwm_judge.runner.as_sent import usage_total
from gridwm_judge.task_table import task_spec

RESPONSES = "responses.jsonl"
PARSES = "score_per_row.jsonl"
PARSE_MODES: Mapping[str, str] = {"strict": "strict", "recoverable": "recovered",
                                  "fail": "invalid"}
"""The release's parse modes -> this package's (``fail``: no label, counted incorrect)."""
VALUES: Mapping[str, str] = {"success": "success", "fail": "failure"}
"""The release's normalised verdicts (``pred_norm``) -> this package's."""
TRUNCATED = ("length", "max_tokens", "MAX_TOKENS")
"""Finish reasons that mean the answer was cut by its token budget."""


@dataclass(frozen=True)
class PublishedRun:
    """One model's published answers: its judge spec, records and run record."""

    model: str
    judge: str
    records: tuple[PredictionRecord, ...]
    run: RunRecord


def judge_name(model: str) -> str:
    """The judge spec a published model's run carries: ``published:<model>`` (never a
    backend ``eval`` can run)."""
    return f"{PUBLISHED}:{model}"


def models(release: Release) -> list[str]:
    """The published judges: the model folders whose answers the release's SHA256SUMS lists
    (so every file read was checked), sorted."""
    found = {rel.split("/")[-2] for rel in release.listed
             if rel.startswith(f"{DR_OUTPUTS}/") and rel.endswith(f"/{RESPONSES}")}
    return sorted(m for m in found if release.file(f"{DR_OUTPUTS}/{m}/{RESPONSES}").is_file())


def unlisted(release: Release) -> list[str]:
    """Folders beside the published answers that the release's SHA256SUMS does not list
    (someone's own rerun, say), each with why it is left out."""
    root = release.file(DR_OUTPUTS)
    if not root.is_dir():
        return []
    known = set(models(release))
    return [f"{DR_OUTPUTS}/{p.name}/ left out: not in the release's SHA256SUMS, so not one of "
            "its published judges" for p in sorted(root.iterdir())
            if p.is_dir() and p.name not in known]


def _records(release: Release, rel: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of an answer file, each with a string ``uid``."""
    for n, obj in json_lines(release.root, rel):
        if not isinstance(obj, dict) or not isinstance(obj.get("uid"), str):
            raise ReleaseError(f"{rel}:{n} has no string 'uid'")
        yield n, obj


def published_parse(row: Mapping[str, Any], where: str) -> PublishedParse:
    """The authors' parse of one answer, in this package's terms, with their own fields."""
    mode = str(row.get("parse_mode"))
    if mode not in PARSE_MODES:
        raise ReleaseError(f"{where}: parse_mode {mode!r} is not one of "
                           f"{', '.join(PARSE_MODES)}")
    norm = row.get("pred_norm")
    value = VALUES.get(str(norm).lower()) if norm is not None else None
    if (value is None) != (PARSE_MODES[mode] == "invalid"):
        raise ReleaseError(f"{where}: pred_norm {norm!r} does not fit parse_mode {mode!r}")
    kept = ("parse_mode", "pred_norm", "gold", "correct", "score", "failure")
    return PublishedParse(value, PARSE_MODES[mode], {k: row[k] for k in kept if k in row})


DATASET = "../../.."
"""Where a published run's run.json says its dataset is: the imported folder holding
``runs/published/<model>/`` (a path relative to the run folder, so the folder can move or
travel to the Hub with its runs)."""


def published_run(release: Release, model: str, items: Mapping[str, Mapping[str, Any]],
                  fingerprint: str) -> PublishedRun:
    """One model's run: every response joined to its imported item (by the release's uid)
    and to the authors' parse of it. ``items``: release uid -> the imported row (its uid,
    prompt and image bytes)."""
    folder = f"{DR_OUTPUTS}/{model}"
    task = task_spec("paper_task_d_r")
    judge = judge_name(model)
    parses: dict[str, tuple[str, dict[str, Any]]] = {}
    parse_file = release.file(f"{folder}/{PARSES}")
    if not parse_file.is_file():
        raise ReleaseError(f"{folder}/{PARSES} is missing: the authors' parse of {model}'s "
                           "answers is part of the release")
    for n, row in _records(release, f"{folder}/{PARSES}"):
        parses[row["uid"]] = (f"{folder}/{PARSES}:{n}", row)
    identity = RunRecord(judge=judge).identity()   # what the request hash is taken over
    first: dict[str, Any] = {}
    records = []
    for n, obj in _records(release, f"{folder}/{RESPONSES}"):
        where, uid = f"{folder}/{RESPONSES}:{n}", obj["uid"]
        if uid not in items:
            raise ReleaseError(f"{where}: uid {uid!r} is not in the Task D-R exam")
        if uid not in parses:
            raise ReleaseError(f"{where}: uid {uid!r} has no line in {folder}/{PARSES}")
        meta: dict[str, Any] = obj["meta"] if isinstance(obj.get("meta"), dict) else {}
        first = first or meta
        item = items[uid]
        raw = obj.get("raw")
        ok = bool(meta.get("ok", True)) and isinstance(raw, str)
        status = (status_for(raw, meta.get("finish_reason") in TRUNCATED) if ok else "error")
        digest = item_digest(task.name, item["prompt"],
                             [im["bytes"] for im in item["images"]])
        latency = meta.get("latency_ms")
        records.append(PredictionRecord(
            uid=item["uid"], judge=judge, task=task.name, raw=raw if ok else None,
            status=status, request_hash=request_hash(identity, task.max_tokens, digest),
            item_digest=digest,
            latency_s=round(latency / 1000, 6) if isinstance(latency, (int, float)) else 0.0,
            usage=meta.get("usage") if isinstance(meta.get("usage"), dict) else None,
            error=None if ok else str(meta.get("error") or "the release records no answer"),
            served={k: str(meta[k]) for k in ("model", "provider") if meta.get(k)} or None,
            finish_reason=meta.get("finish_reason") or None,
            published=published_parse(parses[uid][1], parses[uid][0]) if ok else None,
        ))
    if not records:
        raise ReleaseError(f"{folder}/{RESPONSES} holds no answer")
    provenance = release.provenance.to_json()
    source = {
        "kind": PUBLISHED, **provenance,
        "model": first.get("model") or model, "provider": first.get("provider"),
        "backend": first.get("backend"), "responses": f"{folder}/{RESPONSES}",
        "parse": f"{folder}/{PARSES}",
        "note": "answers published with the paper's release, imported by gridwm-judge "
                "import-paper: not a run this package made",
    }
    run = RunRecord(
        judge=judge, dataset=DATASET, dataset_fingerprint=fingerprint,
        dataset_provenance={"source": "paper release", **provenance},
        tasks=(task.name,), engine={"name": PUBLISHED},
        usage=usage_total([r.to_json() for r in records]), source=source,
    )
    return PublishedRun(model, judge, tuple(records), run)


def published_runs(release: Release, rows: Sequence[Mapping[str, Any]], fingerprint: str
                   ) -> list[PublishedRun]:
    """Every published model's run over the imported Task D-R ``rows``."""
    items = {json.loads(r["source"])["uid"]: r for r in rows}
    return [published_run(release, m, items, fingerprint) for m in models(release)]

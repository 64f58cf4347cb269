"""Run one judge over dataset task configs, resumably, writing one prediction line per uid.

Only ``prompt`` and ``images`` of a row reach the judge (plus the gold answer for the oracle
sanity judge, which declares ``needs_gold``). Rows are read in Arrow form, so images reach the
judge as their stored PNG bytes and are decoded only if the judge reads pixels; the request
hash is taken over those bytes (see :func:`request_hash`). Every response is parsed by the one
parser and persisted as soon as it arrives; a rerun of the same command requests only missing uids.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridwm_judge.judges.base import (
    DEFAULT_MAX_TOKENS,
    OPERATIONAL_OPTIONS,
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
)
from gridwm_judge.judges.images import LazyImages
from gridwm_judge.parsing import parse_answer
from gridwm_judge.runner.store import (
    PREDICTIONS,
    PredictionStore,
    check_run_manifest,
    now_iso,
    write_run_manifest,
)

TASK_NAMES = ("A", "B", "C", "D", "E")
REPRESENTATIONS = ("composite", "split")
_BATCH = 32  # rows converted from Arrow at a time (bounded memory, few conversions)


@dataclass(frozen=True)
class EvalConfig:
    dataset: str
    tasks: tuple[str, ...]
    judge: str
    out: Path
    representation: str | None = None
    limit: int | None = None
    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    options: JudgeOptions = field(default_factory=JudgeOptions)
    progress: bool = True
    retry_errors: bool = False


@dataclass(frozen=True)
class EvalSummary:
    done: int  # records in predictions.jsonl for the selected rows
    new: int  # finished in this invocation
    skipped: int  # already present when the run started
    errors: int
    invalid: int  # responses that came back but did not parse (errors not included)
    dropped_partial_bytes: int
    predictions: Path

    def line(self) -> str:
        return (
            f"done {self.done} ({self.new} new, {self.skipped} resumed), errors {self.errors}, "
            f"invalid parses {self.invalid} -> {self.predictions}"
        )


def parse_tasks(text: str) -> tuple[str, ...]:
    """``"c,d"`` -> ``("C", "D")``; ``"all"`` -> all five; unknown names are a ValueError."""
    if text.strip().lower() == "all":
        return TASK_NAMES
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name = part.upper().removeprefix("TASK_")
        if name not in TASK_NAMES:
            raise ValueError(
                f"unknown task {part!r}; expected a comma list of a, b, c, d, e or 'all'"
            )
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("no task given; expected a comma list of a, b, c, d, e or 'all'")
    return tuple(out)


def identity_options(options: JudgeOptions) -> dict[str, Any]:
    """JudgeOptions that change answers (operational ones like workers may change on resume)."""
    out = dataclasses.asdict(options)
    for key in (*OPERATIONAL_OPTIONS, "max_images"):
        out.pop(key, None)
    out["extra"] = dict(out.get("extra") or {})
    return out


IMAGE_HASH = "stored-bytes"
"""How images enter :func:`request_hash` (hashed along, so a change of rule changes every hash)."""


def request_hash(
    identity: Mapping[str, Any], task: str, prompt: str, images: Sequence[bytes], max_tokens: int
) -> str:
    """sha256 over what the judge was asked: judge identity, task, prompt, images, budget.

    Images enter as the encoded bytes stored in the dataset (the PNG files in the parquet), in
    order and length-prefixed, never as decoded pixels: hashing needs no decoding, and the
    same row asked of the same judge hashes the same on every run. Two encodings of identical
    pixels hash differently, which only happens when the dataset is rebuilt (and then its
    fingerprint in run.json changes too). Records written by earlier builds of this package
    hashed decoded RGB pixels instead; nothing compares hashes across runs, so both coexist.
    """
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "id": identity,
                "task": task,
                "prompt": prompt,
                "max_tokens": max_tokens,
                "images": IMAGE_HASH,
            },
            sort_keys=True,
            default=str,
        ).encode()
    )
    for data in images:
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def run_eval(cfg: EvalConfig) -> EvalSummary:
    """Evaluate ``cfg.judge`` on ``cfg.tasks`` of ``cfg.dataset`` into ``cfg.out``."""
    from gridwm_judge import __version__
    from gridwm_judge.dataset_io import dataset_fingerprint, dataset_provenance, load_task
    from gridwm_judge.judges import make_judge, split_spec
    from gridwm_judge.prompts import PROMPT_VERSION

    split_spec(cfg.judge)  # bad specs fail before any data is read
    if cfg.representation is not None and cfg.representation not in REPRESENTATIONS:
        raise ValueError(
            f"unknown representation {cfg.representation!r}; expected one of {REPRESENTATIONS}"
        )
    if cfg.limit is not None and cfg.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {cfg.limit}")
    for task, n in cfg.max_tokens.items():
        if n <= 0:
            raise ValueError(f"max tokens for task {task} must be positive, got {n}")
    tables = {t: load_task(cfg.dataset, f"task_{t.lower()}") for t in cfg.tasks}

    out = Path(cfg.out)
    fresh = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "judge": cfg.judge,
        "judge_options": identity_options(cfg.options),
        "max_tokens": {t: int(cfg.max_tokens[t]) for t in TASK_NAMES},
        "representation": cfg.representation,
        "seed": cfg.options.seed,
        "dataset": cfg.dataset,
        "dataset_fingerprint": dataset_fingerprint(cfg.dataset),
        "dataset_provenance": dataset_provenance(cfg.dataset),
        "prompt_version": PROMPT_VERSION,
        "package_version": __version__,
    }
    old = check_run_manifest(out, manifest)
    store = PredictionStore(out / PREDICTIONS)
    try:
        pending, selected = _select(tables, cfg, store)
        max_images = max((n for _, _, n in pending), default=1)
        options = dataclasses.replace(cfg.options, max_images=max(1, max_images))
        tasks = sorted(set(cfg.tasks) | set((old or {}).get("tasks", [])), key=TASK_NAMES.index)
        manifest.update(
            tasks=list(tasks),
            limit=cfg.limit,
            created=(old or {}).get("created", now_iso()),
            updated=now_iso(),
            operational={k: getattr(options, k) for k in OPERATIONAL_OPTIONS},
        )
        new = 0
        if not pending and old is not None and "judge_settings" in old:
            # Nothing left to ask: do not load the judge (a model can take minutes).
            manifest.update(
                judge_settings=old["judge_settings"],
                oracle_upper_bound=old.get("oracle_upper_bound", False),
            )
            write_run_manifest(out, manifest)
        else:
            try:
                judge = make_judge(cfg.judge, options)
            except Exception:
                if fresh and not store.records:  # leave no half-made run folder behind
                    store.close()
                    shutil.rmtree(out, ignore_errors=True)
                raise
            try:
                manifest["judge_settings"] = judge.settings()
                check_run_manifest(out, manifest, keys=("judge_settings",))
                manifest["oracle_upper_bound"] = bool(judge.needs_gold)
                write_run_manifest(out, manifest)
                new = _drive(judge, tables, pending, cfg, store, manifest)
            finally:
                judge.close()
        done = sum(1 for uid in selected if uid in store)
        stored = [store.records[u] for u in selected if u in store]
        return EvalSummary(
            done=done,
            new=new,
            skipped=len(selected) - len(pending),
            errors=sum(r.get("status") == "error" for r in stored),
            invalid=sum(_unparsed(r) for r in stored),
            dropped_partial_bytes=store.dropped_partial_bytes,
            predictions=out / PREDICTIONS,
        )
    finally:
        store.close()


def _select(tables, cfg: EvalConfig, store: PredictionStore):
    """(pending [(task, row index, n images)], all selected uids) in dataset order.

    With ``retry_errors``, stored error records of the selected uids are dropped first
    (atomic rewrite of predictions.jsonl), so those uids are asked again.
    """
    import pyarrow.compute as pc

    pending, selected = [], []
    for task, ds in tables.items():
        uids = ds.data.column("uid").to_pylist()
        reps = ds.data.column("representation").to_pylist() if cfg.representation else None
        n_images = pc.list_value_length(ds.data.column("images")).to_pylist()
        kept = 0
        for i, uid in enumerate(uids):
            if reps is not None and reps[i] not in ("", cfg.representation):
                continue
            if cfg.limit is not None and kept >= cfg.limit:
                break
            kept += 1
            selected.append((uid, task, i, n_images[i] or 0))
    if cfg.retry_errors:
        chosen = {uid for uid, *_ in selected}
        store.discard(lambda r: r["uid"] in chosen and r.get("status") == "error")
    pending = [(task, i, n) for uid, task, i, n in selected if uid not in store]
    return pending, [uid for uid, *_ in selected]


def _requests(judge, tables, pending, cfg: EvalConfig, identity, meta) -> Iterator[JudgeRequest]:
    """Rows as requests, read in Arrow form: images stay encoded until a judge reads pixels."""
    for task, ds in tables.items():
        indices = [i for t, i, _ in pending if t == task]
        if not indices:
            continue
        cols = ["uid", "prompt", "images"] + (["answer"] if judge.needs_gold else [])
        rows = ds.select(indices).select_columns(cols).with_format("arrow")
        for batch in rows.iter(batch_size=_BATCH):
            for row in batch.to_pylist():
                encoded = [stored_image_bytes(im, row["uid"]) for im in row["images"] or ()]
                budget = int(cfg.max_tokens[task])
                rhash = request_hash(identity, task, row["prompt"], encoded, budget)
                meta[row["uid"]] = (task, rhash)
                yield JudgeRequest(
                    row["uid"],
                    task,
                    row["prompt"],
                    LazyImages(encoded),
                    budget,
                    gold=row["answer"] if judge.needs_gold else None,
                )


def stored_image_bytes(image: Mapping[str, Any] | None, uid: str) -> bytes:
    """The encoded bytes of one stored ``Image`` cell ({"bytes", "path"}), without decoding.

    Built datasets embed the bytes; a cell that only names a local file is read from it.
    """
    data = (image or {}).get("bytes")
    if data:
        return bytes(data)
    path = (image or {}).get("path")
    if path and Path(path).is_file():
        return Path(path).read_bytes()
    raise ValueError(
        f"row {uid!r} has an image with neither stored bytes nor a readable file "
        f"(path {path!r}); rebuild the dataset so its images are embedded"
    )


def _drive(judge, tables, pending, cfg: EvalConfig, store, manifest) -> int:
    from tqdm import tqdm

    identity = {k: manifest[k] for k in ("judge", "judge_options", "judge_settings")}
    meta: dict[str, tuple[str, str]] = {}
    new = errors = invalid = 0
    bar = tqdm(
        total=len(pending),
        desc=f"eval {cfg.judge}",
        unit="req",
        file=sys.stderr,
        disable=not cfg.progress,
        dynamic_ncols=True,
    )
    try:
        for resp in judge.judge(_requests(judge, tables, pending, cfg, identity, meta)):
            task, rhash = meta.pop(resp.uid)
            record = prediction_record(cfg.judge, task, rhash, resp)
            if store.append(record):
                new += 1
                errors += record["status"] == "error"
                invalid += _unparsed(record)
            bar.update(1)
            bar.set_postfix(errors=errors, invalid=invalid, refresh=False)
    finally:
        bar.close()
    return new


def _unparsed(record: dict) -> bool:
    """A response came back but did not parse (errors are counted separately)."""
    return record.get("parse_mode") == "invalid" and record.get("status") != "error"


def prediction_record(
    judge_spec: str, task: str, rhash: str, resp: JudgeResponse
) -> dict[str, Any]:
    """The predictions.jsonl line for one response (the contract METRICS reads)."""
    parsed = parse_answer(task, resp.raw if resp.status != "error" else None)
    return {
        "uid": resp.uid,
        "judge": judge_spec,
        "task": task,
        "raw": resp.raw,
        "status": resp.status,
        "parsed": parsed.value,
        "parse_mode": parsed.mode,
        "request_hash": rhash,
        "latency_s": round(float(resp.latency_s), 6),
        "usage": resp.usage.to_dict() if resp.usage is not None else None,
        "error": resp.error,
    }

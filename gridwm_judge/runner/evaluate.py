"""Run one judge over dataset task configs, resumably, writing one prediction line per uid.

Only ``prompt`` and ``images`` of a row reach the judge (plus the gold answer for the oracle
sanity judge, which declares ``needs_gold``). Rows are read in Arrow form, so images reach the
judge as their stored PNG bytes and are decoded only if the judge reads pixels. Each request
carries the hash of what was asked (:mod:`gridwm_judge.item_hash`); every response is parsed by
the one parser and persisted as soon as it arrives.

A rerun of the same command asks what is not finished: uids with no record and uids whose
request errored (nothing came back). ``reask`` adds answers of the given statuses (``empty``,
``truncated``): what the model said is otherwise kept.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gridwm_judge.atomic import new_folder
from gridwm_judge.dataset_io import available_configs, load_task
from gridwm_judge.item_hash import item_digest, request_hash, stored_image_bytes
from gridwm_judge.judges import images_only, judge_tasks, make_judge, split_spec
from gridwm_judge.judges.base import (
    IDENTITY_WHEN_SET,
    OPERATIONAL_OPTIONS,
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
)
from gridwm_judge.judges.decoding import is_greedy
from gridwm_judge.judges.images import LazyImages
from gridwm_judge.parsing import parse_answer
from gridwm_judge.prices import PriceTable
from gridwm_judge.records import PREDICTIONS_FILE, PredictionRecord, RunRecord
from gridwm_judge.runner.batch import (
    BATCH_BACKENDS,
    BATCHES_FILE,
    BatchBook,
    BatchOptions,
    run_batches,
)
from gridwm_judge.runner.manifest import RunManifest, check_run_manifest, run_manifest
from gridwm_judge.runner.store import PredictionStore, now_iso
from gridwm_judge.schema import REPRESENTATIONS
from gridwm_judge.task_table import ALL_TASKS, DEFAULT_MAX_TOKENS, TASK_NAMES, task_spec

REASKABLE = ("empty", "truncated")
_BATCH = 32  # rows converted from Arrow at a time (bounded memory, few conversions)


@dataclass(frozen=True)
class EvalConfig:
    """What to run; :meth:`check` refuses bad values before anything is read or written."""

    dataset: str
    tasks: tuple[str, ...]
    judge: str
    out: Path
    representation: str | None = None
    limit: int | None = None
    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    options: JudgeOptions = field(default_factory=JudgeOptions)
    progress: bool = True
    reask: tuple[str, ...] = ()
    prices: str | None = None  # a prices file for run.json's cost (default: the shipped one)
    batch: BatchOptions | None = None  # ask through the provider's batch interface

    def budget(self, task: str, style: str = "") -> int:
        """The token budget of ``task`` (of its rows in prompt ``style``): the user's, else the
        task table's; a style's budget is its factor (``task_table.Style``) times the task's."""
        spec = task_spec(task)
        return spec.budget(style, self.max_tokens.get(task, spec.max_tokens))

    def check(self) -> None:
        split_spec(self.judge)  # bad specs fail before any data is read
        answered = judge_tasks(self.judge, self.tasks)
        if len(answered) < len(self.tasks):
            other = [t for t in self.tasks if t not in answered]
            has = judge_tasks(self.judge, [t.name for t in ALL_TASKS])
            raise ValueError(f"{self.judge} has no rule for task(s) {', '.join(other)}; it "
                             f"answers {', '.join(has) or 'none'}")
        if self.representation is not None and self.representation not in REPRESENTATIONS:
            raise ValueError(f"unknown representation {self.representation!r}; "
                             f"expected one of {', '.join(REPRESENTATIONS)}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit must be >= 1, got {self.limit}")
        for task, n in self.max_tokens.items():
            if n <= 0:
                raise ValueError(f"max tokens for task {task} must be positive, got {n}")
        if self.prices is not None:
            PriceTable.load(self.prices)  # a bad prices file is refused before anything runs
        if self.batch is not None and split_spec(self.judge)[0] not in BATCH_BACKENDS:
            raise ValueError(f"--batch works with "
                             f"{', '.join(b + ':' for b in BATCH_BACKENDS)} judges; "
                             f"{self.judge} answers online only")
        engine_only = [flag for flag, given in (
            ("--max-model-len", self.options.max_model_len is not None),
            ("--tensor-parallel-size", self.options.tensor_parallel_size != 1)) if given]
        if engine_only and split_spec(self.judge)[0] != "vllm":
            one = len(engine_only) == 1
            raise ValueError(f"{' and '.join(engine_only)} "
                             f"{'configures' if one else 'configure'} the vllm: engine; "
                             f"{self.judge} does not use {'it' if one else 'them'}: leave "
                             f"{'it' if one else 'them'} out")
        bad = [s for s in self.reask if s not in REASKABLE]
        if bad:
            raise ValueError(f"cannot re-ask status {bad[0]!r}; expected some of "
                             f"{', '.join(REASKABLE)} (errored requests are always asked again)")


@dataclass(frozen=True)
class EvalSummary:
    total: int  # rows this run covers
    done: int  # of them answered (a record with a status other than error)
    new: int  # responses stored in this invocation
    skipped: int  # already finished when the run started
    errors: int  # selected uids whose request errored: not finished, asked again on rerun
    invalid: int  # responses that came back but did not parse
    dropped_partial_bytes: int
    predictions: Path

    def line(self) -> str:
        return (
            f"answered {self.done}/{self.total} ({self.new} new, {self.skipped} resumed), "
            f"errors {self.errors}, invalid parses {self.invalid} -> {self.predictions}"
        )


@dataclass(frozen=True)
class PendingRow:
    """A dataset row still to ask: its task, row index in the task's table, image count."""

    task: str
    index: int
    n_images: int


@dataclass(frozen=True)
class Selection:
    """The rows this run covers (dataset order) and those of them still to ask."""

    uids: tuple[str, ...]
    pending: tuple[PendingRow, ...]


@dataclass(frozen=True)
class _Asked:
    request: JudgeRequest
    digest: str


def _task_order(task: str) -> tuple[int, str]:
    return (TASK_NAMES.index(task) if task in TASK_NAMES else len(TASK_NAMES), task)


def identity_options(options: JudgeOptions) -> dict[str, Any]:
    """JudgeOptions that change answers (operational ones like workers may change on resume)."""
    out = dataclasses.asdict(options)
    for key in (*OPERATIONAL_OPTIONS, "max_images"):
        out.pop(key, None)
    for key, default in IDENTITY_WHEN_SET.items():
        if out.get(key) == default:
            out.pop(key, None)
    out["extra"] = dict(out.get("extra") or {})
    return out


def tasks_meant_by_all(judge: str, dataset: str) -> tuple[str, ...]:
    """``--tasks all``: the MiniGrid tasks for a judge that answers everything; for a judge with
    rules for a few tasks (the shortcuts), every one of those the dataset holds, in any world
    and the controls too."""
    every = tuple(t.name for t in ALL_TASKS)
    rules = judge_tasks(judge, every)
    if len(rules) == len(every):
        return TASK_NAMES
    held = set(available_configs(dataset))
    return tuple(t for t in rules if task_spec(t).config in held) or rules


class Engine(Protocol):
    """Where the requests run when not in this process (``runner.ray_engine``): it reads the
    rows' uid / representation / images columns per task, and asks the pending rows, storing
    each record as it comes back; this module keeps selection, run.json and the summary."""

    def tables(self, cfg: EvalConfig) -> dict[str, Any]: ...

    def provenance(self) -> dict[str, Any]: ...

    def ask(self, cfg: EvalConfig, options: JudgeOptions, manifest: RunManifest,
            pending: tuple[PendingRow, ...], store: PredictionStore, out: Path) -> int: ...

    def sending(self) -> dict[str, Any]: ...


def run_eval(cfg: EvalConfig, engine: Engine | None = None) -> EvalSummary:
    """Evaluate ``cfg.judge`` on ``cfg.tasks`` of ``cfg.dataset`` into ``cfg.out``, in this
    process or on ``engine``."""
    cfg.check()
    if engine is None:
        tables = {t: load_task(cfg.dataset, task_spec(t).config) for t in cfg.tasks}
    else:
        tables = engine.tables(cfg)
    record = run_manifest(
        judge=cfg.judge,
        judge_options=identity_options(cfg.options),
        budgets={**{t: cfg.budget(t) for t in (*TASK_NAMES, *cfg.tasks)},
                 **{f"{t}/{s}": cfg.budget(t, s) for t in cfg.tasks for s in task_spec(t).styles
                    if cfg.budget(t, s) != cfg.budget(t)}},
        representation=cfg.representation,
        seed=cfg.options.seed,
        dataset=cfg.dataset,
    )
    record = dataclasses.replace(
        record, engine={"name": "local"} if engine is None else engine.provenance())
    out = Path(cfg.out)
    fresh = not out.exists()
    with new_folder(out):  # a refused run leaves no folder it made
        return _run_in(out, fresh, cfg, engine, tables, record)


def _run_in(out: Path, fresh: bool, cfg: EvalConfig, engine: Engine | None, tables,
            record: RunRecord) -> EvalSummary:
    """The run in its folder ``out`` (``fresh``: made for it, removed if nothing is stored)."""
    old = check_run_manifest(out, record)
    manifest = RunManifest(out, record, PriceTable.load(cfg.prices))
    store = PredictionStore(out / PREDICTIONS_FILE)
    try:
        live = BatchBook.load(out).open()
        if cfg.batch is None and live:
            asking = {line.uid for b in live for line in b.lines.values()} - set(store.records)
            raise ValueError(f"{len(asking)} rows of {out} are with the provider in "
                             f"{len(live)} live batch(es): collect them with --batch, or "
                             "cancel them with --cancel-batch, before asking online")
        selection = select_rows(tables, cfg, store)
        options = dataclasses.replace(
            cfg.options, max_images=max([1, *(p.n_images for p in selection.pending)]))
        tasks = sorted(set(cfg.tasks) | set(old.tasks if old else ()), key=_task_order)
        manifest.update(
            tasks=tuple(tasks),
            limit=cfg.limit,
            created=(old.created if old else None) or now_iso(),
            updated=now_iso(),
            operational={k: getattr(options, k) for k in OPERATIONAL_OPTIONS},
        )
        new = 0
        if (not selection.pending and old is not None and old.judge_settings is not None
                and not live):
            # Nothing left to ask: do not load the judge (a model can take minutes).
            manifest.update(judge_settings=old.judge_settings,
                            oracle_upper_bound=old.oracle_upper_bound)
            manifest.record_sent(store.records.values(), {}, old)
        elif engine is not None:
            try:
                new = engine.ask(cfg, options, manifest, selection.pending, store, out)
            except BaseException:
                if fresh and not store.records:  # leave no half-made run folder behind
                    store.close()
                    shutil.rmtree(out, ignore_errors=True)
                elif manifest.settled:  # interrupted: record what was sent so far
                    manifest.record_sent(store.records.values(), engine.sending(), old)
                raise
            if manifest.settled:
                manifest.record_sent(store.records.values(), engine.sending(), old)
        else:
            try:
                judge = make_judge(cfg.judge, options)
            except Exception:
                if fresh and not store.records:  # leave no half-made run folder behind
                    store.close()
                    shutil.rmtree(out, ignore_errors=True)
                raise
            try:
                manifest.settle(judge.settings(), bool(judge.needs_gold))
                identity = manifest.record.identity()
                def requests() -> Iterator[_Asked]:
                    return _requests(judge.needs_gold, tables, selection.pending, cfg, identity)

                try:
                    if cfg.batch is not None:
                        new = run_batches(judge, requests, cfg.judge, store, out, cfg.batch,
                                          prediction_record, cfg.progress)
                    else:
                        new = _drive(judge, requests(), cfg, store, len(selection.pending))
                except ValueError:  # the server refused the run: keep no empty folder
                    if fresh and not store.records and not (out / BATCHES_FILE).exists():
                        store.close()
                        shutil.rmtree(out, ignore_errors=True)
                        raise
                    manifest.record_sent(store.records.values(), _sending(judge), old)
                    raise
                except BaseException:  # interrupted: record what was sent so far
                    manifest.record_sent(store.records.values(), _sending(judge), old)
                    raise
                manifest.record_sent(store.records.values(), _sending(judge), old)
            finally:
                judge.close()
        stored = [PredictionRecord.from_json(store.records[u]) for u in selection.uids
                  if u in store]
        return EvalSummary(
            total=len(selection.uids),
            done=sum(r.answered for r in stored),
            new=new,
            skipped=len(selection.uids) - len(selection.pending),
            errors=sum(not r.answered for r in stored),
            invalid=sum(r.answered and r.parse_mode == "invalid" for r in stored),
            dropped_partial_bytes=store.dropped_partial_bytes,
            predictions=out / PREDICTIONS_FILE,
        )
    finally:
        store.close()


def _sending(judge: Any) -> Mapping[str, Any]:
    """What the judge says its requests carry (run.json ``as_sent``); nothing for a judge that
    does not say."""
    return getattr(judge, "sending", dict)()


def select_rows(tables, cfg: EvalConfig, store: PredictionStore) -> Selection:
    """The rows this run covers, and which of them to ask: no record yet, an errored request,
    or a status the user asked to re-ask. Records to be asked again are dropped first (atomic
    rewrite of predictions.jsonl), so each uid keeps one line."""
    import pyarrow.compute as pc

    chosen: list[tuple[str, PendingRow]] = []
    pixels_only = images_only(cfg.judge)
    for task, ds in tables.items():
        table = getattr(ds, "data", ds)  # a datasets.Dataset, or a pyarrow Table (Ray engine)
        uids = table.column("uid").to_pylist()
        reps = table.column("representation").to_pylist() if cfg.representation else None
        # pyarrow.compute makes its functions at import time: no static name to check
        n_images = pc.list_value_length(  # pyright: ignore[reportAttributeAccessIssue]
            table.column("images")).to_pylist()
        kept = 0
        for i, uid in enumerate(uids):
            if reps is not None and reps[i] not in ("", cfg.representation):
                continue
            if pixels_only and not n_images[i]:
                continue
            if cfg.limit is not None and kept >= cfg.limit:
                break
            kept += 1
            chosen.append((uid, PendingRow(task, i, n_images[i] or 0)))
    again = {"error", *cfg.reask}
    wanted = {uid for uid, _ in chosen}
    store.discard(lambda r: r["uid"] in wanted and r.get("status") in again)
    return Selection(tuple(uid for uid, _ in chosen),
                     tuple(p for uid, p in chosen if uid not in store))


def _requests(needs_gold: bool, tables, pending, cfg: EvalConfig, identity
              ) -> Iterator[_Asked]:
    """Rows as requests, read in Arrow form: images stay encoded until a judge reads pixels."""
    for task, ds in tables.items():
        indices = [p.index for p in pending if p.task == task]
        if not indices:
            continue
        styled = bool(task_spec(task).styles)  # its rows' prompt_style names their format
        cols = (["uid", "prompt", "images"] + (["answer"] if needs_gold else [])
                + (["prompt_style"] if styled else []))
        rows = ds.select(indices).select_columns(cols).with_format("arrow")
        for batch in rows.iter(batch_size=_BATCH):
            for row in batch.to_pylist():
                yield ask_row(task, row, cfg, identity, needs_gold)


def ask_row(task: str, row: Mapping[str, Any], cfg: EvalConfig, identity: Mapping[str, Any],
            needs_gold: bool) -> _Asked:
    """One stored row (uid, prompt, images as stored cells, answer, prompt_style) as the request
    a judge is sent, with its item digest: shared by the local and the Ray engines so both
    hash and ask alike."""
    style = row["prompt_style"] if task_spec(task).styles else ""
    budget = cfg.budget(task, style)
    encoded = [stored_image_bytes(im, row["uid"]) for im in row["images"] or ()]
    digest = item_digest(task, row["prompt"], encoded)
    return _Asked(JudgeRequest(
        row["uid"],
        task,
        row["prompt"],
        LazyImages(encoded, max_pixels=cfg.options.max_pixels),
        budget,
        gold=row["answer"] if needs_gold else None,
        request_hash=request_hash(identity, budget, digest),
        style=style,
    ), digest)


def _drive(judge, asked: Iterator[_Asked], cfg: EvalConfig, store: PredictionStore,
           total: int) -> int:
    """Send the requests, persist each response as it arrives; the number persisted."""
    from tqdm import tqdm

    in_flight: dict[str, _Asked] = {}

    def requests() -> Iterator[JudgeRequest]:
        for a in asked:
            in_flight[a.request.uid] = a
            yield a.request

    on_terminal = cfg.progress and sys.stderr.isatty()
    if cfg.progress and not on_terminal:
        print(f"eval {cfg.judge}: asking {total} requests ...", file=sys.stderr, flush=True)
    new = errors = invalid = 0
    warned = False
    bar = tqdm(total=total, desc=f"eval {cfg.judge}", unit="req", file=sys.stderr,
               disable=not on_terminal, dynamic_ncols=True)
    try:
        for resp in judge.judge(requests()):
            a = in_flight.pop(resp.uid)
            record = prediction_record(cfg.judge, a.request, a.digest, resp)
            if not warned and resp.sent is not None and not is_greedy(resp.sent):
                warned = True
                print(f"warning: {cfg.judge}: requests are not greedy (sent "
                      f"{_decoding_line(resp.sent)}; the server's defaults apply to the rest); "
                      "run.json 'as_sent' records what was sent", file=sys.stderr, flush=True)
            if store.append(record.to_json()):
                new += 1
                errors += not record.answered
                invalid += record.answered and record.parse_mode == "invalid"
            bar.update(1)
            bar.set_postfix(errors=errors, invalid=invalid, refresh=False)
    finally:
        bar.close()
    return new


def _decoding_line(sent: Mapping[str, Any]) -> str:
    shown = {k: v for k, v in sent.items() if not isinstance(v, (dict, list))}
    return ", ".join(f"{k}={v}" for k, v in shown.items()) or "no decoding fields"


def prediction_record(judge_spec: str, req: JudgeRequest, digest: str, resp: JudgeResponse
                      ) -> PredictionRecord:
    """The predictions.jsonl record of one response (errors carry no parse)."""
    answered = resp.status != "error"
    parsed = parse_answer(req.task, resp.raw if answered else None,
                          truncated=resp.status == "truncated", style=req.style)
    return PredictionRecord(
        uid=resp.uid,
        judge=judge_spec,
        task=req.task,
        raw=resp.raw,
        reasoning=resp.reasoning,
        status=resp.status,
        parsed=parsed.value,
        parse_mode=parsed.mode,
        request_hash=req.request_hash,
        item_digest=digest,
        latency_s=round(float(resp.latency_s), 6),
        usage=resp.usage.to_dict() if resp.usage is not None else None,
        error=resp.error,
        sent=resp.sent,
        served=resp.served,
        finish_reason=resp.finish_reason,
    )

"""``eval --batch``: the rows still to ask, sent through the provider's batch interface (about
half the price), submitted, polled and collected across as many runs of the same command as it
takes.

A batch outlives the process that submitted it, so the run folder keeps what it needs to
collect it: ``batches.json``, written the moment the provider accepts a batch, names each
batch's id and, per request line (``gwj-<n>``), the row it asks (uid, task, prompt style,
request hash, item digest) and the decoding fields it carried. Running the command again
collects finished batches into predictions.jsonl (the same records an online run writes),
never asks a row whose batch is alive, and submits only the rows that have no answer and no
live batch: rows whose lines failed, or whose batch failed, expired or was cancelled, are
asked again. A finished batch is collected once. Each provider's interface is one
:class:`~gridwm_judge.judges.batch_api.BatchAPI` (OpenAI's Batch API, Anthropic's Message
Batches, Gemini's batch mode); this module never speaks a provider's wire form.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from gridwm_judge.atomic import write_text
from gridwm_judge.judges.batch_api import (
    PROVIDERS,
    BatchAPI,
    BatchError,
    BatchStatus,
    Line,
    batch_api,
    chunks,
)
from gridwm_judge.runner.store import PredictionStore, now_iso

BATCHES_FILE = "batches.json"
BATCHES_FORMAT = "gridwm-judge-batches/1"
OPEN, COLLECTED = "open", "collected"
BATCH_BACKENDS = tuple(PROVIDERS)


@dataclass
class Batch:
    """One submitted batch: its id, when, its lines, and whether it was collected."""

    id: str
    provider: str
    submitted: str
    lines: dict[str, Line]
    state: str = OPEN
    status: str = "submitted"  # the provider's last word
    collected: int = 0
    note: str = ""


@dataclass
class BatchBook:
    """``batches.json`` of a run folder: every batch it submitted, in order."""

    path: Path
    batches: list[Batch] = field(default_factory=list)

    @classmethod
    def load(cls, out: Path) -> BatchBook:
        path = out / BATCHES_FILE
        if not path.is_file():
            return cls(path)
        obj = json.loads(path.read_text(encoding="utf-8"))
        if obj.get("format") != BATCHES_FORMAT:
            raise ValueError(f"{path} is not a batch record of this package (format "
                             f"{obj.get('format')!r})")
        return cls(path, [Batch(**{**b, "lines": {k: Line(**v) for k, v in b["lines"].items()}})
                          for b in obj["batches"]])

    def save(self) -> None:
        write_text(self.path, json.dumps({"format": BATCHES_FORMAT, "batches": [
            asdict(b) for b in self.batches]}, indent=1) + "\n")

    def open(self) -> list[Batch]:
        return [b for b in self.batches if b.state == OPEN]

    def asking(self) -> set[str]:
        """The uids a live batch is asking (never asked again meanwhile)."""
        return {line.uid for b in self.open() for line in b.lines.values()}

    def next_id(self) -> int:
        return sum(len(b.lines) for b in self.batches)


@dataclass(frozen=True)
class BatchOptions:
    """``--batch``'s choices: wait until the batches end (else return once submitted), cancel
    the live ones, and how often to ask the provider while waiting."""

    wait: bool = True
    cancel: bool = False
    poll_s: float = 30.0


def _collect(api: BatchAPI, batch: Batch, status: BatchStatus, judge_spec: str,
             store: PredictionStore, record: Callable[..., Any], say: Callable[[str], None]
             ) -> int:
    """Store the answers of an ended batch; the number stored. Lines without an answer (and
    a failed or expired batch's rest) leave their rows to be asked again."""
    new = 0
    try:
        found = list(api.answers(status, batch.lines))
    except BatchError as exc:  # results the provider no longer keeps
        found = []
        say(f"batch {batch.id}: its results cannot be read ({exc}); its rows are asked again")
    for cid, resp in found:
        meta = batch.lines[cid]
        if meta.uid in store:
            continue
        if resp is not None:  # served by this batch: priced at the batch rate
            resp = replace(resp, served={**(resp.served or {}), "batch": batch.id})
        if resp is not None and store.append(
                record(judge_spec, meta.request(), meta.item_digest, resp).to_json()):
            new += 1
    batch.state, batch.status, batch.collected = COLLECTED, status.status, new
    left = len(batch.lines) - new
    if status.outcome == "failed":
        why = "; ".join(status.errors[:2]) or "no reason given"
        say(f"the provider rejected batch {batch.id} ({why}); its {left} rows are asked again "
            "by the next run of this command")
    elif status.outcome in ("expired", "cancelled") or left:
        say(f"batch {batch.id} {status.outcome}: {new} answers collected, {left} rows left to "
            "ask again (run this command again)")
    return new


def run_batches(judge: Any, asked: Iterator[Any], judge_spec: str, store: PredictionStore,
                out: Path, options: BatchOptions, record: Callable[..., Any],
                progress: bool = True) -> int:
    """Collect what ended, submit what is left (unless cancelling), and wait for the live
    batches when asked; the number of answers stored. ``asked`` yields the pending rows (each
    with ``.request`` and ``.digest``), ``record`` makes a prediction record."""
    book = BatchBook.load(out)

    def say(line: str) -> None:
        print(f"eval {judge_spec}: {line}", file=sys.stderr, flush=True)

    api = batch_api(judge)
    watch = _Watch(judge_spec, progress and options.wait, say)
    new = 0
    try:
        new += _poll(api, book, judge_spec, store, record, say, watch)
        if options.cancel:
            for b in book.open():
                api.cancel(b.id)
            say(f"asked the provider to cancel {len(book.open())} batch(es); collecting what "
                "had finished")
        else:
            _submit(api, judge, book, asked, store, say)
        if not options.wait:
            if book.open():
                say(f"{len(book.asking())} rows in {len(book.open())} batch(es) are with the "
                    "provider; run this command again to collect them")
            return new
        watch.start(len(book.asking()))
        try:
            while book.open():
                time.sleep(options.poll_s)
                new += _poll(api, book, judge_spec, store, record, say, watch)
        except KeyboardInterrupt:
            watch.close()
            say(f"stopped waiting; {len(book.open())} batch(es) keep running at the provider: "
                "run this command again to collect them (--cancel-batch cancels them)")
            raise
    finally:
        watch.close()
        api.close()
    return new


class _Watch:
    """What the user sees while batches run: a bar of rows done on a terminal, else one line
    each time a batch's status or count changes (a day's wait is not thousands of lines)."""

    def __init__(self, judge_spec: str, progress: bool, say: Callable[[str], None]):
        self.judge_spec, self.progress, self.say = judge_spec, progress, say
        self.bar: Any = None
        self.shown: dict[str, tuple[str, int]] = {}
        self.done: dict[str, int] = {}
        self.said: set[str] = set()

    def start(self, total: int) -> None:
        """Waiting begins for ``total`` rows."""
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=f"eval {self.judge_spec} (batch)", unit="row",
                        file=sys.stderr, disable=not (self.progress and sys.stderr.isatty()),
                        dynamic_ncols=True)

    def seen(self, batch: Batch, status: BatchStatus) -> None:
        self.done[batch.id] = len(batch.lines) if status.ended else status.done
        if self.bar is None:
            return
        if self.bar.disable:
            if self.progress and not status.ended and (
                    self.shown.get(batch.id) != (status.status, status.done)):
                self.say(f"batch {batch.id}: {status.status}, {status.done}/{len(batch.lines)} "
                         "done")
            self.shown[batch.id] = (status.status, status.done)
            return
        self.bar.n = min(self.bar.total, sum(self.done.values()))
        self.bar.set_postfix_str(f"{batch.id}: {status.status}", refresh=False)
        self.bar.refresh()

    def hiccup(self, batch: Batch, why: str) -> None:
        """A status read refused for now (rate limit, server error): said once; the batch is
        read again at the next poll or run."""
        if why not in self.said:
            self.said.add(why)
            self.say(f"batch {batch.id}: {why}; it is read again later")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _poll(api: BatchAPI, book: BatchBook, judge_spec: str, store: PredictionStore,
          record: Callable[..., Any], say: Callable[[str], None],
          watch: _Watch) -> int:
    new = 0
    for b in book.open():
        try:
            status = api.status(b.id)
        except BatchError as exc:
            if not exc.retryable:
                raise
            watch.hiccup(b, str(exc))
            continue
        b.status = status.status
        watch.seen(b, status)
        if status.ended:
            new += _collect(api, b, status, judge_spec, store, record, say)
            book.save()
    return new


def _submit(api: BatchAPI, judge: Any, book: BatchBook, asked: Iterable[Any],
            store: PredictionStore, say: Callable[[str], None]) -> None:
    """Send the pending rows no live batch asks as new batches, recording each the moment
    the provider accepts it."""
    busy = book.asking()
    start = book.next_id()
    entries = []
    meta: dict[str, Line] = {}
    for a in asked:
        req = a.request
        if req.uid in busy or req.uid in store:
            continue
        e = api.entry(f"gwj-{start + len(meta)}", req)
        meta[e.cid] = Line(req.uid, req.task, req.style, req.request_hash, a.digest, e.sent)
        entries.append(e)
    for part in chunks(entries, api.max_requests, api.max_bytes):
        batch_id = api.submit(part, note=f"gridwm-judge {judge.spec}")
        book.batches.append(Batch(batch_id, judge.backend, now_iso(),
                                  {e.cid: meta[e.cid] for e in part}))
        book.save()
        say(f"submitted {len(part)} rows as batch {batch_id}")

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
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from gridwm_judge.atomic import write_text
from gridwm_judge.judges.batch_api import (
    PROVIDERS,
    BatchAPI,
    BatchError,
    BatchStatus,
    Entry,
    Failed,
    Line,
    batch_api,
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
    learned: list[dict[str, Any]] = field(default_factory=list)
    """Lines the provider refused for a request field (``why``, ``sent``): replayed into the
    judge at every run, so a reasoning model's form (``max_completion_tokens``, no
    ``temperature``) is sent from then on, as the online path learns it."""

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
                          for b in obj["batches"]], list(obj.get("learned", [])))

    def save(self) -> None:
        write_text(self.path, json.dumps({"format": BATCHES_FORMAT, "batches": [
            asdict(b) for b in self.batches], "learned": self.learned}, indent=1) + "\n")

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


class _Run:
    """One run of ``eval --batch`` over a run folder: its batch record, the provider, where
    answers go, and what it tells the user."""

    def __init__(self, judge: Any, judge_spec: str, store: PredictionStore, out: Path,
                 options: BatchOptions, record: Callable[..., Any], progress: bool):
        self.judge, self.spec, self.store, self.record = judge, judge_spec, store, record
        self.options = options
        self.book = BatchBook.load(out)
        self.api: BatchAPI = batch_api(judge)
        self.watch = _Watch(judge_spec, progress and options.wait, self.say)
        self.new = 0
        self.changed = False  # the request form changed this run: the rows left go again
        for learned in self.book.learned:  # the form earlier runs learned
            self.api.learn(learned["why"], learned["sent"])

    def say(self, line: str) -> None:
        print(f"eval {self.spec}: {line}", file=sys.stderr, flush=True)

    def poll(self) -> None:
        """Read each live batch's status; collect those that ended or are gone."""
        for b in self.book.open():
            try:
                status = self.api.status(b.id)
            except BatchError as exc:
                if exc.retryable:
                    self.watch.hiccup(b, str(exc))
                    continue
                if not exc.gone:
                    raise
                b.state, b.status = COLLECTED, "gone"
                self.say(f"batch {b.id}: {exc}; its {self._left(b)} rows are asked again")
                self.book.save()
                continue
            b.status = status.status
            self.watch.seen(b, status)
            if status.ended:
                self.collect(b, status)

    def collect(self, batch: Batch, status: BatchStatus) -> None:
        """Store the answers of an ended batch. Lines without an answer (and a failed or
        expired batch's rest) leave their rows to be asked again; results unreadable for now
        leave the batch open."""
        try:
            found = list(self.api.answers(status, batch.lines))
        except BatchError as exc:
            if exc.retryable:  # read again later: never pay for the batch twice
                self.watch.hiccup(batch, f"its results cannot be read for now ({exc})")
                return
            found = []
            self.say(f"batch {batch.id}: its results cannot be read ({exc}); its rows are "
                     "asked again")
        new, why = 0, None
        for cid, answer in found:
            meta = batch.lines[cid]
            if meta.uid in self.store:
                continue
            if isinstance(answer, Failed):
                why = why or answer.why
                self._learn(answer.why, meta.sent)
                continue
            # served by this batch: priced at the batch rate
            answer = replace(answer, served={**(answer.served or {}), "batch": batch.id})
            if self.store.append(self.record(self.spec, meta.request(), meta.item_digest,
                                             answer).to_json()):
                new += 1
        batch.state, batch.status, batch.collected = COLLECTED, status.status, new
        self.new += new
        self.book.save()
        left = self._left(batch)
        said = f"; a failed line said: {why[:300]}" if why else ""
        if status.outcome == "failed":
            reason = "; ".join(status.errors[:2]) or "no reason given"
            self.say(f"the provider rejected batch {batch.id} ({reason}); its {left} rows are "
                     "asked again by the next run of this command")
        elif status.outcome in ("expired", "cancelled") or left:
            self.say(f"batch {batch.id} {status.outcome}: {new} answers collected, {left} rows "
                     f"left to ask again (run this command again){said}")

    def _left(self, batch: Batch) -> int:
        """The rows of ``batch`` still without an answer."""
        return sum(meta.uid not in self.store for meta in batch.lines.values())

    def _learn(self, why: str, sent: dict[str, Any]) -> None:
        change = self.api.learn(why, sent)
        if change and not any(x["why"] == why for x in self.book.learned):
            self.book.learned.append({"why": why, "sent": sent})
            self.changed = True
            self.say(f"{change}: the rows left are sent in that form")

    def submit(self, asked: Iterable[Any]) -> None:
        """Send the pending rows no live batch asks as new batches, each as soon as it fills
        to the provider's limits, recorded the moment the provider accepts it."""
        busy = self.book.asking()
        start = self.book.next_id()
        part: list[Entry] = []
        meta: dict[str, Line] = {}
        size = 0
        for a in asked:
            req = a.request
            if req.uid in busy or req.uid in self.store:
                continue
            e = self.api.entry(f"gwj-{start + len(meta)}", req)
            if e.size > self.api.max_bytes:
                raise BatchError(f"request {e.cid} is {e.size:,} bytes, over a batch's "
                                 f"{self.api.max_bytes:,}; lower --max-pixels")
            if part and (len(part) >= self.api.max_requests
                         or size + e.size > self.api.max_bytes):
                self._send(part, meta)
                part, size = [], 0
            meta[e.cid] = Line(req.uid, req.task, req.style, req.request_hash, a.digest, e.sent)
            part.append(e)
            size += e.size
        if part:
            self._send(part, meta)

    def _send(self, part: list[Entry], meta: dict[str, Line]) -> None:
        batch_id = self.api.submit(part, note=f"gridwm-judge {self.judge.spec}")
        self.book.batches.append(Batch(batch_id, self.judge.backend, now_iso(),
                                       {e.cid: meta[e.cid] for e in part}))
        self.book.save()
        self.say(f"submitted {len(part)} rows as batch {batch_id}")

    def wait(self, asked: Callable[[], Iterable[Any]]) -> None:
        """Poll until no batch is live; when a line taught the judge a request form, the rows
        left go again in it (at most :data:`MAX_RESHAPES` times a run)."""
        for _ in range(MAX_RESHAPES + 1):
            self.watch.start(len(self.book.asking()))
            while self.book.open():
                time.sleep(self.options.poll_s)
                self.poll()
            if not self.changed:
                return
            self.changed = False
            self.submit(asked())


MAX_RESHAPES = 4
"""Resubmissions in one run after the provider refused a request field (each teaches one)."""


def run_batches(judge: Any, asked: Callable[[], Iterable[Any]], judge_spec: str,
                store: PredictionStore, out: Path, options: BatchOptions,
                record: Callable[..., Any], progress: bool = True) -> int:
    """Collect what ended, submit what is left (unless cancelling), and wait for the live
    batches when asked; the number of answers stored. ``asked()`` yields the rows still to
    ask (each with ``.request`` and ``.digest``), ``record`` makes a prediction record."""
    run = _Run(judge, judge_spec, store, out, options, record, progress)
    try:
        run.poll()
        if options.cancel:
            for b in run.book.open():
                run.api.cancel(b.id)
            run.say(f"asked the provider to cancel {len(run.book.open())} batch(es); "
                    "collecting what had finished")
        else:
            run.submit(asked())
        if not options.wait:
            if run.book.open():
                run.say(f"{len(run.book.asking())} rows in {len(run.book.open())} batch(es) "
                        "are with the provider; run this command again to collect them")
            return run.new
        try:
            run.wait(asked)
        except KeyboardInterrupt:
            run.watch.close()
            run.say(f"stopped waiting; {len(run.book.open())} batch(es) keep running at the "
                    "provider: run this command again to collect them (--cancel-batch "
                    "cancels them)")
            raise
    finally:
        run.watch.close()
        run.api.close()
    return run.new


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

        self.close()

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

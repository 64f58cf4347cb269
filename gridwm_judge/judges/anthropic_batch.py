"""Anthropic's Message Batches, as the ``anthropic:`` judge's batch path speaks them, through
the official SDK (``client.messages.batches``): requests inline (``create``), status
(``retrieve``), results streamed from the batch's ``results_url`` (``results``), ``cancel``.

Each request is the judge's own Messages request (``params``: what the online path would send,
``temperature`` included) under the run's line id, which fits Anthropic's ``custom_id``
pattern ``[a-zA-Z0-9_-]{1,64}``. A succeeded line's Message is read by the same
:func:`~gridwm_judge.judges.anthropic_api.response_of` as an online answer. A batch's results
are archived some weeks after it ends (``archived_at``): its rows are then asked again. The
SDK client is the judge's (key, ``--base-url``, deadline-bound sockets, no SDK retries);
every refusal is one :class:`~gridwm_judge.judges.batch_api.BatchError` line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from gridwm_judge.judges.anthropic_api import (
    AnthropicJudge,
    params_of,
    response_of,
    sent_fields,
)
from gridwm_judge.judges.base import JudgeRequest, JudgeResponse
from gridwm_judge.judges.batch_api import (
    BatchError,
    BatchStatus,
    Entry,
    Failed,
    Line,
    sdk_call,
)
from gridwm_judge.redact import redact

MAX_REQUESTS = 100_000
MAX_BYTES = 256_000_000
"""Anthropic's limits for one Message Batch: requests and bytes of the create call."""
NO_API = "has no Message Batches API (POST /v1/messages/batches)"


class BatchClient:
    """The Message Batches endpoints of the judge's server (``--base-url``)."""

    max_requests, max_bytes = MAX_REQUESTS, MAX_BYTES

    def __init__(self, judge: AnthropicJudge):
        self.judge = judge
        self.batches = judge.client.messages.batches

    def close(self) -> None:
        pass  # the judge's client: closed with the judge

    def entry(self, cid: str, req: JudgeRequest) -> Entry:
        kwargs = self.judge.prepare(req)
        body = {"custom_id": cid, "params": params_of(kwargs)}
        return Entry(cid, body, len(json.dumps(body)), sent_fields(kwargs))

    def submit(self, entries: Sequence[Entry], note: str) -> str:
        return str(self._call("create", self.batches.create,
                              requests=[e.body for e in entries]).id)

    def status(self, batch_id: str) -> BatchStatus:
        b = self._call("status", self.batches.retrieve, batch_id)
        counts = b.request_counts
        outcome = None
        if b.processing_status == "ended":
            outcome = ("cancelled" if b.cancel_initiated_at else
                       "expired" if counts.expired else "completed")
        return BatchStatus(b.id, b.processing_status, outcome,
                           counts.succeeded + counts.errored + counts.canceled + counts.expired,
                           handle=b.archived_at)

    def answers(self, status: BatchStatus, lines: Mapping[str, Line]
                ) -> Iterator[tuple[str, JudgeResponse | Failed]]:
        if status.handle is not None:
            raise BatchError(f"Anthropic archived its results at {status.handle}", gone=True)
        # the results stream as the iterator is read: read them whole under the error rules
        items = self._call("results", lambda: list(self.batches.results(status.id)))
        for item in items:
            meta = lines.get(item.custom_id)
            if meta is None:
                continue
            result = item.result
            if result.type != "succeeded":
                said = result.error.model_dump() if result.type == "errored" else result.type
                yield item.custom_id, Failed(redact(
                    said if isinstance(said, str) else json.dumps(said), self.judge.secrets))
                continue
            try:
                yield item.custom_id, response_of(meta.request(), result.message,
                                                  dict(meta.sent), 0.0)
            except (AttributeError, TypeError, ValueError) as exc:  # asked again
                yield item.custom_id, Failed(f"a malformed message: {exc}")

    def learn(self, why: str, sent: dict[str, Any]) -> str | None:
        return self.judge.refused.learn(why, sent)

    def cancel(self, batch_id: str) -> None:
        self._call("cancel", self.batches.cancel, batch_id)

    def _call(self, step: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return sdk_call(step, lambda: fn(*args, **kwargs), self.judge, NO_API)

"""What ``eval --batch`` needs of a provider's batch interface, whichever provider it is.

Why one seam: the run folder's batch record, polling, collecting, re-asking and cancelling
(:mod:`gridwm_judge.runner.batch`) are the same for OpenAI's Batch API, Anthropic's Message
Batches and Gemini's batch mode; only how a batch is sent, how its status reads and how its
answers come back differ. Each provider's module (``openai_batch``, ``anthropic_batch``,
``gemini_batch``) implements :class:`BatchAPI` with its judge's own request writer and
answer reader, so a batch answer is recorded exactly as the same answer online would be.

A request line's id is the run's own (``gwj-<n>``: a form every provider accepts, Anthropic's
``[a-zA-Z0-9_-]{1,64}`` included); a provider that answers by position (Gemini inline) is read
in the order the lines were recorded.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gridwm_judge.judges.base import JudgeRequest, JudgeResponse
from gridwm_judge.judges.http_judge import transport_failure
from gridwm_judge.redact import redact, redact_url

PROVIDERS = {"openai": "openai_batch", "anthropic": "anthropic_batch", "gemini": "gemini_batch"}
"""Backend -> the module (under ``gridwm_judge.judges``) that speaks its batch interface."""
OUTCOMES = ("completed", "failed", "expired", "cancelled")
"""How a batch ended, in every provider's case: ``failed`` is a batch the provider rejected as
a whole (nothing answered), ``expired`` one it stopped at its deadline (some lines answered)."""


class BatchError(ValueError):
    """The provider refused a batch step; one line saying what to do. ``retryable``: a refusal
    for now (rate limit, server error, no answer) that a later try may not meet; ``gone``: the
    provider no longer has the batch or its results (its rows are asked again)."""

    def __init__(self, message: str, retryable: bool = False, gone: bool = False):
        super().__init__(message)
        self.retryable, self.gone = retryable, gone


@dataclass(frozen=True)
class Failed:
    """A line the provider answered with an error (its row is asked again): what it said,
    secrets redacted (a refused request field is learned from it, as online)."""

    why: str


RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""HTTP statuses of a batch step worth asking again later."""


@dataclass(frozen=True)
class Line:
    """One request line of a batch: the row it asks and the decoding fields it carried."""

    uid: str
    task: str
    style: str
    request_hash: str
    item_digest: str
    sent: dict[str, Any]

    def request(self) -> JudgeRequest:
        """The request as the record of its answer needs it (no prompt or images)."""
        return JudgeRequest(self.uid, self.task, "", [], 1, request_hash=self.request_hash,
                            style=self.style)


@dataclass(frozen=True)
class BatchStatus:
    """What the provider says of one batch: its own word for the state (shown to the user),
    how it ended (one of :data:`OUTCOMES`, None while it runs), how many lines are done, the
    reasons of a rejection, and whatever the provider needs to hand back its answers."""

    id: str
    status: str
    outcome: str | None
    done: int
    errors: tuple[str, ...] = ()
    handle: Any = None

    @property
    def ended(self) -> bool:
        return self.outcome is not None


@dataclass(frozen=True)
class Entry:
    """One request as the provider's batch takes it, its size in bytes (limits bind on it) and
    the decoding fields it carries (the as-sent record)."""

    cid: str
    body: Any
    size: int
    sent: dict[str, Any]


class BatchAPI(Protocol):
    """A provider's batch interface, bound to one judge (its model, key and ``--base-url``)."""

    max_requests: int
    max_bytes: int

    def entry(self, cid: str, req: JudgeRequest) -> Entry:
        """``req`` written as one line of a batch."""
        ...

    def submit(self, entries: Sequence[Entry], note: str) -> str:
        """Send one batch; its id (raises :class:`BatchError` when refused)."""
        ...

    def status(self, batch_id: str) -> BatchStatus: ...

    def answers(self, status: BatchStatus, lines: Mapping[str, Line]
                ) -> Iterator[tuple[str, JudgeResponse | Failed]]:
        """(line id, answer) for each line an ended batch reports, :class:`Failed` for a line
        that failed (its row is asked again). :class:`BatchError` when the results cannot be
        read (``gone``: any more; ``retryable``: for now)."""
        ...

    def learn(self, why: str, sent: dict[str, Any]) -> str | None:
        """What changed in the judge's request form after a line that carried ``sent`` failed
        saying ``why`` (a field the model refuses, as the online path learns it); None."""
        ...

    def cancel(self, batch_id: str) -> None: ...

    def close(self) -> None: ...


def unanswered(exc: BaseException, step: str, url: str) -> BatchError | None:
    """The one line for batch ``step`` the server never answered (a dropped connection, a
    timeout: worth trying again later); None when ``exc`` is no such failure."""
    failed = transport_failure(exc)
    return None if failed is None else BatchError(
        f"the server at {url} did not answer the batch {step} ({failed})", retryable=True)


def sdk_call(step: str, call: Callable[[], Any], judge: Any, no_api: str) -> Any:
    """``call()``, a provider SDK's batch ``step`` for ``judge`` (its ``url`` and ``secrets``),
    with the SDK's failures as one line each: :func:`unanswered` when no HTTP status came back
    (the SDK's ``status_code``, or google-genai's ``code``), else :func:`refused` with the
    message, secrets redacted."""
    try:
        return call()
    except Exception as exc:
        status = next((s for s in (getattr(exc, "status_code", None), getattr(exc, "code", None))
                       if isinstance(s, int)), None)
        url = redact_url(judge.url)
        if status is None:
            raise unanswered(exc, step, url) or exc from exc
        raise refused(step, status, redact(_message(exc), judge.secrets), url, no_api) from exc


def _message(exc: BaseException) -> str:
    """An SDK error's message: its body's ``error.message`` (Anthropic), else its ``message``
    (google-genai) or text, on one line."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:200]
    return " ".join(str(getattr(exc, "message", None) or exc).split())[:200]


def refused(step: str, status: int, text: str, url: str, no_api: str) -> BatchError:
    """The one line for batch ``step`` the server refused with HTTP ``status`` (``text``: its
    message, secrets already redacted); ``no_api`` says what a 404 at submission means at
    this provider."""
    if status == 404 and step in ("upload", "create"):
        return BatchError(f"the server at {url} {no_api} (HTTP 404 on {step}: {text}); run "
                          "without --batch")
    if status == 404 and step == "status":
        return BatchError(f"the provider no longer knows this batch (HTTP 404: {text})",
                          gone=True)
    if status == 404 and step in ("download", "results"):
        return BatchError(f"its results are gone (HTTP 404: {text})", gone=True)
    if status in (401, 403):
        return BatchError(f"the key has no batch access at {url} (HTTP {status} on {step}: "
                          f"{text}); check the key and its project, or run without --batch")
    if status == 400 and step in ("upload", "create"):
        return BatchError(f"the provider rejected the batch ({text}); nothing was submitted")
    return BatchError(f"the server refused the batch {step} (HTTP {status}: {text})",
                      retryable=status in RETRYABLE)


def batch_api(judge: Any) -> BatchAPI:
    """The batch interface of ``judge``'s provider."""
    module = importlib.import_module(f"gridwm_judge.judges.{PROVIDERS[judge.backend]}")
    return module.BatchClient(judge)

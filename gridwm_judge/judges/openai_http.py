"""``openai:MODEL``: any OpenAI-compatible chat-completions server (e.g. ``vllm serve``).

No SDK: httpcore (a dependency of httpx) over :mod:`gridwm_judge.judges.http_deadline`, so
``timeout_s`` bounds each whole attempt (connect + send + receive), even against a server
that trickles bytes. Images go as base64 PNG data URLs (the dataset's stored PNG bytes as
they are when they are plain RGB, so nothing is decoded). The key comes from
``OPENAI_API_KEY`` or ``GRIDWM_API_KEY`` (none is sent when both are unset, as local servers
expect); user info in the base URL (``http://user:key@host/v1``) is sent as basic auth.

``workers`` daemon threads send requests concurrently under a shared ``rps`` limit; 408, 409,
425, 429, 5xx of :data:`RETRY_STATUS`, timeouts, connection errors and malformed bodies are
retried with exponential backoff (``backoff_s`` x 2^attempt, at most 30 s, at least a server's
``Retry-After``) up to ``retries`` times; other 4xx are not retried. A request that still fails
becomes a response with status ``"error"`` and the last error text, secrets redacted: failures
are data, not verdicts. :meth:`OpenAIJudge.close` shuts the sockets down, so Ctrl-C never
waits for a slow server.

Reasoning models: ``message.content`` is the answer; ``message.reasoning`` (older servers:
``reasoning_content``) and ``<think>...</think>`` blocks inside the content go to
:attr:`JudgeResponse.reasoning`, never to the answer; ``finish_reason="length"`` is
``truncated`` even when the content is null (the thinking used the whole budget).
"""

from __future__ import annotations

import base64
import json
import os
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from gridwm_judge.judges.base import (
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    Usage,
    require,
    status_for,
)
from gridwm_judge.judges.decoding import GREEDY, openai_request_fields
from gridwm_judge.judges.http_deadline import Connections
from gridwm_judge.judges.images import png_data_url
from gridwm_judge.parsing import split_reasoning
from gridwm_judge.redact import redact
from gridwm_judge.task_table import answer_spec

API_KEY_ENV = ("OPENAI_API_KEY", "GRIDWM_API_KEY")
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0
_POLL_S = 0.2  # how often the consuming thread wakes to let Ctrl-C through


def image_data_url(image) -> str:
    """A PIL image as a ``data:image/png;base64,...`` URL (lossless, so pixels are exact)."""
    return png_data_url((image,), 0)


def chat_body(
    model: str, req: JudgeRequest, seed: int | None = None, structured: bool = False
) -> dict:
    """The chat-completions request body: images first, then the prompt; greedy decoding
    (:data:`~.decoding.GREEDY`: no sampling, no penalties, the task's budget).

    ``structured`` adds vLLM's ``structured_outputs`` extra parameter (choice / JSON schema
    of the task's answer format); only vLLM-compatible servers understand it.
    """
    content = [
        {"type": "image_url", "image_url": {"url": png_data_url(req.images, i)}}
        for i in range(len(req.images))
    ]
    content.append({"type": "text", "text": req.prompt})
    body = {
        "model": model,
        "messages": [{"role": "user", "content": content}],
        **openai_request_fields(req.max_tokens),
    }
    if seed is not None:
        body["seed"] = seed
    if structured:
        body["structured_outputs"] = answer_spec(req.task, req.style).structured_output()
    return body


def api_key() -> str | None:
    for name in API_KEY_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


@dataclass(frozen=True)
class Completion:
    """What one chat-completions body says: the answer apart from the reasoning."""

    answer: str | None
    reasoning: str | None
    finish_reason: str | None
    usage: Usage | None

    @property
    def status(self):
        """``truncated`` when the budget ran out (even with no answer), else ok / empty."""
        return status_for(self.answer, self.finish_reason == "length")


def parse_completion(data) -> Completion:
    """Read a chat-completions JSON body; a body of the wrong shape is a ValueError."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
        content = message.get("content")
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ValueError(f"no choices[0].message ({type(exc).__name__}: {exc})") from exc
    if content is not None and not isinstance(content, str):
        raise ValueError(f"message.content is not text: {content!r:.200}")
    thinking = [message.get("reasoning") or message.get("reasoning_content")]
    if content is not None:  # no reasoning parser on the server: <think> stays in the content
        inline, content = split_reasoning(content)
        thinking.append(inline)
    reasoning = "\n\n".join(t for t in thinking if isinstance(t, str) and t.strip()) or None
    return Completion(content, reasoning, finish, _usage(data.get("usage")))


def _usage(usage) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return Usage(usage.get("prompt_tokens"), usage.get("completion_tokens"), reasoning)


class RateLimiter:
    """At most ``rps`` request starts per second across all threads (None: unlimited)."""

    def __init__(self, rps: float | None):
        self.interval = 1.0 / rps if rps else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class _Fatal(Exception):
    """A failure that asking again will not fix (e.g. HTTP 400/401)."""


class OpenAIJudge:
    needs_gold = False

    def __init__(self, model: str, options: JudgeOptions, spec: str):
        if not options.base_url:
            raise ValueError(f"judge {spec!r} needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        require("httpx", "openai")  # brings httpcore, which is what is used
        self.spec, self.model, self.options = spec, model, options
        self.url, auth = _split_userinfo(options.base_url.rstrip("/") + "/chat/completions")
        self.headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        key = api_key()
        self.secrets = tuple(s for s in (key, auth) if s)
        if auth:
            self.headers.append(("Authorization", "Basic " + base64.b64encode(
                auth.encode()).decode()))
        elif key:
            self.headers.append(("Authorization", f"Bearer {key}"))
        self.conn = Connections(self.url, max(1, options.workers))
        self.httpcore = self.conn.httpcore
        self.limiter = RateLimiter(options.rps)
        self._closed = threading.Event()

    def settings(self) -> dict:
        return {
            "backend": "openai",
            "model": self.model,
            "structured": self.options.structured,
            "decoding": GREEDY.settings(),
            "seed": self.options.seed,
        }

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        """Keep at most 2 x workers requests queued; yield each as it completes.

        The workers are daemon threads and this thread waits in short slices, so Ctrl-C
        (KeyboardInterrupt here) ends the loop at once and never waits for a server.
        """
        workers = max(1, self.options.workers)
        todo: queue.Queue = queue.Queue()
        done: queue.Queue = queue.Queue()
        stop = threading.Event()
        threads = [
            threading.Thread(target=self._serve, args=(todo, done, stop), daemon=True,
                             name=f"gwj-http-{i}")
            for i in range(workers)
        ]
        for t in threads:
            t.start()
        it = iter(requests)
        in_flight, exhausted = 0, False
        try:
            while True:
                while not exhausted and in_flight < 2 * workers:
                    req = next(it, None)
                    if req is None:
                        exhausted = True
                        break
                    todo.put(req)
                    in_flight += 1
                if not in_flight:
                    return
                while True:
                    try:
                        resp = done.get(timeout=_POLL_S)
                        break
                    except queue.Empty:
                        continue
                in_flight -= 1
                yield resp
        finally:
            stop.set()
            for _ in threads:
                todo.put(None)

    def _serve(self, todo: queue.Queue, done: queue.Queue, stop: threading.Event) -> None:
        while True:
            req = todo.get()
            if req is None or stop.is_set():
                return
            try:
                resp = self.one(req, stop)
            except BaseException as exc:  # never leave the consumer waiting for this request
                resp = JudgeResponse(req.uid, None, "error", 0.0, error=f"worker failed: {exc!r}")
            done.put(resp)

    def one(self, req: JudgeRequest, stop: threading.Event | None = None) -> JudgeResponse:
        """Send one request with retries; never raises."""
        start = time.perf_counter()
        try:
            body = chat_body(self.model, req, self.options.seed, self.options.structured)
            payload = json.dumps(body).encode("utf-8")
        except Exception as exc:  # e.g. an image that cannot be encoded
            return self._error(req, start, f"bad request: {type(exc).__name__}: {exc}")
        last = "no attempt"
        for attempt in range(self.options.retries + 1):
            if self._closed.is_set() or (stop is not None and stop.is_set()):
                return self._error(req, start, f"cancelled after {attempt} attempts: {last}")
            self.limiter.wait()
            try:
                return self._attempt(req, payload, start)
            except _Fatal as exc:
                return self._error(req, start, str(exc))
            except _Retryable as exc:
                last = str(exc)
                if attempt == self.options.retries:
                    break
                delay = min(MAX_BACKOFF_S, self.options.backoff_s * (2**attempt))
                if exc.retry_after is not None:
                    delay = min(MAX_BACKOFF_S, max(delay, exc.retry_after))
                (stop or self._closed).wait(delay)
            except Exception as exc:  # a bug or an unforeseen failure: data, not a crash
                return self._error(req, start, f"{type(exc).__name__}: {exc}")
        return self._error(
            req, start, f"gave up after {self.options.retries + 1} attempts: {last}"
        )

    def _error(self, req: JudgeRequest, start: float, message: str) -> JudgeResponse:
        return JudgeResponse(
            req.uid, None, "error", time.perf_counter() - start,
            error=redact(message, self.secrets),
        )

    def _attempt(self, req: JudgeRequest, payload: bytes, start: float) -> JudgeResponse:
        """One POST bounded by ``timeout_s`` as a whole; raises _Retryable or _Fatal."""
        hc = self.httpcore
        timeout = self.options.timeout_s
        try:
            resp = self.conn.post(self.url, self.headers, payload, timeout)
        except hc.TimeoutException as exc:
            raise _Retryable(f"timeout: no complete response within {timeout:g} s ({exc})") \
                from exc
        except (hc.NetworkError, hc.RemoteProtocolError) as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from exc
        except (hc.UnsupportedProtocol, hc.LocalProtocolError, hc.ProxyError) as exc:
            raise _Fatal(f"{type(exc).__name__}: {exc}") from exc
        text = resp.content.decode("utf-8", "replace")
        if resp.status in RETRY_STATUS:
            raise _Retryable(f"HTTP {resp.status}: {text[:200]}", _retry_after(resp.headers))
        if resp.status >= 400:
            raise _Fatal(f"HTTP {resp.status}: {text[:300]}")
        try:
            done = parse_completion(json.loads(text))
        except ValueError as exc:
            raise _Retryable(f"malformed response body ({exc}): {text[:200]!r}") from exc
        return JudgeResponse(
            req.uid, done.answer, done.status, time.perf_counter() - start, done.usage,
            reasoning=done.reasoning,
        )

    def close(self) -> None:
        """Stop retries and shut the sockets down: threads in a request return at once."""
        self._closed.set()
        self.conn.close()


def _split_userinfo(url: str) -> tuple[str, str | None]:
    """(url without user info, "user:password" or None)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=host)), unquote(userinfo)


def _retry_after(headers) -> float | None:
    for name, value in headers:
        if name.lower() == b"retry-after":
            try:
                return float(value)
            except ValueError:
                return None
    return None


def create(name: str, options: JudgeOptions, spec: str) -> OpenAIJudge:
    return OpenAIJudge(name, options, spec)

"""``openai:MODEL``: any OpenAI-compatible chat-completions server (e.g. ``vllm serve``).

Plain ``httpx`` (no SDK needed): images go as base64 PNG data URLs (the dataset's stored PNG
bytes as they are when they are plain RGB, so nothing is decoded), the key comes from
``OPENAI_API_KEY`` or ``GRIDWM_API_KEY`` (none is sent when both are unset, as local servers
expect). ``workers`` threads send requests concurrently under a shared ``rps`` limit; 429,
5xx, timeouts, connection errors and malformed bodies are retried with exponential backoff
(honouring ``Retry-After``) up to ``retries`` times, and a request that still fails becomes a
response with status ``"error"`` and the last error text: failures are data, not verdicts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from gridwm_judge.judges.base import (
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    Usage,
    require,
    status_for,
)
from gridwm_judge.judges.images import png_data_url

API_KEY_ENV = ("OPENAI_API_KEY", "GRIDWM_API_KEY")
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0


def image_data_url(image) -> str:
    """A PIL image as a ``data:image/png;base64,...`` URL (lossless, so pixels are exact)."""
    return png_data_url((image,), 0)


def chat_body(
    model: str, req: JudgeRequest, seed: int | None = None, structured: bool = False
) -> dict:
    """The chat-completions request body: images first, then the prompt; temperature 0.

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
        "temperature": 0.0,
        "max_tokens": req.max_tokens,
    }
    if seed is not None:
        body["seed"] = seed
    if structured:
        from gridwm_judge.judges.vllm_engine import structured_spec

        body["structured_outputs"] = structured_spec(req.task)
    return body


def api_key() -> str | None:
    for name in API_KEY_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


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


class OpenAIJudge:
    needs_gold = False

    def __init__(self, model: str, options: JudgeOptions, spec: str):
        if not options.base_url:
            raise ValueError(f"judge {spec!r} needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        self.httpx = require("httpx", "openai")
        self.spec, self.model, self.options = spec, model, options
        self.url = options.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        key = api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        limits = self.httpx.Limits(
            max_connections=options.workers, max_keepalive_connections=options.workers
        )
        self.client = self.httpx.Client(headers=headers, timeout=options.timeout_s, limits=limits)
        self.limiter = RateLimiter(options.rps)

    def settings(self) -> dict:
        return {
            "backend": "openai",
            "model": self.model,
            "structured": self.options.structured,
            "temperature": 0.0,
            "seed": self.options.seed,
        }

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        """Keep at most 2 x workers requests queued; yield each as it completes."""
        window = 2 * self.options.workers
        it = iter(requests)
        pool = ThreadPoolExecutor(max_workers=self.options.workers, thread_name_prefix="gwj-http")
        pending: set = set()
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < window:
                    req = next(it, None)
                    if req is None:
                        exhausted = True
                        break
                    pending.add(pool.submit(self.one, req))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            pool.shutdown(wait=not pending, cancel_futures=True)

    def one(self, req: JudgeRequest) -> JudgeResponse:
        """Send one request with retries; never raises."""
        start = time.perf_counter()
        try:
            body = chat_body(self.model, req, self.options.seed, self.options.structured)
        except Exception as exc:  # e.g. an image that cannot be encoded
            return JudgeResponse(req.uid, None, "error", 0.0, error=f"bad request: {exc}")
        last = "no attempt"
        for attempt in range(self.options.retries + 1):
            self.limiter.wait()
            try:
                return self._post(req, body, start)
            except _Retryable as exc:
                last = str(exc)
                if attempt == self.options.retries:
                    break
                delay = min(MAX_BACKOFF_S, self.options.backoff_s * (2**attempt))
                if exc.retry_after is not None:
                    delay = min(MAX_BACKOFF_S, max(delay, exc.retry_after))
                time.sleep(delay)
            except Exception as exc:  # a non-retryable failure (e.g. HTTP 400/401)
                return JudgeResponse(
                    req.uid,
                    None,
                    "error",
                    time.perf_counter() - start,
                    error=f"{type(exc).__name__}: {exc}",
                )
        return JudgeResponse(
            req.uid,
            None,
            "error",
            time.perf_counter() - start,
            error=f"gave up after {self.options.retries + 1} attempts: {last}",
        )

    def _post(self, req: JudgeRequest, body: dict, start: float) -> JudgeResponse:
        httpx = self.httpx
        try:
            resp = self.client.post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timeout: {exc}") from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from exc
        if resp.status_code in RETRY_STATUS:
            raise _Retryable(f"HTTP {resp.status_code}: {resp.text[:200]}", _retry_after(resp))
        if resp.status_code >= 400:
            raise RuntimeError(f"HTTP {resp.status_code}: {resp.text[:300]}")
        try:
            data = resp.json()
            choice = data["choices"][0]
            text = choice["message"].get("content")
            finish = choice.get("finish_reason")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise _Retryable(f"malformed response body: {resp.text[:200]!r}") from exc
        if text is not None and not isinstance(text, str):
            raise _Retryable(f"malformed response content: {text!r:.200}")
        usage = data.get("usage") if isinstance(data, dict) else None
        usage_obj = None
        if isinstance(usage, dict):
            usage_obj = Usage(usage.get("prompt_tokens"), usage.get("completion_tokens"))
        return JudgeResponse(
            req.uid,
            text,
            status_for(text, finish == "length"),
            time.perf_counter() - start,
            usage_obj,
        )

    def close(self) -> None:
        self.client.close()


def _retry_after(resp) -> float | None:
    value = resp.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def create(name: str, options: JudgeOptions, spec: str) -> OpenAIJudge:
    return OpenAIJudge(name, options, spec)

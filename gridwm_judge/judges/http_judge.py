"""What every HTTP judge shares: workers, rate limit, retries, Retry-After, deadlines, errors.

Why one place: the ``openai:``, ``anthropic:`` and ``gemini:`` backends differ only in how a
request is written and a reply read, so each is a small subclass of :class:`HTTPJudge` with two
methods (:meth:`~HTTPJudge.prepare`, :meth:`~HTTPJudge.attempt`); how requests are sent (daemon
worker threads, a shared ``rps`` limit, retries with backoff, a server's ``Retry-After``, one
deadline per attempt, Ctrl-C that never waits, secrets redacted from errors) lives here once.

An attempt raises :class:`Retryable` (429, 5xx, 529 overloaded, timeouts, a reset connection,
a malformed body; but a connection refused, an unknown host or a failed TLS handshake before
anything has answered stops the run: :func:`unreachable`), :class:`Fatal` (other 4xx: asking
again will not help) or :class:`Reshape`
(the server named a request field it refuses; the backend has changed its wire form for the
rest of the run, so the request is asked again at once, not counted as a retry). A request
that still fails is a response with status ``"error"``: never scored, asked again on rerun.

The sent record: each response carries the decoding fields its request carried (``sent``) and
what the server said answered it (``served``: model id, fingerprint); :meth:`HTTPJudge.
sending` lists the fields the backend could not send and those the server refused.
"""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest, JudgeResponse, require
from gridwm_judge.judges.http_deadline import Connections, sdk_transport
from gridwm_judge.redact import redact

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""HTTP statuses asked again (529: Anthropic's "overloaded")."""
MAX_BACKOFF_S = 30.0
MAX_RESHAPES = 8  # a server that refuses field after field: give up, not loop
_POLL_S = 0.2  # how often the consuming thread wakes to let Ctrl-C through


class Retryable(Exception):
    """A failure that asking again may fix; ``retry_after`` is the server's wait, if any."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class Fatal(Exception):
    """A failure that asking again will not fix (e.g. HTTP 400/401/404)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class RunRefused(ValueError):
    """The server refuses the whole run (bad key, unknown model, no such endpoint), or cannot be
    reached at all before anything answered: eval stops at the first such failure with one
    line, and stores no error rows for it."""


REFUSE_RUN = {401: "the key was refused: check the key variable",
              403: "the key may not use this model: check the key variable and the model",
              404: "no such model or endpoint: check the model name and --base-url"}
"""Replies that no other request of the run would get differently."""

class Reshape(Exception):
    """The server refused a field; the judge changed its wire form: ask again at once."""


def check_status(status: int, headers: Any, text: str) -> None:
    """Raise Retryable / Fatal for an HTTP error status (nothing for 2xx/3xx)."""
    if status in RETRY_STATUS:
        raise Retryable(f"HTTP {status}: {text[:200]}", retry_after(headers))
    if status >= 400:
        raise Fatal(f"HTTP {status}: {text[:300]}", status)


def retry_after(headers: Any) -> float | None:
    """Seconds from a ``Retry-After`` header (bytes or str pairs, or a mapping), else None."""
    items = headers.items() if hasattr(headers, "items") else headers or ()
    for name, value in items:
        name = name.decode() if isinstance(name, bytes) else str(name)
        if name.lower() == "retry-after":
            value = value.decode() if isinstance(value, bytes) else str(value)
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def transport_failure(exc: BaseException) -> Retryable | None:
    """A Retryable for a timeout or a broken connection anywhere in ``exc``'s chain (an SDK
    wraps the httpx2 error our transport raised), else None."""
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        name = type(link).__name__
        if "Timeout" in name:
            return Retryable(f"timeout: {link}")
        if name in ("ConnectError", "RemoteProtocolError", "ReadError", "WriteError",
                    "NetworkError") or isinstance(link, ConnectionError):
            return Retryable(f"connection error: {name}: {link}")
        link = link.__cause__ or link.__context__
    return None


_CONNECT = re.compile(r"ConnectError|ConnectionRefusedError|gaierror|SSLError|SSLCertVerification")
_UNREACHABLE = (
    (re.compile(r"connection refused", re.I),
     "the connection was refused: is the server running, on that host and port?"),
    (re.compile(r"name or service not known|nodename nor servname|no address associated|"
                r"getaddrinfo failed|name resolution", re.I),
     "unknown host: check the host name"),
    (re.compile(r"ssl|certificate|tls", re.I),
     "the TLS handshake failed: check http:// against https:// and the server's certificate"),
)


def unreachable(exc: BaseException) -> str | None:
    """What to check when a request could not connect at all (refused, unknown host, TLS),
    which no retry mends while nothing has answered; None for anything else (a timeout, a
    reset connection, an HTTP status: those are retried)."""
    texts, seen = [], set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        texts.append(f"{type(link).__name__}: {link}")
        link = link.__cause__ or link.__context__
    text = " | ".join(texts)
    if not _CONNECT.search(text):
        return None
    return next((why for pattern, why in _UNREACHABLE if pattern.search(text)), None)


class Limiter(Protocol):
    """What an HTTP judge asks before each request: a :class:`RateLimiter`, or on Ray one
    shared by every replica (``runner.ray_engine.SharedLimiter``)."""

    def wait(self) -> None:
        """Return when the next request may start."""
        ...

    def hold(self, seconds: float) -> None:
        """Let no request start for ``seconds`` from now (a server's ``Retry-After``)."""
        ...


class RateLimiter:
    """At most ``rps`` request starts per second across all threads (None: unlimited), and a
    server's ``Retry-After`` holds every thread, not only the one it answered: the server
    asked the client to wait. Ray's engine shares one across replicas (``runner.ray_engine``).
    """

    def __init__(self, rps: float | None):
        self.interval = 1.0 / rps if rps else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take the next start slot; the seconds to wait for it."""
        with self._lock:
            now = time.time()
            start = max(now, self._next)
            self._next = start + self.interval
        return start - now

    def wait(self) -> None:
        delay = self.reserve()
        if delay > 0:
            time.sleep(delay)

    def hold(self, seconds: float) -> None:
        """No request starts for ``seconds`` from now."""
        with self._lock:
            self._next = max(self._next, time.time() + seconds)


class HTTPJudge:
    """Base of the HTTP judges: subclasses set ``backend`` and write prepare / attempt."""

    needs_gold = False
    backend = "http"

    def __init__(self, spec: str, model: str, options: JudgeOptions,
                 secrets: Iterable[str | None] = ()):
        self.spec, self.model, self.options = spec, model, options
        self.secrets = tuple(s for s in secrets if s)
        self.limiter: Limiter = RateLimiter(options.rps)
        self._closed = threading.Event()
        self._answered = threading.Event()  # a server answered a request of this run
        self.refused_run: str | None = None  # set by the first reply in REFUSE_RUN

    # --- what a subclass writes ---------------------------------------------------------
    def prepare(self, req: JudgeRequest) -> Any:
        """The request in this backend's form (raises for a request that cannot be sent)."""
        raise NotImplementedError

    def attempt(self, req: JudgeRequest, prepared: Any, start: float) -> JudgeResponse:
        """Send once; return the response or raise Retryable / Fatal / Reshape."""
        raise NotImplementedError

    def sending(self) -> dict[str, Any]:
        """What this backend could not send and what the server refused (run.json)."""
        return {}

    def shutdown(self) -> None:
        """Close sockets and clients (subclasses)."""

    # --- shared ---------------------------------------------------------------------------
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
                             name=f"gwj-{self.backend}-{i}")
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
                if self.refused_run is not None:
                    raise RunRefused(self.refused_run)
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
        last, attempt, reshapes = "no attempt", 0, 0
        prepared = None
        while True:
            if self._closed.is_set() or (stop is not None and stop.is_set()):
                return self._error(req, start, f"cancelled after {attempt} attempts: {last}")
            try:
                if prepared is None:
                    prepared = self.prepare(req)
            except Exception as exc:  # e.g. an image that cannot be encoded or is too large
                return self._error(req, start, f"bad request: {exc}")
            self.limiter.wait()
            try:
                resp = self.attempt(req, prepared, start)
                self._answered.set()
                return resp
            except Reshape as exc:
                reshapes += 1
                last, prepared = str(exc), None
                if reshapes > MAX_RESHAPES:
                    return self._error(req, start, f"the server refused field after field: {last}")
                continue
            except Fatal as exc:
                if exc.status in REFUSE_RUN and self.refused_run is None:
                    said = " ".join(str(exc).split())[:200]
                    self.refused_run = redact(
                        f"{self.spec}: {REFUSE_RUN[exc.status]} (the server said {said})",
                        self.secrets)
                return self._error(req, start, str(exc))
            except Retryable as exc:
                last = str(exc)
                why = unreachable(exc)
                if why and not self._answered.is_set():   # nothing to retry against
                    if self.refused_run is None:
                        self.refused_run = redact(
                            f"{self.spec}: cannot reach {getattr(self, 'url', 'the server')}: "
                            f"{why} (nothing was answered; {last})", self.secrets)
                    return self._error(req, start, last)
                if attempt == self.options.retries:
                    break
                delay = min(MAX_BACKOFF_S, self.options.backoff_s * (2**attempt))
                if exc.retry_after is not None:
                    delay = min(MAX_BACKOFF_S, max(delay, exc.retry_after))
                    self.limiter.hold(min(MAX_BACKOFF_S, exc.retry_after))
                attempt += 1
                (stop or self._closed).wait(delay)
            except Exception as exc:  # a bug or an unforeseen failure: data, not a crash
                return self._error(req, start, f"{type(exc).__name__}: {exc}")
        return self._error(req, start, f"gave up after {self.options.retries + 1} attempts: {last}")

    def _error(self, req: JudgeRequest, start: float, message: str) -> JudgeResponse:
        return JudgeResponse(
            req.uid, None, "error", time.perf_counter() - start,
            error=redact(message, self.secrets),
        )

    def close(self) -> None:
        """Stop retries and shut the sockets down: threads in a request return at once."""
        self._closed.set()
        self.shutdown()


def served(model: Any, fingerprint: Any) -> dict[str, str] | None:
    """The ``served`` record of a response: what the server said answered (None if nothing)."""
    out = {k: v for k, v in (("model", model), ("fingerprint", fingerprint))
           if isinstance(v, str) and v}
    return out or None


def sdk_failure(exc: BaseException) -> Retryable | Fatal | None:
    """Retryable / Fatal for an exception a provider SDK raised (retries turned off there):
    an HTTP status (``status_code`` or ``code``, with the response's headers and body), a
    timeout / broken connection of the shared transport, or a body the SDK could not read (a
    ``ValueError``); None for anything else."""
    failed = transport_failure(exc)
    if failed is not None:
        return failed
    status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    if not isinstance(status, int) or status < 400:
        return malformed(exc) if isinstance(exc, ValueError) else None
    response = getattr(exc, "response", None)
    try:
        text = response.text if response is not None else str(exc)
    except Exception:  # a streamed or closed body
        text = str(exc)
    try:
        check_status(status, getattr(response, "headers", None) or {}, text or str(exc))
    except (Retryable, Fatal) as out:
        return out
    return None


def malformed(exc: BaseException) -> Retryable:
    """A reply whose body could not be read: asked again, as a server's hiccup."""
    return Retryable(f"malformed response body: {type(exc).__name__}: {exc}")


def key_from_env(names: tuple[str, ...], spec: str) -> str:
    """The first of the environment variables ``names`` that is set, else one clear line."""
    import os

    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    raise ValueError(f"judge {spec!r} needs an API key: set {' or '.join(names)} "
                     "(it is read from the environment and never written to disk)")


def check_effort(spec: str, effort: str | None, allowed: tuple[str, ...], provider: str) -> None:
    """Refuse, before any request, a ``--reasoning-effort`` the provider has no level for."""
    if effort is not None and effort not in allowed:
        raise ValueError(f"judge {spec!r}: --reasoning-effort must be one of "
                         f"{', '.join(allowed)} for {provider}, got {effort!r}")


def check_image_count(spec: str, n_images: int, limit: int, provider: str) -> None:
    """Refuse, before any request, a run whose items carry more images than the API takes."""
    if n_images > limit:
        raise ValueError(f"judge {spec!r}: items carry up to {n_images} images, the {provider} "
                         f"API takes at most {limit} per request")


_REFUSED = re.compile(
    r"(?i)(?:unsupported (?:parameter|value)|unrecognized request argument supplied"
    r"|unknown parameter|unknown name)\W+(\w+)|(\w+)\W+extra inputs are not permitted")


REFUSAL_CODES = ("unsupported_parameter", "unsupported_value", "unknown_parameter")


class SDKJudge(HTTPJudge):
    """An HTTP judge whose requests a provider's SDK writes and reads.

    A subclass names its provider's limits, checked before anything is sent: the
    ``--reasoning-effort`` levels ``efforts`` of the ``models`` it serves and the images per
    request ``max_images`` of its ``api``. The key comes from the environment; the SDK gets
    :attr:`http_client`, whose sockets keep each attempt's deadline (:mod:`~.http_deadline`),
    and is built with its own retries off, since :class:`HTTPJudge` retries.
    """

    models = "the provider's models"
    efforts: tuple[str, ...] = ()
    api = "the provider's"
    max_images = 0

    def __init__(self, spec: str, model: str, options: JudgeOptions, *,
                 key_env: tuple[str, ...], default_url: str, extra: str):
        check_effort(spec, options.reasoning_effort, self.efforts, self.models)
        check_image_count(spec, options.max_images, self.max_images, self.api)
        require("httpx2", extra)
        import httpx2

        self.api_key = key_from_env(key_env, spec)
        super().__init__(spec, model, options, secrets=(self.api_key,))
        self.url = (options.base_url or default_url).rstrip("/")
        self.conn = Connections(self.url, max(1, options.workers))
        self.http_client = httpx2.Client(transport=sdk_transport(self.conn, options.timeout_s))

    def shutdown(self) -> None:
        self.conn.close()


def refused_param(text: str) -> str | None:
    """The request field a 400 body says the model does not take at all (OpenAI's
    ``error.param`` with an "unsupported" code, or the field named in the message as OpenAI,
    Anthropic or Gemini word it), else None. A value that is merely out of range ("max_tokens
    is too large") is not a refusal of the field."""
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        error = None
    message = error.get("message", "") if isinstance(error, dict) else text
    found = _REFUSED.search(str(message))
    if isinstance(error, dict) and isinstance(error.get("param"), str) and error["param"] and (
            error.get("code") in REFUSAL_CODES or found):
        return error["param"]
    return (found.group(1) or found.group(2)) if found else None


class Refusals:
    """Fields the server refused, learned during the run and shared by every worker: a 400
    naming one of ``droppable`` that the request carried drops it from then on."""

    def __init__(self, droppable: tuple[str, ...]):
        self.droppable = droppable
        self.fields: set[str] = set()
        self._lock = threading.Lock()

    def learn(self, text: str, sent: Mapping[str, Any]) -> str | None:
        """What changed after a 400 reply ``text`` (None: nothing this can drop)."""
        param = refused_param(text)
        with self._lock:
            if param in self.droppable and param in sent:
                self.fields.add(param)
                return f"the server refused {param!r}; leaving it out"
            if param in self.fields:  # another worker learned it while this one was asking
                return f"the server refused {param!r}; left out"
        return None

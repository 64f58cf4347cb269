"""The judge protocol shared by every backend.

A judge turns requests (uid, task, prompt, images, max tokens) into responses (raw text,
status, latency, usage, error) and yields each response as soon as it is finished, so the
eval runner can persist it at once: a crash loses only the requests in flight. Backends never
parse answers (that is :mod:`gridwm_judge.parsing`) and never turn a failure into a verdict:
a failed request is a response with status ``"error"``.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from gridwm_judge.install import install_line

Status = Literal["ok", "error", "truncated", "empty"]  # the values of records.STATUSES


@dataclass(frozen=True)
class JudgeRequest:
    """One model-facing item: the judge sees ``prompt`` and ``images`` only.

    ``images`` reads as RGB PIL images, in order. The eval runner passes a
    :class:`~gridwm_judge.judges.images.LazyImages`, which decodes an image only when it is
    read (judges that never look at pixels cost no decoding) and keeps the stored PNG bytes
    for backends that can send them as they are. ``gold`` is filled by the runner only for
    judges that declare ``needs_gold`` (the oracle sanity judge); every real judge gets ``None``.
    ``request_hash`` identifies what was asked (see ``runner.evaluate.request_hash``); it
    travels with the request so the prediction record can carry it. ``style`` is the row's
    prompt style ("" for tasks without styles): with the task it names the answer format
    (``task_table.answer_spec``) that structured outputs and the baseline judges follow.
    """

    uid: str
    task: str
    prompt: str
    images: Sequence[Any]  # RGB PIL images (or a LazyImages), in order
    max_tokens: int
    gold: str | None = None
    request_hash: str = ""
    style: str = ""


@dataclass(frozen=True)
class Usage:
    """Token counts as the backend reports them; ``reasoning_tokens`` are part of completion."""

    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning_tokens: int | None = None

    def to_dict(self) -> dict[str, int | None]:
        out = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}
        if self.reasoning_tokens is not None:
            out["reasoning_tokens"] = self.reasoning_tokens
        return out


@dataclass(frozen=True)
class JudgeResponse:
    """What a backend returns for one request; ``raw`` is None only when nothing came back.

    ``raw`` is the answer text only; a reasoning model's thinking (a separate reasoning field
    of the server, or ``<think>`` blocks split off the content) goes to ``reasoning`` and is
    never parsed as the answer.
    """

    uid: str
    raw: str | None
    status: Status
    latency_s: float
    usage: Usage | None = None
    error: str | None = None
    reasoning: str | None = None
    sent: Mapping[str, Any] | None = None  # the decoding fields the request carried
    served: Mapping[str, str] | None = None  # model id / fingerprint the server reported
    finish_reason: str | None = None  # the API's own word for why the answer ended


REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
"""Values ``--reasoning-effort`` takes (each API accepts some of them; the server says which)."""
TOKEN_FIELDS = ("auto", "max_tokens", "max_completion_tokens")
"""``--token-field``: the name of the token limit an OpenAI-compatible request carries."""


@dataclass(frozen=True)
class JudgeOptions:
    """Settings every backend may read; unused ones are ignored by that backend.

    ``base_url``/``workers``/``rps``/``timeout_s``/``retries``/``backoff_s``/``batch_size``/
    ``device``/``token_field`` change how requests are sent, not what is asked, so a resumed
    run may change them (the model name in the judge spec is what identifies the judge).

    ``reasoning_effort`` (sent as the API's effort setting), ``reasoning_budget`` (tokens added
    to the task budget where the API counts reasoning inside the limit, or the thinking budget)
    and ``chat_template_kwargs`` (e.g. Qwen3's ``{"enable_thinking": false}``) change what is
    asked; they enter the run's identity only when set, so older runs keep their hashes.
    """

    base_url: str | None = None
    workers: int = 4
    rps: float | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 0.5
    batch_size: int = 8
    seed: int = 0
    structured: bool = False
    max_model_len: int | None = None
    max_pixels: int | None = None
    max_images: int = 16
    device: str | None = None
    tensor_parallel_size: int = 1
    extra: Mapping[str, Any] = field(default_factory=dict)
    reasoning_effort: str | None = None
    reasoning_budget: int = 0
    chat_template_kwargs: Mapping[str, Any] | None = None
    token_field: str = "auto"

    def __post_init__(self) -> None:
        # (name, value, smallest allowed, allowed to be None): refused before any request, so
        # a bad setting never turns into a run of failed requests that look like a server's.
        for name, value, low, optional in (
            ("workers", self.workers, 1, False),
            ("retries", self.retries, 0, False),
            ("batch_size", self.batch_size, 1, False),
            ("max_images", self.max_images, 1, False),
            ("tensor_parallel_size", self.tensor_parallel_size, 1, False),
            ("max_pixels", self.max_pixels, 1, True),
            ("max_model_len", self.max_model_len, 1, True),
            ("seed", self.seed, 0, False),
            ("reasoning_budget", self.reasoning_budget, 0, False),
        ):
            if value is None and optional:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} must be an integer >= {low}, got {value!r}")
        for name, value in (("timeout", self.timeout_s), ("rps", self.rps),
                            ("backoff", self.backoff_s)):
            if value is not None and not value > 0 and not (name == "backoff" and value == 0):
                raise ValueError(f"--{name} must be > 0, got {value!r}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}, "
                             f"got {self.reasoning_effort!r}")
        if self.token_field not in TOKEN_FIELDS:
            raise ValueError(f"--token-field must be one of {', '.join(TOKEN_FIELDS)}, "
                             f"got {self.token_field!r}")
        if self.chat_template_kwargs is not None and not isinstance(
                self.chat_template_kwargs, Mapping):
            raise ValueError("--chat-template-kwargs must be a JSON object, e.g. "
                             f"'{{\"enable_thinking\": false}}', got {self.chat_template_kwargs!r}")


OPERATIONAL_OPTIONS = (
    "base_url",
    "workers",
    "rps",
    "timeout_s",
    "retries",
    "backoff_s",
    "batch_size",
    "device",
    "tensor_parallel_size",
    "token_field",
)
IDENTITY_WHEN_SET = {"reasoning_effort": None, "reasoning_budget": 0, "chat_template_kwargs": None}
"""Answer-changing options recorded in a run's identity only when they differ from these
defaults (runs made before the options existed keep their request hashes)."""


@runtime_checkable
class Judge(Protocol):
    """A backend. ``spec`` is what the user typed (e.g. ``openai:gpt-4o``)."""

    spec: str
    needs_gold: bool

    def settings(self) -> dict[str, Any]:
        """JSON-safe settings that change answers (recorded in run.json, checked on resume)."""
        ...

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        """Yield one response per request, each as soon as it is finished (any order)."""
        ...

    def close(self) -> None:
        """Release engines, threads and connections."""
        ...


class MissingDependencyError(ImportError):
    """An optional dependency of one backend is not installed; the message has the pip line."""


def require(module: str, extra: str, package: str | None = None):
    """Import ``module`` or raise MissingDependencyError with the exact pip install line."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise _missing(module, extra, package) from exc


def require_installed(module: str, extra: str, package: str | None = None) -> None:
    """Raise :func:`require`'s error when ``module`` is not installed, without importing it
    (a slow import can wait until the cheap checks before it have passed)."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise _missing(module, extra, package)


def _missing(module: str, extra: str, package: str | None) -> MissingDependencyError:
    pkg = package or module.split(".")[0]
    return MissingDependencyError(
        f"the {extra!r} judge backend needs {pkg!r}, which is not installed; "
        f"install it with: {install_line(extra)}")


def refuse_api_options(options: JudgeOptions, spec: str) -> None:
    """A local engine sends no API fields: refuse the options that would be recorded in the run
    but not applied (one line, before loading a model)."""
    given = [flag for flag, value, unset in (
        ("--reasoning-effort", options.reasoning_effort, None),
        ("--reasoning-budget", options.reasoning_budget, 0),
        ("--chat-template-kwargs", options.chat_template_kwargs, None)) if value != unset]
    if given:
        raise ValueError(f"{', '.join(given)} apply to the API judges (openai, anthropic, "
                         f"gemini), not to {spec!r}; leave them out")


def looks_like_path(model: str) -> bool:
    """Whether a model name is a local folder rather than a Hub id (``ORG/NAME`` or ``NAME``):
    it starts with ``.``, ``/`` or ``~``, or has more than one ``/``."""
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or "\\" in model


def check_local_path(model: str, backend: str) -> None:
    """A model given as a local path that is not a folder: one line, before any loading (the
    Hub's "Repo id must be in the form ..." would name the wrong problem)."""
    import os

    if looks_like_path(model) and not os.path.isdir(os.path.expanduser(model)):
        raise ValueError(f"no such folder {model!r} for the {backend} judge model (a local "
                         "model is a folder with config, weights and processor files; a Hub "
                         "model is ORG/NAME)")


def status_for(text: str | None, truncated: bool) -> Status:
    """ok / empty / truncated for a response that came back (errors are set by the caller).

    A response cut by the token budget is truncated even with no answer text (a reasoning
    model that spent the budget thinking).
    """
    if truncated:
        return "truncated"
    return "empty" if text is None or not text.strip() else "ok"


def error_response(uid: str, latency_s: float, exc: BaseException) -> JudgeResponse:
    """A request that raised: no text, status "error", the exception's type and message."""
    return JudgeResponse(uid, None, "error", latency_s, error=f"{type(exc).__name__}: {exc}")


def respond_batch(
    batch: Sequence[JudgeRequest],
    generate: Callable[[Sequence[JudgeRequest]], Any],
    respond: Callable[[JudgeRequest, Any, float], JudgeResponse],
) -> Iterator[JudgeResponse]:
    """Responses of a batch a local engine answers at once: ``respond(req, output, latency)``
    per output of ``generate(batch)``, all with the batch's latency; a batch that raises (OOM,
    a bad image) is an error response per request, and the run goes on."""
    start = time.perf_counter()
    try:
        outputs = generate(batch)
    except Exception as exc:
        elapsed = time.perf_counter() - start
        for req in batch:
            yield error_response(req.uid, elapsed, exc)
        return
    elapsed = time.perf_counter() - start
    for req, out in zip(batch, outputs, strict=True):
        yield respond(req, out, elapsed)

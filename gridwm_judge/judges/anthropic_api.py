"""``anthropic:MODEL``: Claude through the Messages API and the official ``anthropic`` SDK.

Why native: a judge asked through this backend gets eval's resumable store, item digests and
request hashes, like ``openai:``. The SDK writes and reads the requests; sending is
:mod:`gridwm_judge.judges.http_judge` (workers, ``rps``, retries with ``Retry-After``, 529
overloaded retried) over the deadline-bound sockets of :mod:`~.http_deadline`, so the SDK's own
retries are off (``max_retries=0``). The key is ``ANTHROPIC_API_KEY``; ``--base-url`` points
the SDK at a proxy or a test server.

The request: images (PNG, in dataset order) then the prompt, unchanged; ``max_tokens`` the task
budget; ``temperature`` 0 (Claude takes no seed, top-k or penalties: listed as not sent). The
SDK no longer types ``temperature``, so it travels in ``extra_body``; a 400 that refuses it
("temperature: Extra inputs are not permitted") leaves it out for the rest of the run, the
request is asked again at once, and run.json says the run was not greedy.
``--reasoning-budget N`` turns extended thinking on (``budget_tokens`` N, ``max_tokens`` budget +
N, as thinking counts inside it); Claude then takes no temperature, so such a run is not greedy
(recorded). ``--reasoning-effort`` is ``output_config.effort``. ``stop_reason`` "max_tokens" is
``truncated``; "refusal" keeps whatever text came (usually none: ``empty``) and is recorded.
"""

from __future__ import annotations

import base64
import json
import time

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest, JudgeResponse, Usage, require
from gridwm_judge.judges.base import status_for as _status_for
from gridwm_judge.judges.decoding import GREEDY
from gridwm_judge.judges.http_judge import (
    Fatal,
    Refusals,
    Reshape,
    SDKJudge,
    malformed,
    sdk_failure,
    served,
)
from gridwm_judge.judges.images import png_bytes, png_size
from gridwm_judge.task_table import answer_spec

KEY_ENV = ("ANTHROPIC_API_KEY",)
DEFAULT_URL = "https://api.anthropic.com"
MAX_IMAGES = 100  # per request (Messages API)
MAX_SIDE = 8000  # px; 2000 when a request carries more than 20 images
MAX_SIDE_MANY = 2000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MIN_THINKING = 1024  # the API's smallest budget_tokens
EFFORTS = ("low", "medium", "high", "xhigh", "max")
TRUNCATED = ("max_tokens", "model_context_window_exceeded")


class AnthropicJudge(SDKJudge):
    backend = "anthropic"
    models, efforts = "Claude", EFFORTS
    api, max_images = "Anthropic Messages", MAX_IMAGES

    def __init__(self, model: str, options: JudgeOptions, spec: str):
        anthropic = require("anthropic", "anthropic")
        if options.reasoning_budget and options.reasoning_budget < MIN_THINKING:
            raise ValueError(f"judge {spec!r}: --reasoning-budget must be 0 (no thinking) or at "
                             f"least {MIN_THINKING} tokens (Claude's smallest thinking budget)")
        super().__init__(spec, model, options, key_env=KEY_ENV, default_url=DEFAULT_URL,
                         extra="anthropic")
        self.client = anthropic.Anthropic(
            api_key=self.api_key, base_url=self.url, max_retries=0, timeout=options.timeout_s,
            http_client=self.http_client,
        )
        self.thinking = options.reasoning_budget > 0
        self.refused = Refusals(("temperature",))

    def settings(self) -> dict:
        return {"backend": "anthropic", "model": self.model, "structured": self.options.structured,
                "decoding": GREEDY.settings()}

    def sending(self) -> dict:
        sent = set(self.fields(1))
        return {"token_limit_field": "max_tokens",
                "not_sent": [f for f in (*GREEDY.fields(), "seed")
                             if f not in sent and f not in self.refused.fields],
                "refused_by_server": sorted(self.refused.fields),
                "structured": "JSON-answer tasks only" if self.options.structured else False}

    def fields(self, budget: int) -> dict:
        """The decoding fields of a request with task budget ``budget``."""
        out: dict = {"max_tokens": budget + self.options.reasoning_budget}
        if self.thinking:
            out["thinking"] = {"type": "enabled", "budget_tokens": self.options.reasoning_budget}
        elif "temperature" not in self.refused.fields:
            out["temperature"] = 0.0
        if self.options.reasoning_effort is not None:
            out["output_config"] = {"effort": self.options.reasoning_effort}
        return out

    def prepare(self, req: JudgeRequest) -> dict:
        content = []
        many = len(req.images) > 20
        for i in range(len(req.images)):
            data = png_bytes(req.images, i)
            check_image(data, i, MAX_SIDE_MANY if many else MAX_SIDE)
            content.append({"type": "image", "source": {
                "type": "base64", "media_type": "image/png",
                "data": base64.b64encode(data).decode("ascii")}})
        content.append({"type": "text", "text": req.prompt})
        fields = self.fields(req.max_tokens)
        kwargs = {"model": self.model, "messages": [{"role": "user", "content": content}],
                  **fields}
        structured = answer_spec(req.task, req.style).structured_output()
        if self.options.structured and "json" in structured:
            fmt = {"type": "json_schema", "schema": json.loads(structured["json"])}
            kwargs["output_config"] = {**kwargs.get("output_config", {}), "format": fmt}
        if "temperature" in kwargs:  # not a typed argument of the SDK's create()
            kwargs["extra_body"] = {"temperature": kwargs.pop("temperature")}
        return kwargs

    def attempt(self, req: JudgeRequest, prepared: dict, start: float) -> JudgeResponse:
        try:
            msg = self.client.messages.create(**prepared)
        except Exception as exc:
            failed = sdk_failure(exc)
            if isinstance(failed, Fatal) and getattr(exc, "status_code", None) == 400:
                change = self.refused.learn(_body_text(exc), sent_fields(prepared))
                if change:
                    raise Reshape(change) from exc
            if failed is not None:
                raise failed from exc
            raise
        try:
            return response_of(req, msg, sent_fields(prepared), time.perf_counter() - start)
        except (AttributeError, TypeError, ValueError) as exc:
            raise malformed(exc) from exc


def response_of(req: JudgeRequest, msg, sent: dict, elapsed_s: float) -> JudgeResponse:
    """The answer a Message holds (online, or one line of a Message Batch); raises
    ValueError / AttributeError / TypeError for a malformed one."""
    text, reasoning = read_content(msg.content)
    usage = msg.usage
    stop = getattr(msg, "stop_reason", None)
    details = getattr(usage, "output_tokens_details", None)
    return JudgeResponse(
        req.uid, text, _status_for(text, stop in TRUNCATED), elapsed_s,
        Usage(getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None),
              getattr(details, "thinking_tokens", None)),
        reasoning=reasoning, sent=sent, served=served(getattr(msg, "model", None), None),
        finish_reason=stop,
    )


def params_of(kwargs: dict) -> dict:
    """A create() call's keyword arguments as the request body (``extra_body`` unfolded)."""
    out = {k: v for k, v in kwargs.items() if k != "extra_body"}
    return {**out, **kwargs.get("extra_body", {})}


def sent_fields(kwargs: dict) -> dict:
    """The decoding fields of a create() call: its body without the model and messages."""
    return {k: v for k, v in params_of(kwargs).items() if k not in ("model", "messages")}


def _body_text(exc: BaseException) -> str:
    try:
        return exc.response.text  # type: ignore[attr-defined]
    except Exception:
        return str(exc)


def read_content(blocks) -> tuple[str | None, str | None]:
    """(answer text, thinking text) of a Messages ``content`` list; only text blocks answer."""
    if not isinstance(blocks, list):
        raise ValueError(f"content is not a list: {blocks!r:.200}")
    text = [b.text for b in blocks if getattr(b, "type", None) == "text"]
    thinking = [b.thinking for b in blocks if getattr(b, "type", None) == "thinking"]
    if not all(isinstance(t, str) for t in (*text, *thinking)):
        raise ValueError("a text block holds no text")
    return ("".join(text) if text else None), ("\n\n".join(thinking) or None)


def check_image(data: bytes, index: int, max_side: int) -> None:
    """Refuse an image the API would refuse (size in px and bytes), naming the fix."""
    w, h = png_size(data) or (0, 0)
    if max(w, h) > max_side:
        raise ValueError(f"image {index} is {w}x{h} px; the Anthropic API takes at most "
                         f"{max_side} px a side here: rerun with --max-pixels")
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"image {index} is {len(data)} bytes; the Anthropic API takes at most "
                         f"{MAX_IMAGE_BYTES} per image: rerun with --max-pixels")


def create(name: str, options: JudgeOptions, spec: str) -> AnthropicJudge:
    return AnthropicJudge(name, options, spec)

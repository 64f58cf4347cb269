"""``gemini:MODEL``: Gemini through the Gemini API (generateContent) and the official
``google-genai`` SDK.

Why native: a judge asked through this backend gets eval's resumable store, item digests and
request hashes, like ``openai:``. The SDK writes and reads the requests; sending is
:mod:`gridwm_judge.judges.http_judge` (workers, ``rps``, retries with ``Retry-After``) over the
deadline-bound sockets of :mod:`~.http_deadline`, so the SDK's own retries are off (no
``retry_options``). The key is ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``); ``--base-url`` points
the SDK at a proxy or a test server.

The request: images (PNG, inline, in dataset order) then the prompt, unchanged;
``max_output_tokens`` the task budget plus ``--reasoning-budget`` (Gemini counts thinking
inside it); ``temperature`` 0 and ``seed``. ``--reasoning-budget N`` sets ``thinking_budget``
N and ``--reasoning-effort`` ``thinking_level``; with either, thought summaries are asked for
and kept apart from the answer. Without them a model thinks as it does by default (2.5 Flash
and 3 Flash do), which spends the budget: set ``--reasoning-budget``. ``--structured`` sends
the answer format (an enum or a JSON schema). ``finishReason`` MAX_TOKENS is ``truncated``;
a blocked prompt or a SAFETY stop is an answer with no text (``empty``), its reason recorded.
"""

from __future__ import annotations

import json
import time

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest, JudgeResponse, Usage, require
from gridwm_judge.judges.base import status_for as _status_for
from gridwm_judge.judges.decoding import GREEDY
from gridwm_judge.judges.http_judge import (
    SDKJudge,
    malformed,
    sdk_failure,
    served,
)
from gridwm_judge.judges.images import png_bytes
from gridwm_judge.task_table import answer_spec

KEY_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_URL = "https://generativelanguage.googleapis.com"
MAX_IMAGES = 3600  # per request
MAX_INLINE_BYTES = 20 * 1024 * 1024  # the whole request, inline images included
LEVELS = ("minimal", "low", "medium", "high", "xhigh")
TRUNCATED = ("MAX_TOKENS",)


class GeminiJudge(SDKJudge):
    backend = "gemini"
    models, efforts = "Gemini", LEVELS
    api, max_images = "Gemini", MAX_IMAGES

    def __init__(self, model: str, options: JudgeOptions, spec: str):
        genai = require("google.genai", "gemini", "google-genai")
        from google.genai import types

        super().__init__(spec, model, options, key_env=KEY_ENV, default_url=DEFAULT_URL,
                         extra="gemini")
        self.client = genai.Client(
            api_key=self.api_key, vertexai=False, http_options=types.HttpOptions(
                base_url=self.url + "/", timeout=int(options.timeout_s * 1000),
                httpx_client=self.http_client))

    def settings(self) -> dict:
        return {"backend": "gemini", "model": self.model, "structured": self.options.structured,
                "decoding": GREEDY.settings(), "seed": self.options.seed}

    def sending(self) -> dict:
        sent = set(self.fields(1))
        return {"token_limit_field": "max_output_tokens",
                "not_sent": [f for f in GREEDY.fields() if f not in sent]}

    def fields(self, budget: int) -> dict:
        """The decoding fields (generation config) of a request with task budget ``budget``."""
        out: dict = {"temperature": 0.0, "seed": self.options.seed,
                     "max_output_tokens": budget + self.options.reasoning_budget}
        thinking: dict = {}
        if self.options.reasoning_budget:
            thinking["thinking_budget"] = self.options.reasoning_budget
        if self.options.reasoning_effort is not None:
            thinking["thinking_level"] = self.options.reasoning_effort.upper()
        if thinking:
            out["thinking_config"] = {**thinking, "include_thoughts": True}
        return out

    def prepare(self, req: JudgeRequest) -> dict:
        parts: list[dict] = []
        size = len(req.prompt.encode())
        for i in range(len(req.images)):
            data = png_bytes(req.images, i)
            size += len(data) * 4 // 3
            parts.append({"inline_data": {"mime_type": "image/png", "data": data}})
        if size > MAX_INLINE_BYTES:
            raise ValueError(f"the request is {size} bytes with its images; the Gemini API "
                             f"takes at most {MAX_INLINE_BYTES} inline: rerun with --max-pixels")
        parts.append({"text": req.prompt})
        config = self.fields(req.max_tokens)
        if self.options.structured:
            fmt = answer_spec(req.task, req.style).structured_output()
            if "choice" in fmt:
                config.update(response_mime_type="text/x.enum",
                              response_schema={"type": "STRING", "enum": list(fmt["choice"])})
            else:
                config.update(response_mime_type="application/json",
                              response_json_schema=json.loads(fmt["json"]))
        return {"model": self.model, "contents": [{"role": "user", "parts": parts}],
                "config": config}

    def attempt(self, req: JudgeRequest, prepared: dict, start: float) -> JudgeResponse:
        from google.genai import types

        try:
            config = types.GenerateContentConfig(**prepared["config"])
            resp = self.client.models.generate_content(
                model=prepared["model"], contents=prepared["contents"], config=config)
        except Exception as exc:
            failed = sdk_failure(exc)
            if failed is not None:
                raise failed from exc
            raise
        try:
            return response_of(req, resp, dict(prepared["config"]), time.perf_counter() - start)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise malformed(exc) from exc


def response_of(req: JudgeRequest, resp, sent: dict, elapsed_s: float) -> JudgeResponse:
    """The answer a GenerateContentResponse holds (online, or one line of a batch); raises
    ValueError / AttributeError / TypeError / IndexError for a malformed one."""
    text, reasoning, finish = read_candidate(resp)
    meta = getattr(resp, "usage_metadata", None)
    out_tokens = getattr(meta, "candidates_token_count", None)
    thoughts = getattr(meta, "thoughts_token_count", None)
    if out_tokens is not None and thoughts:
        out_tokens += thoughts
    return JudgeResponse(
        req.uid, text, _status_for(text, finish in TRUNCATED), elapsed_s,
        Usage(getattr(meta, "prompt_token_count", None), out_tokens, thoughts),
        reasoning=reasoning, sent=sent,
        served=served(getattr(resp, "model_version", None), None), finish_reason=finish,
    )


def read_candidate(resp) -> tuple[str | None, str | None, str | None]:
    """(answer, thought summary, finish reason) of a generateContent reply; a blocked prompt
    has no candidate: no answer, reason ``blocked: REASON``."""
    candidates = getattr(resp, "candidates", None)
    if not candidates:
        block = getattr(getattr(resp, "prompt_feedback", None), "block_reason", None)
        if block is None:
            raise ValueError("no candidates and no prompt_feedback.block_reason")
        return None, None, f"blocked: {_name(block)}"
    cand = candidates[0]
    finish = _name(getattr(cand, "finish_reason", None))
    parts = getattr(getattr(cand, "content", None), "parts", None) or []
    answer = [p.text for p in parts if isinstance(p.text, str) and not p.thought]
    thought = [p.text for p in parts if isinstance(p.text, str) and p.thought]
    return ("".join(answer) if answer else None), ("\n\n".join(thought) or None), finish


def _name(value) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


def create(name: str, options: JudgeOptions, spec: str) -> GeminiJudge:
    return GeminiJudge(name, options, spec)

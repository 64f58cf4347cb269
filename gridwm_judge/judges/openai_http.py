"""``openai:MODEL``: any OpenAI-compatible chat-completions server (e.g. ``vllm serve``).

No SDK: httpcore (a dependency of httpx) over :mod:`gridwm_judge.judges.http_deadline`, so
``timeout_s`` bounds each whole attempt (connect + send + receive), even against a server
that trickles bytes. Images go as base64 PNG data URLs (the dataset's stored PNG bytes as
they are when they are plain RGB, so nothing is decoded). The key comes from
``OPENAI_API_KEY`` or ``GRIDWM_API_KEY`` (none is sent when both are unset, as local servers
expect); user info in the base URL (``http://user:key@host/v1``) is sent as basic auth.

Sending (workers, ``rps``, retries with backoff and ``Retry-After``, errors as data, Ctrl-C)
is :mod:`gridwm_judge.judges.http_judge`, shared with the other HTTP judges.

Reasoning models: ``message.content`` is the answer; ``message.reasoning`` (older servers:
``reasoning_content``) and ``<think>...</think>`` blocks inside the content go to
:attr:`JudgeResponse.reasoning`, never to the answer; ``finish_reason="length"`` is
``truncated`` even when the content is null (the thinking used the whole budget).
o-series / GPT-5 models refuse ``max_tokens`` and a temperature other than 1: a 400 naming
the field changes the request's form for the rest of the run (:class:`WireForm`) and the
request is asked again at once, so no row is stored as an error for it. The request hash
covers what is asked (prompt, images, budget, decoding intent), never this wire form.
``reasoning_budget`` is added to the limit sent (reasoning counts inside it).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
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
from gridwm_judge.judges.decoding import GREEDY, Decoding, openai_request_fields
from gridwm_judge.judges.http_deadline import Connections
from gridwm_judge.judges.http_judge import (
    RETRY_STATUS,
    Fatal,
    HTTPJudge,
    RateLimiter,
    Reshape,
    Retryable,
    check_status,
    refused_param,
    served,
)
from gridwm_judge.judges.images import png_data_url
from gridwm_judge.parsing import split_reasoning
from gridwm_judge.task_table import answer_spec

API_KEY_ENV = ("OPENAI_API_KEY", "GRIDWM_API_KEY")
__all__ = ["RETRY_STATUS", "RateLimiter", "OpenAIJudge", "WireForm", "chat_body",
           "parse_completion", "refused_param"]


def chat_body(
    model: str, req: JudgeRequest, seed: int | None = None, structured: bool = False, *,
    form: WireForm | None = None, options: JudgeOptions | None = None,
) -> dict:
    """The chat-completions request body: images first, then the prompt; greedy decoding
    (:data:`~.decoding.GREEDY`: no sampling, no penalties, the task's budget, plus
    ``reasoning_budget``) in the ``form`` the server accepts.

    ``structured`` adds vLLM's ``structured_outputs`` extra parameter (choice / JSON schema
    of the task's answer format); only vLLM-compatible servers understand it. ``options``
    may add ``reasoning_effort`` and ``chat_template_kwargs`` (vLLM / SGLang: Qwen3's
    thinking switch).
    """
    options = options or JudgeOptions()
    content = [
        {"type": "image_url", "image_url": {"url": png_data_url(req.images, i)}}
        for i in range(len(req.images))
    ]
    content.append({"type": "text", "text": req.prompt})
    body = {
        "model": model,
        "messages": [{"role": "user", "content": content}],
        **(form or WireForm()).fields(req.max_tokens + options.reasoning_budget),
    }
    if seed is not None and "seed" not in (form.refused if form else ()):
        body["seed"] = seed
    if options.reasoning_effort is not None:
        body["reasoning_effort"] = options.reasoning_effort
    if options.chat_template_kwargs:
        body["chat_template_kwargs"] = dict(options.chat_template_kwargs)
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
    if message.get("refusal") and not content:  # the model declined: no answer, kept apart
        finish = "refusal"
    return Completion(content, reasoning, finish, _usage(data.get("usage")))


def _usage(usage) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return Usage(usage.get("prompt_tokens"), usage.get("completion_tokens"), reasoning)


class WireForm:
    """The request form this server accepts, learned during the run and shared by all workers.

    Starts from ``--token-field`` (``auto``: ``max_tokens``, what every OpenAI-compatible
    server took before reasoning models). A 400 naming a field is read by :meth:`learn`: under
    ``auto``, "Unsupported parameter: 'max_tokens' ... Use 'max_completion_tokens'" switches the
    limit's name, and a sampling field the model refuses (``temperature`` of a reasoning model)
    is left out from then on; the form is kept for the rest of the run.
    """

    def __init__(self, token_field: str = "auto"):
        self.adaptive = token_field == "auto"
        self.token_field = "max_tokens" if self.adaptive else token_field
        self.refused: set[str] = set()
        self._lock = threading.Lock()

    def fields(self, max_tokens: int, decoding: Decoding = GREEDY) -> dict:
        """The decoding fields of a request in the current form."""
        with self._lock:
            out = openai_request_fields(max_tokens, decoding)
            limit = out.pop("max_tokens")
            out[self.token_field] = limit
            for name in self.refused:
                out.pop(name, None)
            return out

    def learn(self, text: str, sent: dict) -> str | None:
        """What changed in the form after a 400 reply ``text`` to a request that carried
        ``sent``; None when the reply names nothing this form can change."""
        param = refused_param(text)
        if param is None:
            return None
        with self._lock:
            if param in ("max_tokens", "max_completion_tokens") and self.adaptive:
                other = "max_completion_tokens" if param == "max_tokens" else "max_tokens"
                if param in sent:
                    if self.token_field == param:
                        self.token_field = other
                    return f"the server refused {param!r}; sending {other!r}"
            elif param in DROPPABLE and param in sent:
                self.refused.add(param)
                return f"the server refused {param!r}; leaving it out"
        return None


DROPPABLE = ("temperature", "top_p", "presence_penalty", "frequency_penalty", "seed")
"""Sampling fields left out when the model refuses them (recorded as refused in run.json)."""


class OpenAIJudge(HTTPJudge):
    backend = "openai"

    def __init__(self, model: str, options: JudgeOptions, spec: str):
        if not options.base_url:
            raise ValueError(f"judge {spec!r} needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        require("httpx", "openai")  # brings httpcore, which is what is used
        self.url, auth = _split_userinfo(options.base_url.rstrip("/") + "/chat/completions")
        key = api_key()
        super().__init__(spec, model, options, secrets=(key, auth))
        self.headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if auth:
            self.headers.append(("Authorization", "Basic " + base64.b64encode(
                auth.encode()).decode()))
        elif key:
            self.headers.append(("Authorization", f"Bearer {key}"))
        self.conn = Connections(self.url, max(1, options.workers))
        self.httpcore = self.conn.httpcore
        self.form = WireForm(options.token_field)

    def settings(self) -> dict:
        return {
            "backend": "openai",
            "model": self.model,
            "structured": self.options.structured,
            "decoding": GREEDY.settings(),
            "seed": self.options.seed,
        }

    def sending(self) -> dict:
        sent = self.form.fields(1)
        return {
            "token_limit_field": self.form.token_field,
            "not_sent": [f for f in GREEDY.fields()
                         if f not in sent and f not in self.form.refused],
            "refused_by_server": sorted(self.form.refused),
        }

    def prepare(self, req: JudgeRequest) -> tuple[dict, bytes]:
        body = chat_body(self.model, req, self.options.seed, self.options.structured,
                         form=self.form, options=self.options)
        return body, json.dumps(body).encode("utf-8")

    def attempt(self, req: JudgeRequest, prepared, start: float) -> JudgeResponse:
        """One POST bounded by ``timeout_s`` as a whole."""
        body, payload = prepared
        hc = self.httpcore
        timeout = self.options.timeout_s
        try:
            resp = self.conn.post(self.url, self.headers, payload, timeout)
        except hc.TimeoutException as exc:
            raise Retryable(f"timeout: no complete response within {timeout:g} s ({exc})") \
                from exc
        except (hc.NetworkError, hc.RemoteProtocolError) as exc:
            raise Retryable(f"connection error: {type(exc).__name__}: {exc}") from exc
        except (hc.UnsupportedProtocol, hc.LocalProtocolError, hc.ProxyError) as exc:
            raise Fatal(f"{type(exc).__name__}: {exc}") from exc
        text = resp.content.decode("utf-8", "replace")
        if resp.status == 400:
            sent = sent_fields(body)
            if sent != sent_fields(self.prepare(req)[0]):
                raise Reshape("another request learned the server's form")
            change = self.form.learn(text, sent)
            if change:
                raise Reshape(change)
        check_status(resp.status, resp.headers, text)
        try:
            data = json.loads(text)
            done = parse_completion(data)
        except ValueError as exc:
            raise Retryable(f"malformed response body ({exc}): {text[:200]!r}") from exc
        return JudgeResponse(
            req.uid, done.answer, done.status, time.perf_counter() - start, done.usage,
            reasoning=done.reasoning, sent=sent_fields(body),
            served=served(data.get("model"), data.get("system_fingerprint")),
            finish_reason=done.finish_reason,
        )

    def shutdown(self) -> None:
        self.conn.close()


def sent_fields(body: dict) -> dict:
    """The decoding fields of a chat body: everything but the model, messages and the
    structured-output constraint (recorded in the run's options)."""
    return {k: v for k, v in body.items() if k not in ("model", "messages", "structured_outputs")}


def _split_userinfo(url: str) -> tuple[str, str | None]:
    """(url without user info, "user:password" or None)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=host)), unquote(userinfo)


def create(name: str, options: JudgeOptions, spec: str) -> OpenAIJudge:
    return OpenAIJudge(name, options, spec)

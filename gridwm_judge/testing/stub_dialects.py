"""How the loopback stub server speaks the Anthropic Messages and Gemini generateContent APIs.

Why a separate module: :mod:`gridwm_judge.testing.stub_server` scripts behaviours (ok, an HTTP
status, a malformed body, a refusal, a cut-off answer) once; this module writes each of them in
the wire format of the other APIs, as those servers answer (field names, stop reasons, error
bodies, usage), so the ``anthropic:`` and ``gemini:`` backends are tested through their real
SDKs over real sockets. Shapes follow the providers' API references.
"""

from __future__ import annotations

from typing import Any

STATUS_NAMES = {
    "anthropic": {400: "invalid_request_error", 401: "authentication_error",
                  404: "not_found_error", 429: "rate_limit_error", 500: "api_error",
                  529: "overloaded_error"},
    "gemini": {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
               404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
               503: "UNAVAILABLE"},
}
_STOP = {
    "anthropic": {"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"},
    "gemini": {"stop": "STOP", "length": "MAX_TOKENS", "refusal": "SAFETY"},
}


def path_ok(api: str, path: str) -> bool:
    if api == "anthropic":
        return path.rstrip("/").endswith("/v1/messages")
    if api == "gemini":
        return ":generateContent" in path
    return path.endswith("/chat/completions")


def prompt_of(api: str, body: dict) -> str:
    """The text parts of the last user turn."""
    try:
        if api == "gemini":
            parts = body["contents"][-1]["parts"]
        else:
            parts = body["messages"][-1]["content"]
        return " ".join(p.get("text", "") for p in parts if isinstance(p, dict))
    except (KeyError, IndexError, TypeError):
        return ""


def error_body(api: str, status: int) -> dict:
    name = STATUS_NAMES.get(api, {}).get(status, "error")
    if api == "anthropic":
        return {"type": "error", "error": {"type": name, "message": f"scripted {status}"}}
    if api == "gemini":
        return {"error": {"code": status, "message": f"scripted {status}", "status": name}}
    return {"error": f"scripted {status}"}


def reply(api: str, body: dict, text: str | None, finish: str, reasoning: str | None,
          reasoning_tokens: int | None, model: str | None, path: str = "") -> dict[str, Any]:
    """A successful reply: ``finish`` is stop / length / refusal (this API's name is used)."""
    stop = _STOP[api].get(finish, finish)
    n_out = len((text or "").split()) + len((reasoning or "").split())
    if api == "anthropic":
        content: list[dict] = []
        if reasoning is not None:
            content.append({"type": "thinking", "thinking": reasoning, "signature": "sig"})
        if text is not None:
            content.append({"type": "text", "text": text})
        usage: dict[str, Any] = {"input_tokens": 11, "output_tokens": n_out}
        if reasoning_tokens is not None:
            usage["output_tokens_details"] = {"thinking_tokens": reasoning_tokens}
        return {"id": "msg_stub", "type": "message", "role": "assistant",
                "model": model or body.get("model"), "content": content, "stop_reason": stop,
                "stop_sequence": None, "usage": usage}
    parts: list[dict] = []
    if reasoning is not None:
        parts.append({"text": reasoning, "thought": True})
    if text is not None:
        parts.append({"text": text})
    candidate: dict[str, Any] = {"finishReason": stop, "index": 0}
    if parts:
        candidate["content"] = {"role": "model", "parts": parts}
    meta: dict[str, Any] = {"promptTokenCount": 11, "candidatesTokenCount": n_out,
                            "totalTokenCount": 11 + n_out}
    if reasoning_tokens is not None:
        meta["thoughtsTokenCount"] = reasoning_tokens
    name = path.split("/models/")[-1].split(":")[0] if "/models/" in path else None
    return {"candidates": [candidate], "usageMetadata": meta,
            "modelVersion": model or name, "responseId": "resp_stub"}


def refused_field(api: str, body: dict, refuse) -> dict | None:
    """Anthropic's 400 body for a field of ``body`` named in ``refuse`` (as the Messages API
    answers a field it does not take), else None."""
    for name in refuse:
        if api == "anthropic" and name in body:
            return {"type": "error", "error": {
                "type": "invalid_request_error",
                "message": f"{name}: Extra inputs are not permitted"}}
    return None

"""A local OpenAI-compatible chat-completions stub for tests, benchmarks and smoke runs.

Real HTTP on 127.0.0.1 (``http.server`` in a thread), so the ``openai:`` backend is exercised
through sockets, not mocks. Replies are scripted per prompt: :meth:`StubServer.script` queues
behaviours for requests whose prompt contains a key (429, 500, a slow reply, a malformed body,
a truncated answer, a reply trickled one byte at a time, an error body that echoes the request
headers, a reasoning model's reply); everything else gets ``default_reply`` after ``delay_s``.
``refuse`` makes it answer as OpenAI does for o-series / GPT-5 models: HTTP 400 with
"Unsupported parameter: 'max_tokens' ... Use 'max_completion_tokens' instead" for a request
carrying ``max_tokens``, and "Unsupported value: 'temperature' ..." for a non-default sampling
field; ``model`` / ``fingerprint`` are what it reports as having answered. ``api`` makes it
speak Anthropic's Messages API (``"anthropic"``) or Gemini's generateContent (``"gemini"``)
instead (:mod:`gridwm_judge.testing.stub_dialects`); ``base_url`` is then the host root, as
those SDKs take it.

    with StubServer(default_reply="Yes") as server:
        ...  # point --base-url at server.base_url

From a shell, to try the ``openai:`` backend without a model server (``--api anthropic`` or
``--api gemini`` for those backends; ``eval --batch`` works against each)::

    python -m gridwm_judge.testing.stub_server --port 8011 --reply Yes
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gridwm_judge.testing.stub_batches import DIALECTS
from gridwm_judge.testing.stub_dialects import (
    error_body,
    path_ok,
    prompt_of,
    refused_field,
    reply,
)

APIS = tuple(DIALECTS)
"""The APIs the stub speaks (``api=``), each with its batch API."""


@dataclass(frozen=True)
class Behaviour:
    """One scripted reply: kind in ok / status / sleep / malformed / nochoices / trickle / echo
    / refusal (the model declines: OpenAI's ``message.refusal``, Anthropic's ``stop_reason``
    "refusal", Gemini's ``finishReason`` SAFETY).

    ``text`` None sends ``"content": null``; ``reasoning`` goes in the message's
    ``reasoning_key`` field (vLLM: ``reasoning``; older servers: ``reasoning_content``).
    """

    kind: str
    text: str | None = "Yes"
    status: int = 200
    seconds: float = 0.0
    finish_reason: str = "stop"
    retry_after: float | None = None
    reasoning: str | None = None
    reasoning_key: str = "reasoning"
    reasoning_tokens: int | None = None
    headers_too: bool = False


def ok(text: str | None, finish_reason: str = "stop", reasoning: str | None = None,
       reasoning_key: str = "reasoning", reasoning_tokens: int | None = None) -> Behaviour:
    return Behaviour("ok", text=text, finish_reason=finish_reason, reasoning=reasoning,
                     reasoning_key=reasoning_key, reasoning_tokens=reasoning_tokens)


def trickle(interval_s: float, text: str = "Yes", headers_too: bool = False) -> Behaviour:
    """A well-formed reply sent one byte every ``interval_s`` (the headers too, if asked)."""
    return Behaviour("trickle", text=text, seconds=interval_s, headers_too=headers_too)


def echo_headers(status: int = 401) -> Behaviour:
    """An error body that echoes every request header and the key, as careless servers do."""
    return Behaviour("echo", status=status)


def http_error(status: int, retry_after: float | None = None) -> Behaviour:
    return Behaviour("status", status=status, retry_after=retry_after)


def slow(seconds: float, text: str = "Yes") -> Behaviour:
    return Behaviour("sleep", text=text, seconds=seconds)


MALFORMED = Behaviour("malformed")
REFUSAL = Behaviour("refusal", text=None, finish_reason="refusal")
NO_CHOICES = Behaviour("nochoices")


REASONING_DEFAULTS = {"temperature": 1, "top_p": 1, "presence_penalty": 0,
                      "frequency_penalty": 0}
"""The only values an o-series / GPT-5 model takes for these fields."""


def refusal(body: dict, refuse) -> dict | None:
    """OpenAI's 400 body for the first field of ``body`` a reasoning model refuses, else None."""
    if "max_tokens" in refuse and "max_tokens" in body:
        return {"error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                       "Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error", "param": "max_tokens",
            "code": "unsupported_parameter"}}
    for name, default in REASONING_DEFAULTS.items():
        if name in refuse and name in body and body[name] != default:
            return {"error": {
                "message": f"Unsupported value: '{name}' does not support {body[name]!r} with "
                           f"this model. Only the default ({default}) value is supported.",
                "type": "invalid_request_error", "param": name, "code": "unsupported_value"}}
    return None


class StubServer:
    def __init__(self, default_reply: str = "Yes", delay_s: float = 0.0, port: int = 0,
                 refuse: tuple[str, ...] = (), model: str | None = None,
                 fingerprint: str | None = None, api: str = "openai"):
        self.api = api
        self.default_reply = default_reply
        self.delay_s = delay_s
        self.refuse = tuple(refuse)
        self.model, self.fingerprint = model, fingerprint
        self.requests: list[dict] = []
        self.arrivals: list[float] = []  # time.monotonic() of each request, in order
        self.headers: list[dict] = []
        self._scripts: dict[str, deque] = {}
        self._lock = threading.Lock()
        self._active = 0
        self.max_active = 0
        self.batch_api = DIALECTS[api](self._answer_line)
        self._httpd = _Server(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.handle_error = _quiet_disconnects(self._httpd.handle_error)
        # a short poll: shutdown() waits for the serve loop's next look (0.5 s by default)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.api == "openai" else "")

    def script(self, key: str, *behaviours: Behaviour) -> None:
        """Requests whose prompt contains ``key`` get these replies in turn, then the default.

        When several keys occur in a prompt, the longest one with replies left is used.
        """
        with self._lock:
            self._scripts.setdefault(key, deque()).extend(behaviours)

    def attempts(self, key: str) -> int:
        with self._lock:
            return sum(key in prompt_of(self.api, body) for body in self.requests)

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _answer_line(self, body: dict, model: str | None = None) -> tuple[int, dict]:
        """A batch line's (status, body) in this server's dialect, by the same scripts as an
        online request (``model``: the batch's, where the line does not name one)."""
        with self._lock:
            self.requests.append(body)
        refused = self._refused(body)
        if refused is not None:  # the model refuses a field: the line fails as online
            return 400, refused
        b = self._next(prompt_of(self.api, body)) or Behaviour("ok", text=self.default_reply)
        if b.kind == "status":
            return b.status, error_body(self.api, b.status)
        if self.api != "openai":
            return 200, reply(self.api, body, b.text, b.finish_reason, b.reasoning,
                              b.reasoning_tokens, self.model or model)
        return 200, _completion(body, b, self)

    def _refused(self, body: dict) -> dict | None:
        """This API's 400 body for a field of ``body`` the model refuses (``refuse``)."""
        if self.api == "openai":
            return refusal(body, self.refuse)
        return refused_field(self.api, body, self.refuse)

    def _next(self, prompt: str) -> Behaviour | None:
        with self._lock:
            keys = sorted((k for k, q in self._scripts.items() if k in prompt and q), key=len)
            return self._scripts[keys[-1]].popleft() if keys else None

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: bytes, extra=(),
                      ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def _batch(self, method: str) -> bool:
                """A batch-API request (in this server's dialect), answered here; False
                otherwise."""
                if not server.batch_api.handles(method, self.path):
                    return False
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length) if length else b""
                status, payload, ctype, *extra = server.batch_api.handle(
                    method, self.path, self.headers, raw)
                self._send(status, payload, (extra[0] if extra else {}).items(), ctype)
                return True

            def do_GET(self) -> None:
                if not self._batch("GET"):
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:
                if self._batch("POST"):
                    return
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.arrivals.append(time.monotonic())
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    server._active += 1
                    server.max_active = max(server.max_active, server._active)
                try:
                    self._reply(body)
                finally:
                    with server._lock:
                        server._active -= 1

            def _reply(self, body: dict) -> None:
                if not path_ok(server.api, self.path):
                    self._send(404, b'{"error": "not found"}')
                    return
                refused = server._refused(body)
                if refused is not None:
                    self._send(400, json.dumps(refused).encode())
                    return
                b = (server._next(prompt_of(server.api, body))
                     or Behaviour("ok", text=server.default_reply))
                if server.delay_s:
                    time.sleep(server.delay_s)
                if b.kind == "status":
                    extra = (
                        [("Retry-After", str(b.retry_after))] if b.retry_after is not None else []
                    )
                    self._send(b.status, json.dumps(error_body(server.api, b.status)).encode(),
                               extra)
                    return
                if b.kind == "malformed":
                    self._send(200, b'{"choices": [{"message": ')
                    return
                if b.kind == "nochoices":
                    self._send(200, b'{"object": "chat.completion", "choices": []}')
                    return
                if b.kind == "echo":
                    seen = dict(self.headers)
                    auth = seen.get("Authorization", "")
                    payload = {"error": {"message": f"invalid credentials {auth}",
                                         "api_key": auth.rpartition(" ")[2],
                                         "request_headers": seen}}
                    self._send(b.status, json.dumps(payload).encode())
                    return
                if b.kind == "sleep":
                    time.sleep(b.seconds)
                if b.kind == "trickle":
                    self._trickle(json.dumps(_completion(body, b, server)).encode(), b)
                    return
                if server.api != "openai":
                    out = reply(server.api, body, b.text, b.finish_reason, b.reasoning,
                                b.reasoning_tokens, server.model, self.path)
                    self._send(200, json.dumps(out).encode())
                    return
                self._send(200, json.dumps(_completion(body, b, server)).encode())

            def _trickle(self, payload: bytes, b: Behaviour) -> None:
                head = (
                    f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(payload)}\r\n\r\n"
                ).encode()
                if not b.headers_too:
                    self.wfile.write(head)
                    self.wfile.flush()
                    head = b""
                for i in range(len(head) + len(payload)):
                    self.wfile.write((head + payload)[i : i + 1])
                    self.wfile.flush()
                    time.sleep(b.seconds)

        return Handler


def _completion(body: dict, b: Behaviour, server: StubServer) -> dict:
    message = {"role": "assistant", "content": b.text}
    if b.kind == "refusal":
        message["refusal"] = "I can't help with that."
    if b.reasoning is not None:
        message[b.reasoning_key] = b.reasoning
    n_words = len((b.text or "").split()) + len((b.reasoning or "").split())
    usage: dict[str, Any] = {"prompt_tokens": 11, "completion_tokens": n_words,
                             "total_tokens": 11 + n_words}
    if b.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": b.reasoning_tokens}
    out = {
        "id": "stub",
        "object": "chat.completion",
        "model": server.model or body.get("model"),
        "choices": [{"index": 0, "message": message,
                 "finish_reason": "stop" if b.kind == "refusal" else b.finish_reason}],
        "usage": usage,
    }
    if server.fingerprint:
        out["system_fingerprint"] = server.fingerprint
    return out


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # socketserver's 5 drops simultaneous connects (a 1 s SYN retry)


def _quiet_disconnects(handle_error):
    """Clients that time out close their socket; that is expected here, not a server error."""

    def handler(request, client_address):
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        handle_error(request, client_address)

    return handler


def main(argv: list[str] | None = None) -> int:
    """``python -m gridwm_judge.testing.stub_server --reply Yes``: serve until Ctrl-C."""
    import argparse

    p = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m gridwm_judge.testing.stub_server",
        description="local stub of a judge's API (canned replies), its batch API included",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--reply", default="Yes", help="the answer to every request")
    p.add_argument("--delay", type=float, default=0.0, help="seconds per request")
    p.add_argument("--port", type=int, default=0,
                   help="port on 127.0.0.1 (0: any free port; the URL is printed)")
    p.add_argument("--reasoning-model", action="store_true",
                   help="refuse max_tokens and temperature as OpenAI's o-series / GPT-5 do")
    p.add_argument("--api", choices=APIS, default="openai",
                   help="the API it speaks: OpenAI chat completions, Anthropic Messages or "
                        "Gemini generateContent (each with its batch API)")
    args = p.parse_args(argv)
    if args.reasoning_model and args.api != "openai":
        p.error("--reasoning-model is an OpenAI behaviour; drop it or use --api openai")
    refuse = ("max_tokens", *REASONING_DEFAULTS) if args.reasoning_model else ()
    with StubServer(default_reply=args.reply, delay_s=args.delay, port=args.port,
                    refuse=refuse, api=args.api) as server:
        print(f"serving on {server.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A local OpenAI-compatible chat-completions stub for tests, benchmarks and smoke runs.

Real HTTP on 127.0.0.1 (``http.server`` in a thread), so the ``openai:`` backend is exercised
through sockets, not mocks. Replies are scripted per prompt: :meth:`StubServer.script` queues
behaviours for requests whose prompt contains a key (429, 500, a slow reply, a malformed body,
a truncated answer); everything else gets ``default_reply`` after ``delay_s``.

    with StubServer(default_reply="Yes") as server:
        ...  # point --base-url at server.base_url
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Behaviour:
    """One scripted reply: kind in ok / status / sleep / malformed / nochoices."""

    kind: str
    text: str = "Yes"
    status: int = 200
    seconds: float = 0.0
    finish_reason: str = "stop"
    retry_after: float | None = None


def ok(text: str, finish_reason: str = "stop") -> Behaviour:
    return Behaviour("ok", text=text, finish_reason=finish_reason)


def http_error(status: int, retry_after: float | None = None) -> Behaviour:
    return Behaviour("status", status=status, retry_after=retry_after)


def slow(seconds: float, text: str = "Yes") -> Behaviour:
    return Behaviour("sleep", text=text, seconds=seconds)


MALFORMED = Behaviour("malformed")
NO_CHOICES = Behaviour("nochoices")


class StubServer:
    def __init__(self, default_reply: str = "Yes", delay_s: float = 0.0):
        self.default_reply = default_reply
        self.delay_s = delay_s
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._scripts: dict[str, deque] = {}
        self._lock = threading.Lock()
        self._active = 0
        self.max_active = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.handle_error = _quiet_disconnects(self._httpd.handle_error)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, key: str, *behaviours: Behaviour) -> None:
        """Requests whose prompt contains ``key`` get these replies in turn, then the default.

        When several keys occur in a prompt, the longest one with replies left is used.
        """
        with self._lock:
            self._scripts.setdefault(key, deque()).extend(behaviours)

    def attempts(self, key: str) -> int:
        with self._lock:
            return sum(key in _prompt(body) for body in self.requests)

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, prompt: str) -> Behaviour | None:
        with self._lock:
            keys = sorted((k for k, q in self._scripts.items() if k in prompt and q), key=len)
            return self._scripts[keys[-1]].popleft() if keys else None

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: bytes, extra=()) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
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
                if not self.path.endswith("/chat/completions"):
                    self._send(404, b'{"error": "not found"}')
                    return
                b = server._next(_prompt(body)) or Behaviour("ok", text=server.default_reply)
                if server.delay_s:
                    time.sleep(server.delay_s)
                if b.kind == "status":
                    extra = (
                        [("Retry-After", str(b.retry_after))] if b.retry_after is not None else []
                    )
                    self._send(
                        b.status, json.dumps({"error": f"scripted {b.status}"}).encode(), extra
                    )
                    return
                if b.kind == "malformed":
                    self._send(200, b'{"choices": [{"message": ')
                    return
                if b.kind == "nochoices":
                    self._send(200, b'{"object": "chat.completion", "choices": []}')
                    return
                if b.kind == "sleep":
                    time.sleep(b.seconds)
                reply = {
                    "id": "stub",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": b.finish_reason,
                            "message": {"role": "assistant", "content": b.text},
                        }
                    ],
                    "usage": {
                        "prompt_tokens": 11,
                        "completion_tokens": len(b.text.split()),
                        "total_tokens": 11 + len(b.text.split()),
                    },
                }
                self._send(200, json.dumps(reply).encode())

        return Handler


def _quiet_disconnects(handle_error):
    """Clients that time out close their socket; that is expected here, not a server error."""

    def handler(request, client_address):
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        handle_error(request, client_address)

    return handler


def _prompt(body: dict) -> str:
    try:
        parts = body["messages"][-1]["content"]
        return " ".join(p.get("text", "") for p in parts if isinstance(p, dict))
    except (KeyError, IndexError, TypeError):
        return ""


def main(argv: list[str] | None = None) -> int:
    """``python -m gridwm_judge.judges.stub_server --reply Yes``: serve until Ctrl-C."""
    import argparse

    p = argparse.ArgumentParser(description="local OpenAI-compatible stub (canned replies)")
    p.add_argument("--reply", default="Yes")
    p.add_argument("--delay", type=float, default=0.0, help="seconds per request")
    args = p.parse_args(argv)
    with StubServer(default_reply=args.reply, delay_s=args.delay) as server:
        print(f"serving on {server.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The stub server's batch APIs, one class per dialect (:data:`DIALECTS`; Gemini's is
:mod:`.stub_gemini_batches`).

OpenAI's Batch API: files in, batches that step through their statuses one
status read at a time (validating, in_progress, finalizing, then how they end), output files
answered by the stub's own scripted behaviours, asynchronous cancel.

``ending`` says how each new batch ends: ``completed``, ``failed`` (rejected at validation,
no output), ``expired`` (only the first half of its lines answered). A line whose scripted
behaviour is an HTTP status comes back as an error line with that status, as the real API
reports a line that failed. What the stub was asked is kept, so tests can count it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import default as email_policy
from typing import Any

from gridwm_judge.testing.stub_gemini_batches import GeminiBatches

STEPS = ("validating", "in_progress", "finalizing")


class OpenAIBatches:
    """Files and batches of one stub server; ``answer(body)`` gives a line's (status, body)."""

    def __init__(self, answer: Callable[[dict], tuple[int, dict]]):
        self.answer = answer
        self.ending = "completed"
        self.enabled = True  # False: a server without the Batch API (vLLM): every path 404
        self.refuse_status: int | None = None  # a key without batch access: 401 / 403
        self.hiccups = 0  # status reads answered 503 before the next one is served
        self.download_hiccups = 0  # output-file reads answered 503 likewise
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []
        self._lock = threading.Lock()

    def handles(self, method: str, path: str) -> bool:
        p = path.split("?")[0].rstrip("/")
        return (p.endswith("/v1/files") or "/v1/files/" in p or p.endswith("/v1/batches")
                or "/v1/batches/" in p) and method in ("GET", "POST")

    def handle(self, method: str, path: str, headers: Any, raw: bytes) -> tuple[int, bytes, str]:
        """(status, payload, content type) of one batch-API request."""
        p = path.split("?")[0].rstrip("/")
        if not self.enabled:
            return 404, b'{"error": {"message": "not found"}}', "application/json"
        if self.refuse_status is not None:
            return self.refuse_status, json.dumps({"error": {
                "message": "this key has no access to the Batch API"}}).encode(), \
                "application/json"
        with self._lock:
            if method == "POST" and p.endswith("/v1/files"):
                return self._upload(headers, raw)
            if method == "POST" and p.endswith("/v1/batches"):
                return self._create(json.loads(raw or b"{}"))
            if method == "POST" and p.endswith("/cancel"):
                return self._cancel(p.split("/")[-2])
            if method == "GET" and p.endswith("/content"):
                if self.download_hiccups:
                    self.download_hiccups -= 1
                    return self._json({"error": {"message": "the server is busy"}}, 503)
                data = self.files.get(p.split("/")[-2])
                if data is None:
                    return 404, b'{"error": {"message": "no such file"}}', "application/json"
                return 200, data, "application/jsonl"
            if method == "GET" and "/v1/batches/" in p:
                if self.hiccups:
                    self.hiccups -= 1
                    return self._json({"error": {"message": "the server is busy"}}, 503)
                return self._status(p.split("/")[-1])
        return 404, b'{"error": {"message": "not found"}}', "application/json"

    def _json(self, obj: dict, status: int = 200) -> tuple[int, bytes, str]:
        return status, json.dumps(obj).encode(), "application/json"

    def _upload(self, headers: Any, raw: bytes) -> tuple[int, bytes, str]:
        head = f"Content-Type: {headers.get('Content-Type', '')}\r\n\r\n".encode()
        msg = BytesParser(policy=email_policy).parsebytes(head + raw)
        data: bytes | None = None
        purpose = None
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            value = part.get_payload(decode=True)
            if not isinstance(value, bytes):
                continue
            if name == "file":
                data = value
            elif name == "purpose":
                purpose = value.decode()
        if data is None or purpose != "batch":
            return self._json({"error": {"message": "expected a file with purpose batch"}}, 400)
        fid = f"file-{len(self.files)}"
        self.files[fid] = data
        return self._json({"id": fid, "object": "file", "purpose": "batch", "bytes": len(data)})

    def _create(self, body: dict) -> tuple[int, bytes, str]:
        if body.get("input_file_id") not in self.files:
            return self._json({"error": {"message": "unknown input_file_id"}}, 400)
        bid = f"batch_{len(self.created)}"
        self.batches[bid] = {"id": bid, "object": "batch", "status": STEPS[0], "step": 0,
                             "input_file_id": body["input_file_id"], "ending": self.ending,
                             "endpoint": body.get("endpoint"), "output_file_id": None,
                             "error_file_id": None, "errors": None,
                             "request_counts": {"total": 0, "completed": 0, "failed": 0}}
        self.created.append(bid)
        return self._json(self._public(bid))

    def _public(self, bid: str) -> dict:
        return {k: v for k, v in self.batches[bid].items() if k not in ("step", "ending")}

    def _cancel(self, bid: str) -> tuple[int, bytes, str]:
        b = self.batches.get(bid)
        if b is None:
            return self._json({"error": {"message": "no such batch"}}, 404)
        if b["status"] in STEPS:
            b["status"], b["ending"] = "cancelling", "cancelled"
        return self._json(self._public(bid))

    def _status(self, bid: str) -> tuple[int, bytes, str]:
        b = self.batches.get(bid)
        if b is None:
            return self._json({"error": {"message": "no such batch"}}, 404)
        if b["status"] == "cancelling":
            self._end(b, answered_share=0.5)
        elif b["status"] in STEPS:
            b["step"] += 1
            if b["step"] < len(STEPS):
                b["status"] = STEPS[b["step"]]
            elif b["ending"] == "failed":
                b["status"] = "failed"
                b["errors"] = {"data": [{"code": "invalid_request",
                                         "message": "line 1: the stub rejects this batch"}]}
            else:
                self._end(b, answered_share=0.5 if b["ending"] == "expired" else 1.0)
        return self._json(self._public(bid))

    def _end(self, b: dict, answered_share: float) -> None:
        lines = [json.loads(x) for x in self.files[b["input_file_id"]].splitlines() if x.strip()]
        keep = lines[:int(len(lines) * answered_share)]
        out, errors = [], []
        for i, line in enumerate(keep):
            status, body = self.answer(line["body"])
            entry = {"id": f"req-{i}", "custom_id": line["custom_id"],
                     "response": {"status_code": status, "body": body}, "error": None}
            (out if status == 200 else errors).append(entry)
        for name, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                fid = f"file-{len(self.files)}"
                self.files[fid] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                b[name] = fid
        b["status"] = b["ending"] if b["ending"] in ("cancelled", "expired") else "completed"
        b["request_counts"] = {"total": len(lines), "completed": len(out),
                               "failed": len(errors)}


class AnthropicBatches:
    """Anthropic's Message Batches as the ``anthropic`` SDK calls them: requests inline
    (``POST /v1/messages/batches``), a batch that reads ``in_progress`` twice and then
    ``ended``, results as JSON lines at its ``results_url`` (any order is allowed: these come
    reversed), asynchronous cancel (``canceling``, then ended with half the lines answered and
    the rest ``canceled``).

    ``ending``: ``completed``; ``expired`` (the first half answered, the rest ``expired``);
    ``failed`` (the create call is refused with a 400, as a malformed batch is). An HTTP-status
    behaviour is an ``errored`` line. :meth:`archive` makes a batch's results unavailable, as
    Anthropic's are some weeks after it ends.
    """

    PREFIX = "/v1/messages/batches"
    CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
    READS = 2  # status reads a batch stays in_progress

    def __init__(self, answer: Callable[..., tuple[int, dict]]):
        self.answer = answer
        self.ending = "completed"
        self.enabled = True
        self.refuse_status: int | None = None
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []
        self._lock = threading.Lock()

    def handles(self, method: str, path: str) -> bool:
        return path.split("?")[0].startswith(self.PREFIX) and method in ("GET", "POST")

    def archive(self, bid: str) -> None:
        self.batches[bid]["archived_at"] = _now()

    def handle(self, method: str, path: str, headers: Any, raw: bytes) -> tuple[int, bytes, str]:
        p = path.split("?")[0].rstrip("/")
        if not self.enabled:
            return self._error(404, "not_found_error", "Not Found")
        if self.refuse_status is not None:
            return self._error(self.refuse_status, "permission_error",
                               "This key has no access to the Message Batches API")
        with self._lock:
            if method == "POST" and p == self.PREFIX:
                return self._create(json.loads(raw or b"{}"), headers.get("Host", ""))
            bid = p[len(self.PREFIX) + 1:].split("/")[0]
            b = self.batches.get(bid)
            if b is None:
                return self._error(404, "not_found_error", f"no batch {bid}")
            if method == "POST" and p.endswith("/cancel"):
                if b["processing_status"] == "in_progress":
                    b["processing_status"] = "canceling"
                    b["cancel_initiated_at"] = _now()
                return self._json(self._public(b))
            if method == "GET" and p.endswith("/results"):
                if b["processing_status"] != "ended" or b["archived_at"]:
                    return self._error(404, "not_found_error", "results are not available")
                return 200, b["results"], "application/binary"
            if method == "GET":
                return self._json(self._public(self._step(b)))
        return self._error(404, "not_found_error", "Not Found")

    def _json(self, obj: dict, status: int = 200) -> tuple[int, bytes, str]:
        return status, json.dumps(obj).encode(), "application/json"

    def _error(self, status: int, kind: str, message: str) -> tuple[int, bytes, str]:
        return self._json({"type": "error", "error": {"type": kind, "message": message}},
                          status)

    def _create(self, body: dict, host: str) -> tuple[int, bytes, str]:
        requests = body.get("requests") or []
        bad = [r.get("custom_id") for r in requests
               if not self.CUSTOM_ID.match(str(r.get("custom_id")))]
        if bad:
            return self._error(400, "invalid_request_error",
                               f"requests.custom_id: {bad[0]!r} does not match the pattern")
        if self.ending == "failed" or not requests:
            return self._error(400, "invalid_request_error",
                               "requests.0.params: the stub rejects this batch")
        bid = f"msgbatch_{len(self.created)}"
        self.batches[bid] = {
            "id": bid, "type": "message_batch", "processing_status": "in_progress",
            "created_at": _now(), "expires_at": _now(), "ended_at": None,
            "cancel_initiated_at": None, "archived_at": None, "results_url": None,
            "host": host, "reads": 0, "ending": self.ending, "requests": requests,
            "results": b"", "request_counts": {"processing": len(requests), "succeeded": 0,
                                               "errored": 0, "canceled": 0, "expired": 0}}
        self.created.append(bid)
        return self._json(self._public(self.batches[bid]))

    def _public(self, b: dict) -> dict:
        return {k: v for k, v in b.items()
                if k not in ("host", "reads", "ending", "requests", "results")}

    def _step(self, b: dict) -> dict:
        if b["processing_status"] == "ended":
            return b
        b["reads"] += 1
        if b["processing_status"] == "canceling":
            self._end(b, 0.5, "canceled")
        elif b["reads"] > self.READS:
            self._end(b, 0.5 if b["ending"] == "expired" else 1.0, "expired")
        return b

    def _end(self, b: dict, share: float, rest: str) -> None:
        requests = b["requests"]
        keep = int(len(requests) * share)
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        lines = []
        for i, r in enumerate(requests):
            if i >= keep:
                result: dict[str, Any] = {"type": rest}
            else:
                status, body = self.answer(r["params"])
                result = ({"type": "succeeded", "message": body} if status == 200 else
                          {"type": "errored", "error": body})
            counts[str(result["type"])] += 1
            lines.append(json.dumps({"custom_id": r["custom_id"], "result": result}) + "\n")
        b.update(processing_status="ended", ended_at=_now(), request_counts=counts,
                 results="".join(reversed(lines)).encode(),
                 results_url=f"http://{b['host']}{self.PREFIX}/{b['id']}/results")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


DIALECTS: dict[str, Callable[..., Any]] = {
    "openai": OpenAIBatches, "anthropic": AnthropicBatches, "gemini": GeminiBatches}
"""The class answering each API's batch requests; its constructor takes the server's
``answer(body, model=None) -> (status, body)`` (a line answered by the same scripts as an
online request)."""

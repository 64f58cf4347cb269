"""The stub server's OpenAI Batch API: files in, batches that step through their statuses one
status read at a time (validating, in_progress, finalizing, then how they end), output files
answered by the stub's own scripted behaviours, asynchronous cancel.

``ending`` says how each new batch ends: ``completed``, ``failed`` (rejected at validation,
no output), ``expired`` (only the first half of its lines answered). A line whose scripted
behaviour is an HTTP status comes back as an error line with that status, as the real API
reports a line that failed. What the stub was asked is kept, so tests can count it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import default as email_policy
from typing import Any

STEPS = ("validating", "in_progress", "finalizing")


class OpenAIBatches:
    """Files and batches of one stub server; ``answer(body)`` gives a line's (status, body)."""

    def __init__(self, answer: Callable[[dict], tuple[int, dict]]):
        self.answer = answer
        self.ending = "completed"
        self.enabled = True  # False: a server without the Batch API (vLLM): every path 404
        self.refuse_status: int | None = None  # a key without batch access: 401 / 403
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
                data = self.files.get(p.split("/")[-2])
                if data is None:
                    return 404, b'{"error": {"message": "no such file"}}', "application/json"
                return 200, data, "application/jsonl"
            if method == "GET" and "/v1/batches/" in p:
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
        bid = f"batch_{len(self.batches)}"
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

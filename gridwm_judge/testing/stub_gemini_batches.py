"""The stub server's Gemini batch mode, as the ``google-genai`` SDK calls it (Developer API).

``POST models/{model}:batchGenerateContent`` takes requests inline
(``batch.inputConfig.requests.requests``: ``{"request", "metadata"}``) or an uploaded input
file (``batch.inputConfig.fileName``: JSONL of ``{"key", "request"}``) and answers the batch
as a long-running operation (``name`` ``batches/{n}``; ``metadata``: ``state``
``BATCH_STATE_*``, ``batchStats``, ``output``). ``GET batches/{n}`` steps the state forward one
per read (pending, running, then how it ends); ``POST batches/{n}:cancel`` is asynchronous (the
next read ends the batch cancelled with half its lines answered). Files go up by the resumable
upload protocol (a ``start`` request answered with an ``X-Goog-Upload-URL`` header, then
``upload`` / ``upload, finalize`` requests to that URL) and results come down from
``files/{id}:download``.

Inline answers come back in ``output.inlinedResponses.inlinedResponses`` in request order, each
with its request's metadata; a file batch's answers come back as a JSONL ``responsesFile`` of
``{"key", "response"}`` lines. A line whose scripted behaviour is an HTTP status is an answer
with an ``error`` (that status and a message) instead. ``ending`` (``completed``, ``failed``:
rejected, nothing answered; ``expired``: the first half answered), ``enabled`` and
``refuse_status`` are as for :class:`~gridwm_judge.testing.stub_batches.OpenAIBatches`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from gridwm_judge.testing.stub_dialects import STATUS_NAMES

STEPS = ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING")
ENDED = {"completed": "BATCH_STATE_SUCCEEDED", "failed": "BATCH_STATE_FAILED",
         "expired": "BATCH_STATE_EXPIRED", "cancelled": "BATCH_STATE_CANCELLED"}
JSON = "application/json"


class GeminiBatches:
    """Files and batches of one stub server; ``answer(body, model)`` gives a line's (status,
    generateContent body)."""

    def __init__(self, answer: Callable[..., tuple[int, dict]]):
        self.answer = answer
        self.ending = "completed"
        self.enabled = True  # False: a server without batch mode: every path 404
        self.refuse_status: int | None = None  # a key without batch access: 401 / 403
        self.files: dict[str, bytes] = {}  # "files/{id}" -> content
        self.uploads: dict[str, dict[str, Any]] = {}  # upload id -> file, bytes so far
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []
        self._lock = threading.Lock()

    def handles(self, method: str, path: str) -> bool:
        p = path.split("?")[0]
        return method in ("GET", "POST") and (
            p.endswith(":batchGenerateContent") or "/batches/" in p or p.endswith(":download")
            or (p.startswith("/upload/") and p.rstrip("/").endswith("/files")))

    def handle(self, method: str, path: str, headers: Any, raw: bytes
               ) -> tuple[int, bytes, str, dict[str, str]]:
        """(status, payload, content type, extra headers) of one batch-mode request."""
        p, _, query = path.partition("?")
        if not self.enabled:
            return _error(404, "not found")
        if self.refuse_status is not None:
            return _error(self.refuse_status, "this key has no access to batch mode")
        with self._lock:
            if method == "POST" and p.startswith("/upload/"):
                return self._upload(p, headers, raw, query)
            if method == "POST" and p.endswith(":batchGenerateContent"):
                return self._create(p.split("/models/")[-1].split(":")[0], json.loads(raw))
            if method == "POST" and p.endswith(":cancel"):
                return self._cancel("batches/" + p.split("/batches/")[-1].split(":")[0])
            if method == "GET" and p.endswith(":download"):
                data = self.files.get("files/" + p.split("/files/")[-1].split(":")[0])
                if data is None:
                    return _error(404, "no such file")
                return 200, data, "application/octet-stream", {}
            if method == "GET" and "/batches/" in p:
                return self._status("batches/" + p.split("/batches/")[-1])
        return _error(404, "not found")

    def _upload(self, path: str, headers: Any, raw: bytes, query: str
                ) -> tuple[int, bytes, str, dict[str, str]]:
        """The resumable upload protocol: ``start`` opens a session at an upload URL (this
        path, absolute, as the SDK sends the chunks there as given); chunks follow, the last
        with ``finalize``."""
        command = headers.get("X-Goog-Upload-Command", "")
        if command == "start":
            uid = f"up{len(self.uploads)}"
            meta = json.loads(raw or b"{}").get("file") or {}
            self.uploads[uid] = {"file": meta, "data": b""}
            url = f"http://{headers.get('Host')}{path}?upload_id={uid}"
            return 200, b"", JSON, {"X-Goog-Upload-URL": url, "X-Goog-Upload-Status": "active"}
        up = self.uploads.get(query.partition("upload_id=")[2])
        if up is None or int(headers.get("X-Goog-Upload-Offset", -1)) != len(up["data"]):
            return _error(400, "unknown upload or wrong offset")
        up["data"] += raw
        if "finalize" not in command:
            return 200, b"", JSON, {"X-Goog-Upload-Status": "active"}
        name = f"files/in{len(self.files)}"
        self.files[name] = up["data"]
        file = {"name": name, "mimeType": up["file"].get("mime_type", "jsonl"),
                "sizeBytes": str(len(up["data"])), "state": "ACTIVE"}
        return 200, json.dumps({"file": file}).encode(), JSON, {"X-Goog-Upload-Status": "final"}

    def _create(self, model: str, body: dict) -> tuple[int, bytes, str, dict[str, str]]:
        source = (body.get("batch") or {}).get("inputConfig") or {}
        if "fileName" in source:
            data = self.files.get(source["fileName"])
            if data is None:
                return _error(400, f"unknown input file {source['fileName']}")
            lines = [json.loads(x) for x in data.splitlines() if x.strip()]
            requests = [(line.get("key"), line["request"]) for line in lines]
        else:
            inline = (source.get("requests") or {}).get("requests") or []
            requests = [(r.get("metadata"), r["request"]) for r in inline]
        if not requests:
            return _error(400, "a batch needs requests")
        name = f"batches/{len(self.batches)}"
        self.batches[name] = {
            "name": name, "model": model, "step": 0, "ending": self.ending,
            "by_file": "fileName" in source, "requests": requests, "error": None,
            "metadata": {"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta."
                                  "GenerateContentBatch",
                         "name": name, "model": f"models/{model}",
                         "displayName": (body.get("batch") or {}).get("displayName", ""),
                         "state": STEPS[0], "batchStats": _stats(len(requests), 0, 0)}}
        self.created.append(name)
        return self._json(self._public(name))

    def _public(self, name: str) -> dict:
        """The batch as the API shows it: a long-running operation."""
        b = self.batches[name]
        op: dict[str, Any] = {"name": name, "metadata": b["metadata"]}
        if b["metadata"]["state"] in ENDED.values():
            op["done"] = True
        if b["error"]:
            op["error"] = b["error"]
        return op

    def _json(self, obj: dict, status: int = 200) -> tuple[int, bytes, str, dict[str, str]]:
        return status, json.dumps(obj).encode(), JSON, {}

    def _cancel(self, name: str) -> tuple[int, bytes, str, dict[str, str]]:
        b = self.batches.get(name)
        if b is None:
            return _error(404, "no such batch")
        if b["metadata"]["state"] in STEPS:
            b["ending"] = "cancelled"
        return self._json({})

    def _status(self, name: str) -> tuple[int, bytes, str, dict[str, str]]:
        b = self.batches.get(name)
        if b is None:
            return _error(404, "no such batch")
        if b["metadata"]["state"] in STEPS:
            b["step"] += 1
            if b["ending"] == "cancelled":
                self._end(b, answered_share=0.5)
            elif b["step"] < len(STEPS):
                b["metadata"]["state"] = STEPS[b["step"]]
            elif b["ending"] == "failed":
                b["metadata"]["state"] = ENDED["failed"]
                b["error"] = {"code": 3, "message": "request 0: the stub rejects this batch"}
            else:
                self._end(b, answered_share=0.5 if b["ending"] == "expired" else 1.0)
        return self._json(self._public(name))

    def _end(self, b: dict, answered_share: float) -> None:
        keep = b["requests"][:int(len(b["requests"]) * answered_share)]
        out, ok = [], 0
        for tag, request in keep:
            status, body = self.answer(request, b["model"])
            item: dict[str, Any] = ({"response": body} if status == 200 else
                                    {"error": {"code": status, "message": f"scripted {status}"}})
            ok += status == 200
            out.append({"key": tag, **item} if b["by_file"] else
                       {**item, **({"metadata": tag} if tag else {})})
        if b["by_file"]:
            name = f"files/out{len(self.files)}"
            self.files[name] = "".join(json.dumps(x) + "\n" for x in out).encode()
            b["metadata"]["output"] = {"responsesFile": name}
        else:
            b["metadata"]["output"] = {"inlinedResponses": {"inlinedResponses": out}}
        b["metadata"]["state"] = ENDED[b["ending"]]
        b["metadata"]["batchStats"] = _stats(len(b["requests"]), ok, len(keep) - ok)


def _stats(total: int, ok: int, failed: int) -> dict[str, str]:
    """``batchStats`` as the API writes them (int64 counts as strings)."""
    return {"requestCount": str(total), "successfulRequestCount": str(ok),
            "failedRequestCount": str(failed), "pendingRequestCount": str(total - ok - failed)}


def _error(status: int, message: str) -> tuple[int, bytes, str, dict[str, str]]:
    name = STATUS_NAMES["gemini"].get(status, "UNKNOWN")
    return status, json.dumps({"error": {"code": status, "message": message,
                                         "status": name}}).encode(), JSON, {}

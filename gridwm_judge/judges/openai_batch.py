"""OpenAI's Batch API, as the ``openai:`` judge's batch path speaks it: upload a JSONL file of
chat-completions requests (``POST /files``, purpose ``batch``), create a batch over it
(``POST /batches``, window ``24h``), read its status (``GET /batches/{id}``), its output and
error files (``GET /files/{id}/content``), and cancel it (``POST /batches/{id}/cancel``).

Each line's ``custom_id`` is the run's own (``gwj-<n>``), mapped back to a uid by the run
folder's batch record (:mod:`gridwm_judge.runner.batch`). A finished line's body is read by the
same :func:`~gridwm_judge.judges.openai_http.parse_completion` as an online answer, so a batch
answer is recorded exactly as an online one would be. The client is the judge's own base URL
and headers over ``httpx`` (the ``openai`` extra); every refusal is one :class:`BatchError`
line naming what to do. The seam it fills is :class:`~gridwm_judge.judges.batch_api.BatchAPI`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gridwm_judge.judges.base import JudgeRequest, JudgeResponse
from gridwm_judge.judges.batch_api import (
    OUTCOMES,
    BatchStatus,
    Entry,
    Failed,
    Line,
    refused,
    unanswered,
)
from gridwm_judge.judges.http_judge import served
from gridwm_judge.judges.openai_http import OpenAIJudge, parse_completion, sent_fields
from gridwm_judge.redact import redact

ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"
MAX_REQUESTS = 50_000
MAX_BYTES = 200_000_000
"""OpenAI's limits for one batch's input file: requests and bytes (base64 images make the
size bind first)."""
NO_API = ("has no batch API: OpenAI's own API has one, vLLM and most compatible servers do "
          "not")


class BatchClient:
    """The batch endpoints of the judge's server (``--base-url``), with its credentials."""

    max_requests, max_bytes = MAX_REQUESTS, MAX_BYTES

    def __init__(self, judge: OpenAIJudge, timeout_s: float = 120.0):
        import httpx

        self.judge = judge
        self.base = judge.url.removesuffix("/chat/completions")  # user info is in the headers
        self.headers = {k: v for k, v in judge.headers if k != "Content-Type"}
        self.client = httpx.Client(timeout=timeout_s)
        self.secrets = judge.secrets

    def close(self) -> None:
        self.client.close()

    def _send(self, method: str, path: str, step: str, **kwargs: Any) -> Any:
        """One request of a batch step, its refusals as one :class:`BatchError` line."""
        try:
            resp = self.client.request(method, f"{self.base}{path}", headers=self.headers,
                                       **kwargs)
        except Exception as exc:
            raise unanswered(exc, step, self.base) or exc from exc
        if resp.status_code >= 400:
            text = redact(" ".join(resp.text[:200].split()), self.secrets)
            raise refused(step, resp.status_code, text, self.base, NO_API)
        return resp

    def entry(self, cid: str, req: JudgeRequest) -> Entry:
        body = self.judge.prepare(req)[0]
        line = request_line(cid, body)
        return Entry(cid, line, len(line), sent_fields(body))

    def submit(self, entries: Sequence[Entry], note: str) -> str:
        """Upload the lines as one input file and create a batch over it; its id."""
        data = b"".join(e.body for e in entries)
        up = self._send("POST", "/files", "upload", data={"purpose": "batch"},
                        files={"file": ("gwj-batch.jsonl", data, "application/jsonl")})
        made = self._send("POST", "/batches", "create", json={
            "input_file_id": up.json()["id"], "endpoint": ENDPOINT, "completion_window": WINDOW,
            "metadata": {"description": note}})
        return str(made.json()["id"])

    def status(self, batch_id: str) -> BatchStatus:
        obj = self._send("GET", f"/batches/{batch_id}", "status").json()
        errors = tuple(str(e.get("message", e)) for e in
                       ((obj.get("errors") or {}).get("data") or ()))
        counts = obj.get("request_counts") or {}
        state = str(obj["status"])
        return BatchStatus(str(obj["id"]), state, state if state in OUTCOMES else None,
                           int(counts.get("completed", 0)) + int(counts.get("failed", 0)),
                           errors, (obj.get("output_file_id"), obj.get("error_file_id")))

    def answers(self, status: BatchStatus, lines: Mapping[str, Line]
                ) -> Iterator[tuple[str, JudgeResponse | Failed]]:
        output, errors = status.handle
        for line in [*self._lines(output), *self._lines(errors)]:
            cid = str(line.get("custom_id"))
            meta = lines.get(cid)
            if meta is not None:
                resp = response_of(meta.request(), meta.sent, line)
                yield cid, resp if resp is not None else Failed(self._why(line))

    def _why(self, line: Mapping[str, Any]) -> str:
        """What a failed line says: its response body (an API error), else its error."""
        resp = line.get("response") or {}
        said = resp.get("body") if resp.get("status_code") != 200 else None
        said = said or line.get("error") or "no answer in the line"
        return redact(said if isinstance(said, str) else json.dumps(said), self.secrets)

    def learn(self, why: str, sent: dict[str, Any]) -> str | None:
        return self.judge.form.learn(why, sent)

    def _lines(self, file_id: str | None) -> list[dict[str, Any]]:
        """The JSON lines of an output file (none for no file)."""
        if not file_id:
            return []
        resp = self._send("GET", f"/files/{file_id}/content", "download")
        return [json.loads(x) for x in resp.text.splitlines() if x.strip()]

    def cancel(self, batch_id: str) -> None:
        self._send("POST", f"/batches/{batch_id}/cancel", "cancel")


def request_line(custom_id: str, body: Mapping[str, Any]) -> bytes:
    """One line of a batch's input file."""
    return (json.dumps({"custom_id": custom_id, "method": "POST", "url": ENDPOINT,
                        "body": body}) + "\n").encode()


def response_of(req: JudgeRequest, sent: Mapping[str, Any], line: Mapping[str, Any]
                ) -> JudgeResponse | None:
    """The answer one output line holds for ``req`` (its request carried the decoding fields
    ``sent``), read as an online answer is; None where the line holds no answer (an error: the
    row is asked again)."""
    resp = line.get("response") or {}
    if line.get("error") or resp.get("status_code") != 200:
        return None
    data = resp.get("body") or {}
    try:
        done = parse_completion(data)
    except ValueError:
        return None
    return JudgeResponse(req.uid, done.answer, done.status, 0.0, done.usage,
                         reasoning=done.reasoning, sent=dict(sent),
                         served=served(data.get("model"), data.get("system_fingerprint")),
                         finish_reason=done.finish_reason)

"""OpenAI's Batch API, as the ``openai:`` judge's batch path speaks it: upload a JSONL file of
chat-completions requests (``POST /files``, purpose ``batch``), create a batch over it
(``POST /batches``, window ``24h``), read its status (``GET /batches/{id}``), its output and
error files (``GET /files/{id}/content``), and cancel it (``POST /batches/{id}/cancel``).

Each line's ``custom_id`` is the run's own (``gwj-<n>``), mapped back to a uid by the run
folder's batch record (:mod:`gridwm_judge.runner.batch`). A finished line's body is read by the
same :func:`~gridwm_judge.judges.openai_http.parse_completion` as an online answer, so a batch
answer is recorded exactly as an online one would be. The client is the judge's own base URL
and headers over ``httpx`` (the ``openai`` extra); every refusal is one :class:`BatchError`
line naming what to do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gridwm_judge.judges.base import JudgeRequest, JudgeResponse
from gridwm_judge.judges.http_judge import served
from gridwm_judge.judges.openai_http import OpenAIJudge, parse_completion
from gridwm_judge.redact import redact

ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"
MAX_REQUESTS = 50_000
MAX_BYTES = 200_000_000
"""OpenAI's limits for one batch's input file: requests and bytes (base64 images make the
size bind first)."""
ENDED = ("completed", "failed", "expired", "cancelled")
"""Statuses after which a batch changes no more (``cancelling`` still may)."""


class BatchError(ValueError):
    """The provider refused a batch step; one line saying what to do."""


@dataclass(frozen=True)
class BatchStatus:
    """What the provider says of one batch."""

    id: str
    status: str
    output_file_id: str | None
    error_file_id: str | None
    counts: Mapping[str, int]
    errors: tuple[str, ...]

    @property
    def ended(self) -> bool:
        return self.status in ENDED


def request_line(custom_id: str, body: Mapping[str, Any]) -> bytes:
    """One line of a batch's input file."""
    return (json.dumps({"custom_id": custom_id, "method": "POST", "url": ENDPOINT,
                        "body": body}) + "\n").encode()


def chunks(lines: Sequence[tuple[str, bytes]], max_requests: int = MAX_REQUESTS,
           max_bytes: int = MAX_BYTES) -> list[list[tuple[str, bytes]]]:
    """``lines`` (custom id, line) cut into batches under the provider's limits; a single line
    over the byte limit is a :class:`BatchError`."""
    out: list[list[tuple[str, bytes]]] = []
    size = 0
    for cid, line in lines:
        if len(line) > max_bytes:
            raise BatchError(f"request {cid} is {len(line):,} bytes, over a batch file's "
                             f"{max_bytes:,}; lower --max-pixels")
        if not out or len(out[-1]) >= max_requests or size + len(line) > max_bytes:
            out.append([])
            size = 0
        out[-1].append((cid, line))
        size += len(line)
    return out


class OpenAIBatchAPI:
    """The batch endpoints of the judge's server (``--base-url``), with its credentials."""

    def __init__(self, judge: OpenAIJudge, timeout_s: float = 120.0):
        import httpx

        self.base = judge.options.base_url.rstrip("/") if judge.options.base_url else ""
        self.headers = {k: v for k, v in judge.headers if k != "Content-Type"}
        self.client = httpx.Client(timeout=timeout_s)
        self.secrets = judge.secrets

    def close(self) -> None:
        self.client.close()

    def _check(self, resp: Any, step: str) -> Any:
        if resp.status_code == 404 and step in ("upload", "create"):
            raise BatchError(f"the server at {self.base} has no batch API (POST {step} -> "
                             "404): OpenAI's own API has one, vLLM and most compatible "
                             "servers do not; run without --batch")
        if resp.status_code in (401, 403):
            raise BatchError(f"the key has no batch access at {self.base} (HTTP "
                             f"{resp.status_code} on {step}): check its project's permissions, "
                             "or run without --batch")
        if resp.status_code >= 400:
            raise BatchError(f"the server refused the batch {step} (HTTP {resp.status_code}: "
                             f"{redact(resp.text[:200], self.secrets)})")
        return resp

    def submit(self, lines: Iterable[bytes], note: str) -> str:
        """Upload the lines as one input file and create a batch over it; its id."""
        data = b"".join(lines)
        up = self._check(self.client.post(
            f"{self.base}/files", headers=self.headers, data={"purpose": "batch"},
            files={"file": ("gwj-batch.jsonl", data, "application/jsonl")}), "upload")
        made = self._check(self.client.post(
            f"{self.base}/batches", headers=self.headers,
            json={"input_file_id": up.json()["id"], "endpoint": ENDPOINT,
                  "completion_window": WINDOW, "metadata": {"description": note}}), "create")
        return str(made.json()["id"])

    def status(self, batch_id: str) -> BatchStatus:
        obj = self._check(self.client.get(f"{self.base}/batches/{batch_id}",
                                          headers=self.headers), "status").json()
        errors = tuple(str(e.get("message", e)) for e in
                       ((obj.get("errors") or {}).get("data") or ()))
        return BatchStatus(str(obj["id"]), str(obj["status"]), obj.get("output_file_id"),
                           obj.get("error_file_id"), dict(obj.get("request_counts") or {}),
                           errors)

    def lines(self, file_id: str | None) -> list[dict[str, Any]]:
        """The JSON lines of an output or error file (none for no file)."""
        if not file_id:
            return []
        resp = self._check(self.client.get(f"{self.base}/files/{file_id}/content",
                                           headers=self.headers), "download")
        return [json.loads(x) for x in resp.text.splitlines() if x.strip()]

    def cancel(self, batch_id: str) -> None:
        self._check(self.client.post(f"{self.base}/batches/{batch_id}/cancel",
                                     headers=self.headers), "cancel")


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

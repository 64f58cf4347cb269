"""Gemini's batch mode (the Gemini Developer API, not Vertex), as the ``gemini:`` judge's batch
path speaks it, through the official SDK: ``client.batches.create`` (``POST
models/{model}:batchGenerateContent``), ``get`` (``GET batches/{id}``), ``cancel`` (``POST
batches/{id}:cancel``), and for a large batch ``client.files.upload`` / ``download`` (the
resumable upload protocol, ``files/{id}:download``).

Each request is the judge's own generateContent request (:meth:`GeminiJudge.prepare`: the
contents and the generation config the online path sends). A batch under
:data:`MAX_INLINE_BYTES` goes inline and its answers come back inline, in the order sent; each
request also carries its line id as ``metadata.key``, echoed in its answer, which is read
first. A larger batch goes as a JSONL input file of ``{"key", "request"}`` lines and its
answers come back as a JSONL file keyed the same way. Each answer is read by the same
:func:`~gridwm_judge.judges.gemini_api.response_of` as an online one.

What the SDK (3.6.1) leaves out in Developer-API mode: the batch's ``batchStats``
(python-genai#1323) and its operation's ``error``, so a running batch reports 0 done and a
rejected one no reason. A results file the server no longer has (404) leaves its rows to be
asked again. The SDK client is the judge's (key, ``--base-url``, deadline-bound sockets, no
SDK retries); every refusal is one :class:`~gridwm_judge.judges.batch_api.BatchError` line.
"""

from __future__ import annotations

import base64
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from gridwm_judge.judges.base import JudgeRequest, JudgeResponse
from gridwm_judge.judges.batch_api import (
    BatchStatus,
    Entry,
    Failed,
    Line,
    sdk_call,
)
from gridwm_judge.judges.gemini_api import GeminiJudge, response_of
from gridwm_judge.redact import redact

MAX_INLINE_BYTES = 20_000_000
"""Inline requests are for batches whose whole create request stays under 20 MB (Gemini's
batch-mode guide); a larger batch goes as an input file."""
MAX_BYTES = 2_000_000_000
"""A batch input file is a Files API upload: at most 2 GB a file (the Files API and batch-mode
guides)."""
MAX_REQUESTS = 100_000
"""No request count is documented for one batch; this bounds one result file's size."""
OUTCOME = {"JOB_STATE_SUCCEEDED": "completed", "JOB_STATE_FAILED": "failed",
           "JOB_STATE_CANCELLED": "cancelled", "JOB_STATE_EXPIRED": "expired"}
"""The states (as the SDK names Gemini's ``BATCH_STATE_*``) after which a batch changes no
more."""


class BatchClient:
    """The batch endpoints of the judge's server (``--base-url``), through the SDK client."""

    max_requests, max_bytes = MAX_REQUESTS, MAX_BYTES

    def __init__(self, judge: GeminiJudge):
        self.judge = judge
        self.client = judge.client

    def close(self) -> None:
        pass  # the judge's client: closed with the judge

    def entry(self, cid: str, req: JudgeRequest) -> Entry:
        prepared = self.judge.prepare(req)
        body = {"contents": prepared["contents"], "config": prepared["config"]}
        return Entry(cid, body, len(file_line(cid, body)), dict(prepared["config"]))

    def submit(self, entries: Sequence[Entry], note: str) -> str:
        """One batch: inline when it is small enough, else an uploaded input file; its name
        (``batches/...``)."""
        if sum(e.size for e in entries) < MAX_INLINE_BYTES:
            src: Any = [{**e.body, "metadata": {"key": e.cid}} for e in entries]
        else:
            with tempfile.TemporaryFile() as fh:
                for e in entries:
                    fh.write(file_line(e.cid, e.body))
                fh.seek(0)
                src = self._call("upload", self.client.files.upload, file=fh,
                                 config={"mime_type": "jsonl", "display_name": note}).name
        job = self._call("create", self.client.batches.create, model=self.judge.model,
                         src=src, config={"display_name": note})
        return str(job.name)

    def status(self, batch_id: str) -> BatchStatus:
        job = self._call("status", self.client.batches.get, name=batch_id)
        state = str(getattr(job.state, "value", job.state))
        stats = job.completion_stats  # filled for Vertex only; batchStats are dropped
        done = ((stats.successful_count or 0) + (stats.failed_count or 0)) if stats else 0
        errors = (str(job.error.message),) if job.error and job.error.message else ()
        return BatchStatus(batch_id, state, OUTCOME.get(state), done, errors, job.dest)

    def answers(self, status: BatchStatus, lines: Mapping[str, Line]
                ) -> Iterator[tuple[str, JudgeResponse | Failed]]:
        dest = status.handle
        if dest is None:
            return
        if dest.file_name:
            for cid, obj in self._file_lines(dest.file_name):
                meta = lines.get(cid)
                if meta is not None:
                    yield cid, self._read(meta, obj.get("response"), obj.get("error"),
                                          from_json=True)
            return
        order = list(lines)  # inline answers come back in the order the lines were sent
        for i, item in enumerate(dest.inlined_responses or ()):
            cid = (item.metadata or {}).get("key") or (order[i] if i < len(order) else None)
            meta = lines.get(cid) if cid else None
            if meta is not None:
                yield cid, self._read(meta, item.response, item.error)

    def learn(self, why: str, sent: dict[str, Any]) -> str | None:
        return None  # the online path reshapes no Gemini request either

    def _read(self, meta: Line, resp: Any, error: Any, from_json: bool = False
              ) -> JudgeResponse | Failed:
        """The answer one result holds, read as an online answer is; :class:`Failed` for a
        line with an error or an answer that cannot be read (its row is asked again)."""
        if error or resp is None:
            said = getattr(error, "message", None) or (
                error.get("message") if isinstance(error, dict) else None) or error
            return Failed(redact(str(said or "no answer in the line"), self.judge.secrets))
        try:
            if from_json:  # a results-file line: the SDK's own reader for a REST reply
                from google.genai import types

                resp = types.GenerateContentResponse._from_response(response=resp, kwargs={})
            return response_of(meta.request(), resp, dict(meta.sent), 0.0)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            return Failed(f"an answer that cannot be read: {exc}")

    def _file_lines(self, name: str) -> Iterator[tuple[str, dict]]:
        """(key, line) of each line of a results file."""
        data = self._call("download", self.client.files.download, file=name)
        for raw in data.splitlines():
            if raw.strip():
                obj = json.loads(raw)
                yield str(obj.get("key")), obj

    def cancel(self, batch_id: str) -> None:
        self._call("cancel", self.client.batches.cancel, name=batch_id)

    def _call(self, step: str, fn: Callable[..., Any], **kwargs: Any) -> Any:
        no_api = (f"has no batch mode for {self.judge.model} (Gemini answers 404 for an "
                  "unknown model too: check its name)")
        return sdk_call(step, lambda: fn(**kwargs), self.judge, no_api)


def file_line(cid: str, body: Mapping[str, Any]) -> bytes:
    """One line of a batch input file: the request in the API's JSON form (the images
    base64; the generation config under ``generation_config``, a form the API reads as it
    reads ``generationConfig``)."""
    contents = [{**c, "parts": [_json_part(p) for p in c["parts"]]} for c in body["contents"]]
    request = {"contents": contents, "generation_config": body["config"]}
    return (json.dumps({"key": cid, "request": request}) + "\n").encode()


def _json_part(part: Mapping[str, Any]) -> Mapping[str, Any]:
    blob = part.get("inline_data")
    if blob is None:
        return part
    return {"inline_data": {**blob, "data": base64.b64encode(blob["data"]).decode()}}

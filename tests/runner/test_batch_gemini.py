"""`eval --batch` for gemini: judges against a loopback server that speaks Gemini's batch mode
as the `google-genai` SDK calls it (batchGenerateContent inline or over an uploaded input file,
states stepping to their end, inline answers in order, a keyed results file, asynchronous
cancel): submit, kill the process, rerun to collect, rerun again asks nothing; failed lines
asked again; a rejected, expired or cancelled batch; a server without batch mode and a key
without access in one line; the same records as online; a batch too big to go inline goes
by file; a mixed online / batch folder scores as an all-online one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.prompts import REVERSED_NOTE
from gridwm_judge.testing.stub_server import StubServer, http_error

pytest.importorskip("google.genai")

ROWS = 8  # the smoke task_c rows an API judge is asked
JUDGE = "gemini:gemini-2.5-flash-lite"  # a model prices.json lists: batch rows are priced
SECRET = "g-batch-secret-0123456789"
KEEP = ("uid", "answer", "status", "usage", "sent", "request_hash", "item_digest",
        "finish_reason", "parsed", "parse_mode")
"""The fields of a record that must not depend on how its answer came (batch or online)."""


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke", configs=("task_c",))


def _eval(smoke: Path, server: StubServer, out: Path, *extra: str) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", JUDGE,
            "--base-url", server.base_url, "--no-progress", "--out", str(out), *extra]


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]


def _book(out: Path) -> list[dict]:
    return json.loads((out / "batches.json").read_text())["batches"]


def _same_as_online(batch: list[dict], online: list[dict], batch_id: str) -> None:
    by_uid = {r["uid"]: r for r in online}
    assert len(batch) == len(online) == ROWS
    for r in batch:
        assert {k: r.get(k) for k in KEEP} == {k: by_uid[r["uid"]].get(k) for k in KEEP}
        assert r["served"] == {**by_uid[r["uid"]]["served"], "batch": batch_id}


def test_submit_kill_collect_and_nothing_asked_twice(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        cmd = [sys.executable, "-m", "gridwm_judge", *_eval(smoke, server, out, "--batch",
                                                           "--poll-s", "60")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "GEMINI_API_KEY": SECRET})
        deadline = time.monotonic() + 120
        while not (out / "batches.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # killed while it waits for the batch
        proc.communicate()
        [book] = _book(out)
        assert book["state"] == "open" and book["provider"] == "gemini"
        assert len(book["lines"]) == ROWS and server.batch_api.created == [book["id"]]
        # the requests went inline, each the judge's own generateContent request
        batch = server.batch_api.batches[book["id"]]
        assert not batch["by_file"] and batch["model"] == "gemini-2.5-flash-lite"
        tag, request = batch["requests"][0]
        assert tag == {"key": "gwj-0"} and request["generationConfig"]["temperature"] == 0.0
        assert request["contents"][0]["parts"][0]["inlineData"]["mime_type"] == "image/png"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        records = _records(out)
        assert len(records) == ROWS and {r["status"] for r in records} == {"ok"}
        assert all(r["served"]["batch"] == book["id"] for r in records)
        assert all(r["usage"]["prompt_tokens"] == 11 for r in records)
        asked = len(server.requests)
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert len(server.requests) == asked and server.batch_api.created == [book["id"]]
    assert _book(out)[0]["state"] == "collected" and len(_records(out)) == ROWS
    assert json.loads((out / "run.json").read_text())["cost"]["batch_rows"] == ROWS
    assert "answered 8/8" in capsys.readouterr().out


def test_the_same_answers_as_online(smoke, tmp_path):
    """A batch answer is recorded field for field as the same answer online would be."""
    batch, online = tmp_path / "batch", tmp_path / "online"
    with StubServer(default_reply="Yes", api="gemini") as server:
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 0
        assert main(_eval(smoke, server, online)) == 0
    _same_as_online(_records(batch), _records(online), "batches/0")


def test_a_batch_too_big_to_go_inline_goes_by_file(smoke, tmp_path, monkeypatch):
    """Over the inline limit the requests go up as a JSONL file and come back by key."""
    from gridwm_judge.judges import gemini_batch

    monkeypatch.setattr(gemini_batch, "MAX_INLINE_BYTES", 100)
    batch, online = tmp_path / "batch", tmp_path / "online"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.script(REVERSED_NOTE, http_error(500))  # one line fails: asked again
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 0
        assert len(_records(batch)) == ROWS - 1
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 0
        assert main(_eval(smoke, server, online)) == 0
        files = server.batch_api.files
    first, second = _book(batch)
    assert len(first["lines"]) == ROWS and len(second["lines"]) == 1
    lines = [json.loads(x) for x in files["files/in0"].splitlines()]
    assert [x["key"] for x in lines] == list(first["lines"])  # the input file, keyed
    assert lines[0]["request"]["contents"][0]["parts"][0]["inline_data"]["data"]
    assert all(x["request"]["generation_config"] == first["lines"][x["key"]]["sent"]
               for x in lines)
    records = _records(batch)
    by_batch = {r["uid"]: r["served"]["batch"] for r in records}
    assert sorted(by_batch.values()) == ["batches/0"] * (ROWS - 1) + ["batches/1"]
    online_records = {r["uid"]: r for r in _records(online)}
    for r in records:
        want = online_records[r["uid"]]
        assert {k: r.get(k) for k in KEEP} == {k: want.get(k) for k in KEEP}
        assert r["served"] == {**want["served"], "batch": by_batch[r["uid"]]}


def test_failed_lines_are_asked_again_once(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.script(REVERSED_NOTE, http_error(500), http_error(500))  # two reversed rows
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert "6 answers collected, 2 rows left to ask again" in capsys.readouterr().err
        assert len(_records(out)) == ROWS - 2
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    first, second = _book(out)
    assert len(second["lines"]) == 2 and second["collected"] == 2
    assert {x["uid"] for x in second["lines"].values()} <= {
        x["uid"] for x in first["lines"].values()}
    assert len(_records(out)) == ROWS


@pytest.mark.parametrize("ending", ["failed", "expired"])
def test_a_rejected_or_expired_batch_leaves_its_rows_to_ask(smoke, tmp_path, capsys, ending):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.batch_api.ending = ending
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err.strip().splitlines()
        said = [line for line in err if "batches/0" in line and "submitted" not in line]
        assert len(said) == 1
        if ending == "failed":  # the SDK drops the operation's error: no reason to give
            assert "the provider rejected batch batches/0 (no reason given)" in said[0]
            assert not (out / "predictions.jsonl").read_text()
        else:
            assert "batch batches/0 expired: 4 answers collected, 4 rows left" in said[0]
        server.batch_api.ending = "completed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(_records(out)) == ROWS and _book(out)[-1]["collected"] in (4, ROWS)


def test_cancel_collects_what_had_finished(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        assert not (out / "predictions.jsonl").read_text()
        assert "run this command again to collect" in capsys.readouterr().err
        assert main(_eval(smoke, server, out, "--cancel-batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["batches/0"]  # cancelling submits nothing
    [book] = _book(out)
    assert book["status"] == "JOB_STATE_CANCELLED" and len(_records(out)) == ROWS // 2
    assert "batch batches/0 cancelled: 4 answers collected" in capsys.readouterr().err


@pytest.mark.parametrize("server_says", ["no batch mode", "no access"])
def test_refusals_are_one_line_and_leave_no_folder(smoke, tmp_path, capsys, server_says):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        if server_says == "no batch mode":
            server.batch_api.enabled = False
        else:
            server.batch_api.refuse_status = 403
        assert main(_eval(smoke, server, out, "--batch")) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    want = "has no batch mode" if server_says == "no batch mode" else "no batch access"
    assert want in line and not out.exists() and SECRET not in line


def test_a_mixed_online_and_batch_folder_scores_as_an_all_online_one(smoke, tmp_path):
    mixed, online = tmp_path / "mixed", tmp_path / "online"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.script(REVERSED_NOTE, *[http_error(400)] * 2)  # two rows not answered online
        assert main(_eval(smoke, server, mixed, "--retries", "0")) == 1
        assert len([r for r in _records(mixed) if r["status"] == "ok"]) == ROWS - 2
        assert main(_eval(smoke, server, mixed, "--batch", "--poll-s", "0.01")) == 0
        assert main(_eval(smoke, server, online)) == 0
    [book] = _book(mixed)
    assert len(book["lines"]) == 2  # only the rows without an answer went by batch
    scores = []
    for run in (mixed, online):
        assert main(["score", "--dataset", str(smoke), "--n-resamples", "50", "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(run / "s")]) == 0
        judge = json.loads((run / "s" / "scores.json").read_text())["judges"][JUDGE]
        scores.append(judge["results"])
    assert scores[0] == scores[1]


def test_inline_answers_without_their_keys_are_read_in_the_order_sent():
    """Where an inline answer carries no ``metadata.key``, its position names its line; an
    answer with an ``error`` is None (its row is asked again)."""
    from google.genai import types

    from gridwm_judge.judges import JudgeOptions, make_judge
    from gridwm_judge.judges.batch_api import BatchStatus, Line
    from gridwm_judge.judges.gemini_api import GeminiJudge
    from gridwm_judge.judges.gemini_batch import BatchClient

    def said(text: str) -> types.InlinedResponse:
        part = types.Part(text=text)
        return types.InlinedResponse(response=types.GenerateContentResponse(
            candidates=[types.Candidate(content=types.Content(role="model", parts=[part]),
                                        finish_reason=types.FinishReason.STOP)]))

    failed = types.InlinedResponse(error=types.JobError(code=500, message="scripted 500"))
    dest = types.BatchJobDestination(inlined_responses=[said("Yes"), failed, said("No")])
    lines = {f"gwj-{i}": Line(f"u{i}", "C", "", "h", "d", {"temperature": 0.0})
             for i in (4, 5, 6)}
    judge = make_judge(JUDGE, JudgeOptions(base_url="http://127.0.0.1:9"))
    assert isinstance(judge, GeminiJudge)
    try:
        status = BatchStatus("batches/9", "JOB_STATE_SUCCEEDED", "completed", 3, handle=dest)
        got = dict(BatchClient(judge).answers(status, lines))
    finally:
        judge.close()
    assert list(got) == ["gwj-4", "gwj-5", "gwj-6"] and got["gwj-5"] is None
    first, last = got["gwj-4"], got["gwj-6"]
    assert first is not None and last is not None
    assert (first.uid, first.raw, last.raw) == ("u4", "Yes", "No")
    assert first.sent == {"temperature": 0.0} and first.status == "ok"


def test_a_results_file_gone_is_asked_again(smoke, tmp_path, capsys, monkeypatch):
    from gridwm_judge.judges import gemini_batch

    monkeypatch.setattr(gemini_batch, "MAX_INLINE_BYTES", 100)  # by file
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        stub = server.batch_api
        for _ in range(2):  # the batch ends at the provider; its results file is gone later
            stub._status("batches/0")
        del stub.files[stub.batches["batches/0"]["metadata"]["output"]["responsesFile"]]
        capsys.readouterr()
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err
        assert "batch batches/0: its results cannot be read (its results file is gone" in err
        assert stub.created == ["batches/0", "batches/1"] and SECRET not in err
    assert len(_records(out)) == ROWS
    assert {r["served"]["batch"] for r in _records(out)} == {"batches/1"}

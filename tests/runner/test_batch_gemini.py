"""`eval --batch` for gemini: judges, what is Gemini's own (the behaviours every provider
shares are in test_batch_providers.py): requests go inline with their line ids as keys, a
batch over the inline limit goes up as a JSONL file and comes back by key, inline answers
without keys are read by position, a rejected batch (the SDK drops its reason), and a results
file that is gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runner.batch_runs import ROWS, SECRET, book, eval_args, records, same_as_online

from gridwm_judge.cli import main
from gridwm_judge.prompts import REVERSED_NOTE
from gridwm_judge.testing.stub_server import StubServer, http_error

pytest.importorskip("google.genai")
pytestmark = pytest.mark.usefixtures("keys")

JUDGE = "gemini:gemini-2.5-flash-lite"


def _eval(smoke: Path, server: StubServer, out: Path, *extra: str) -> list[str]:
    return eval_args(smoke, JUDGE, server, out, *extra)


def test_requests_go_inline_with_their_line_ids(smoke, tmp_path):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        batch = server.batch_api.batches["batches/0"]
    assert not batch["by_file"] and batch["model"] == "gemini-2.5-flash-lite"
    tag, request = batch["requests"][0]
    assert tag == {"key": "gwj-0"} and request["generationConfig"]["temperature"] == 0.0
    assert request["contents"][0]["parts"][0]["inlineData"]["mime_type"] == "image/png"
    assert len(records(out)) == ROWS


def test_a_batch_too_big_to_go_inline_goes_by_file(smoke, tmp_path, monkeypatch):
    """Over the inline limit the requests go up as a JSONL file and come back by key."""
    from gridwm_judge.judges import gemini_batch

    monkeypatch.setattr(gemini_batch, "MAX_INLINE_BYTES", 100)
    batch, online = tmp_path / "batch", tmp_path / "online"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.script(REVERSED_NOTE, http_error(500))  # one line fails: asked again
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 1
        assert len(records(batch)) == ROWS - 1
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 0
        assert main(_eval(smoke, server, online)) == 0
        files = server.batch_api.files
    first, second = book(batch)
    assert len(first["lines"]) == ROWS and len(second["lines"]) == 1
    lines = [json.loads(x) for x in files["files/in0"].splitlines()]
    assert [x["key"] for x in lines] == list(first["lines"])  # the input file, keyed
    assert lines[0]["request"]["contents"][0]["parts"][0]["inline_data"]["data"]
    assert all(x["request"]["generation_config"] == first["lines"][x["key"]]["sent"]
               for x in lines)
    got = records(batch)
    by_batch = {r["uid"]: r["served"]["batch"] for r in got}
    assert sorted(by_batch.values()) == ["batches/0"] * (ROWS - 1) + ["batches/1"]
    same_as_online(got, records(online), by_batch)


def test_a_rejected_batch_leaves_its_rows_to_ask(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="gemini") as server:
        server.batch_api.ending = "failed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 1
        err = capsys.readouterr().err.strip().splitlines()
        said = [line for line in err if "batches/0" in line and "submitted" not in line]
        # the SDK (3.6.1) drops the operation's error: no reason to give
        assert len(said) == 1 and "the provider rejected batch batches/0 (no reason given)" \
            in said[0]
        assert not (out / "predictions.jsonl").read_text()
        server.batch_api.ending = "completed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(records(out)) == ROWS and book(out)[-1]["collected"] == ROWS


def test_inline_answers_without_their_keys_are_read_in_the_order_sent():
    """Where an inline answer carries no ``metadata.key``, its position names its line; an
    answer with an ``error`` is Failed with its message (its row is asked again)."""
    from google.genai import types

    from gridwm_judge.judges import JudgeOptions, make_judge
    from gridwm_judge.judges.batch_api import BatchStatus, Failed, Line
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
    assert list(got) == ["gwj-4", "gwj-5", "gwj-6"] and got["gwj-5"] == Failed("scripted 500")
    first, last = got["gwj-4"], got["gwj-6"]
    assert not isinstance(first, Failed) and not isinstance(last, Failed)
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
        assert "batch batches/0: its results cannot be read (its results are gone" in err
        assert stub.created == ["batches/0", "batches/1"] and SECRET not in err
    assert len(records(out)) == ROWS
    assert {r["served"]["batch"] for r in records(out)} == {"batches/1"}

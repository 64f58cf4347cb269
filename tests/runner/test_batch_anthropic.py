"""`eval --batch` for anthropic: judges against a loopback server that speaks Anthropic's
Message Batches as the `anthropic` SDK calls them (requests inline, in_progress then ended,
results from the batch's results_url in any order, asynchronous cancel, archived results):
submit, kill the process, rerun to collect, rerun again asks nothing; errored lines asked
again; an expired, rejected or archived batch; a server without the API and a key without
access in one line; a mixed online / batch folder scores as an all-online one."""

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

pytest.importorskip("anthropic")

ROWS = 8  # the smoke task_c rows an API judge is asked
JUDGE = "anthropic:claude-sonnet-4-6"
SECRET = "sk-ant-batch-secret-0123456789"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


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


def test_submit_kill_collect_and_nothing_asked_twice(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        cmd = [sys.executable, "-m", "gridwm_judge", *_eval(smoke, server, out, "--batch",
                                                           "--poll-s", "60")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "ANTHROPIC_API_KEY": SECRET})
        deadline = time.monotonic() + 120
        while not (out / "batches.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # killed while it waits for the batch
        proc.communicate()
        [book] = _book(out)
        assert book["state"] == "open" and book["provider"] == "anthropic"
        assert len(book["lines"]) == ROWS and server.batch_api.created == [book["id"]]
        # the requests went inline, each the judge's own Messages request
        [params] = [r["params"] for r in server.batch_api.batches[book["id"]]["requests"][:1]]
        assert params["model"] == "claude-sonnet-4-6" and params["temperature"] == 0.0
        assert params["messages"][0]["content"][0]["type"] == "image"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        records = _records(out)
        assert len(records) == ROWS and {r["status"] for r in records} == {"ok"}
        assert all(r["served"]["batch"] == book["id"] for r in records)
        assert all(r["sent"] == {"max_tokens": params["max_tokens"], "temperature": 0.0}
                   for r in records if r["task"] == "C")
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
    with StubServer(default_reply="Yes", api="anthropic") as server:
        assert main(_eval(smoke, server, batch, "--batch", "--poll-s", "0.01")) == 0
        assert main(_eval(smoke, server, online)) == 0
    keep = ("uid", "answer", "status", "usage", "sent", "request_hash", "item_digest",
            "finish_reason", "parsed", "parse_mode")
    by_uid = {r["uid"]: r for r in _records(online)}
    for r in _records(batch):
        assert {k: r.get(k) for k in keep} == {k: by_uid[r["uid"]].get(k) for k in keep}
        assert r["served"] == {**by_uid[r["uid"]]["served"], "batch": "msgbatch_0"}


def test_errored_lines_are_asked_again_once(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
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


def test_an_expired_batch_leaves_its_rows_to_ask(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        server.batch_api.ending = "expired"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert ("batch msgbatch_0 expired: 4 answers collected, 4 rows left"
                in capsys.readouterr().err)
        server.batch_api.ending = "completed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(_records(out)) == ROWS and _book(out)[-1]["collected"] == 4


def test_archived_results_are_asked_again(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        for _ in range(3):  # the batch ends at the provider; its results are archived later
            server.batch_api._step(server.batch_api.batches["msgbatch_0"])
        server.batch_api.archive("msgbatch_0")
        capsys.readouterr()
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err
        assert "batch msgbatch_0: its results cannot be read (Anthropic archived" in err
        assert server.batch_api.created == ["msgbatch_0", "msgbatch_1"]
    assert len(_records(out)) == ROWS
    assert {r["served"]["batch"] for r in _records(out)} == {"msgbatch_1"}


def test_cancel_collects_what_had_finished(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        assert "run this command again to collect" in capsys.readouterr().err
        assert main(_eval(smoke, server, out, "--cancel-batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["msgbatch_0"]  # cancelling submits nothing
    [book] = _book(out)
    assert book["status"] == "ended" and len(_records(out)) == ROWS // 2
    assert "batch msgbatch_0 cancelled: 4 answers collected" in capsys.readouterr().err


@pytest.mark.parametrize("server_says", ["no batch API", "no access", "rejected"])
def test_refusals_are_one_line_and_leave_no_folder(smoke, tmp_path, capsys, server_says):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        if server_says == "no batch API":
            server.batch_api.enabled = False
        elif server_says == "no access":
            server.batch_api.refuse_status = 403
        else:
            server.batch_api.ending = "failed"
        assert main(_eval(smoke, server, out, "--batch")) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    want = {"no batch API": "has no Message Batches API", "no access": "no batch access",
            "rejected": "the provider rejected the batch (requests.0.params: the stub"}
    assert want[server_says] in line and not out.exists() and SECRET not in line


def test_a_mixed_online_and_batch_folder_scores_as_an_all_online_one(smoke, tmp_path):
    mixed, online = tmp_path / "mixed", tmp_path / "online"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        server.script(REVERSED_NOTE, *[http_error(400)] * 2)  # two rows not answered online
        assert main(_eval(smoke, server, mixed, "--retries", "0")) == 1
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

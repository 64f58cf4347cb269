"""`eval --batch` against a loopback server that speaks each provider's batch API as its SDK
calls it (OpenAI: a JSONL file; Anthropic: requests inline; Gemini: inline under its limit),
for what every provider must do alike: submit, kill the process, rerun to collect, rerun
again asks nothing; failed lines asked again once; an expired batch's rest asked again;
asynchronous cancel collects what had finished; a server without the API and a key without
access in one line, leaving no folder; a batch answer recorded as the online one; a mixed
online / batch folder scores as an all-online one. Each provider's own ways are tested in
its own file (test_batch_openai.py, test_batch_anthropic.py, test_batch_gemini.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from runner.batch_runs import PROVIDERS, ROWS, SECRET, Provider, book, eval_args, records
from runner.batch_runs import same_as_online as same

from gridwm_judge.cli import main
from gridwm_judge.prompts import REVERSED_NOTE
from gridwm_judge.testing.stub_server import StubServer, http_error

pytestmark = pytest.mark.usefixtures("keys")


@pytest.fixture(params=PROVIDERS, ids=[p.api for p in PROVIDERS])
def provider(request) -> Provider:
    pytest.importorskip(request.param.sdk)
    return request.param


def test_submit_kill_collect_and_nothing_asked_twice(provider, smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        argv = eval_args(smoke, provider.judge, server, out, "--batch")
        proc = subprocess.Popen([sys.executable, "-m", "gridwm_judge", *argv, "--poll-s", "60"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not (out / "batches.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # killed while it waits for the batch
        proc.communicate()
        [first] = book(out)
        assert first["state"] == "open" and first["provider"] == provider.api
        assert first["id"] == provider.first and len(first["lines"]) == ROWS
        assert server.batch_api.created == [provider.first]
        # run again: it polls the batch to its end and collects it, submitting nothing new
        assert main([*argv, "--poll-s", "0.01"]) == 0
        got = records(out)
        assert len(got) == ROWS and {r["status"] for r in got} == {"ok"}
        assert {r["served"]["batch"] for r in got} == {provider.first}
        assert all(r["usage"]["prompt_tokens"] == 11 for r in got)
        asked = len(server.requests)
        # and again: nothing left to ask, nothing submitted or collected twice
        assert main([*argv, "--poll-s", "0.01"]) == 0
        assert len(server.requests) == asked and server.batch_api.created == [provider.first]
    assert book(out)[0]["state"] == "collected" and len(records(out)) == ROWS
    assert json.loads((out / "run.json").read_text())["cost"]["batch_rows"] == ROWS
    assert "answered 8/8" in capsys.readouterr().out


def test_the_same_answers_as_online(provider, smoke, tmp_path):
    """A batch answer is recorded field for field as the same answer online would be."""
    batch, online = tmp_path / "batch", tmp_path / "online"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        assert main(eval_args(smoke, provider.judge, server, batch, "--batch",
                              "--poll-s", "0.01")) == 0
        assert main(eval_args(smoke, provider.judge, server, online)) == 0
    got = records(batch)
    same(got, records(online), {r["uid"]: provider.first for r in got})


def test_failed_lines_are_asked_again_once(provider, smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        server.script(REVERSED_NOTE, http_error(500), http_error(500))  # two reversed rows
        argv = eval_args(smoke, provider.judge, server, out, "--batch", "--poll-s", "0.01")
        assert main(argv) == 1  # rows are left without an answer: not a success
        err = capsys.readouterr().err
        assert "6 answers collected, 2 rows left to ask again" in err
        assert "a failed line said:" in err and "2 row(s) have no answer yet" in err
        assert len(records(out)) == ROWS - 2
        assert main(argv) == 0
    first, second = book(out)
    assert len(second["lines"]) == 2 and second["collected"] == 2
    assert {x["uid"] for x in second["lines"].values()} <= {
        x["uid"] for x in first["lines"].values()}
    assert len(records(out)) == ROWS


def test_an_expired_batch_leaves_its_rows_to_ask(provider, smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        server.batch_api.ending = "expired"
        argv = eval_args(smoke, provider.judge, server, out, "--batch", "--poll-s", "0.01")
        assert main(argv) == 1
        said = [x for x in capsys.readouterr().err.splitlines()
                if provider.first in x and "submitted" not in x]
        assert said[0].startswith(f"eval {provider.judge}: batch {provider.first} expired: 4 "
                                  "answers collected, 4 rows left to ask again (run this "
                                  "command again)") and len(said) == 1
        server.batch_api.ending = "completed"
        assert main(argv) == 0
    assert len(records(out)) == ROWS and book(out)[-1]["collected"] == 4


def test_cancel_collects_what_had_finished(provider, smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        argv = eval_args(smoke, provider.judge, server, out)
        assert main([*argv, "--batch", "--no-wait"]) == 0
        assert not (out / "predictions.jsonl").read_text()
        assert "run this command again to collect" in capsys.readouterr().err
        assert main([*argv, "--cancel-batch", "--poll-s", "0.01"]) == 0
        err = capsys.readouterr().err
        assert "asked the provider to cancel 1 batch(es)" in err
        assert f"batch {provider.first} cancelled: 4 answers collected" in err
        assert server.batch_api.created == [provider.first]  # cancelling submits nothing
    assert book(out)[0]["state"] == "collected" and len(records(out)) == ROWS // 2


@pytest.mark.parametrize("server_says", ["no batch API", "no access"])
def test_refusals_are_one_line_and_leave_no_folder(provider, smoke, tmp_path, capsys,
                                                   server_says):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        if server_says == "no batch API":
            server.batch_api.enabled = False
        else:
            server.batch_api.refuse_status = 403
        assert main(eval_args(smoke, provider.judge, server, out, "--batch")) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    want = provider.no_api if server_says == "no batch API" else "no batch access"
    assert want in line and not out.exists() and SECRET not in line


def test_a_mixed_online_and_batch_folder_scores_as_an_all_online_one(provider, smoke,
                                                                     tmp_path):
    mixed, online = tmp_path / "mixed", tmp_path / "online"
    with StubServer(default_reply="Yes", api=provider.api) as server:
        server.script(REVERSED_NOTE, *[http_error(400)] * 2)  # two rows not answered online
        assert main(eval_args(smoke, provider.judge, server, mixed, "--retries", "0")) == 1
        assert len([r for r in records(mixed) if r["status"] == "ok"]) == ROWS - 2
        assert main(eval_args(smoke, provider.judge, server, mixed, "--batch",
                              "--poll-s", "0.01")) == 0
        assert main(eval_args(smoke, provider.judge, server, online)) == 0
    [only] = book(mixed)
    assert len(only["lines"]) == 2  # only the rows without an answer went by batch
    scores = []
    for run in (mixed, online):
        assert main(["score", "--dataset", str(smoke), "--n-resamples", "50", "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(run / "s")]) == 0
        judge = json.loads((run / "s" / "scores.json").read_text())["judges"][provider.judge]
        scores.append(judge["results"])
    assert scores[0] == scores[1]

"""`eval --batch` for openai: judges against a loopback server that speaks OpenAI's Batch API
(file upload, create, statuses stepping to their end, output and error files, asynchronous
cancel): submit, kill the process, rerun to collect, rerun again asks nothing; failed lines
asked again; a rejected, expired or cancelled batch; a server without the API and a key
without access in one line; a mixed online / batch folder scores as an all-online one."""

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

ROWS = 8  # the smoke task_c rows an openai: judge is asked


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke", configs=("task_c",))


def _eval(smoke: Path, server: StubServer, out: Path, *extra: str) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", "openai:gpt-4o",
            "--base-url", server.base_url, "--no-progress", "--out", str(out), *extra]


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]


def _book(out: Path) -> list[dict]:
    return json.loads((out / "batches.json").read_text())["batches"]


def test_submit_kill_collect_and_nothing_asked_twice(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        cmd = [sys.executable, "-m", "gridwm_judge", *_eval(smoke, server, out, "--batch",
                                                           "--poll-s", "60")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not (out / "batches.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # killed while it waits for the batch
        proc.communicate()
        [book] = _book(out)
        assert book["state"] == "open" and len(book["lines"]) == ROWS
        assert server.batch_api.created == [book["id"]]
        # run again: it polls the batch to its end and collects it, submitting nothing new
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        records = _records(out)
        assert len(records) == ROWS and {r["status"] for r in records} == {"ok"}
        assert all(r["served"]["batch"] == book["id"] for r in records)
        assert server.batch_api.created == [book["id"]]
        asked = len(server.requests)
        # and again: nothing left to ask, nothing submitted or collected twice
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert len(server.requests) == asked and server.batch_api.created == [book["id"]]
    assert _book(out)[0]["state"] == "collected" and len(_records(out)) == ROWS
    run = json.loads((out / "run.json").read_text())
    assert run["cost"]["batch_rows"] == ROWS  # priced at the batch rate
    assert "answered 8/8" in capsys.readouterr().out


def test_failed_lines_are_asked_again_once(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        server.script(REVERSED_NOTE, http_error(500), http_error(500))  # two reversed rows
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err
        assert "6 answers collected, 2 rows left to ask again" in err
        assert len(_records(out)) == ROWS - 2
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        first, second = _book(out)
        assert len(second["lines"]) == 2 and second["collected"] == 2
        assert {line["uid"] for line in second["lines"].values()} <= {
            line["uid"] for line in first["lines"].values()}
    assert len(_records(out)) == ROWS


@pytest.mark.parametrize("ending", ["failed", "expired"])
def test_a_rejected_or_expired_batch_leaves_its_rows_to_ask(smoke, tmp_path, capsys, ending):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        server.batch_api.ending = ending
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err.strip().splitlines()
        said = [line for line in err if "batch_0" in line and "submitted" not in line]
        assert len(said) == 1
        if ending == "failed":
            assert "the provider rejected batch batch_0 (line 1: the stub rejects" in said[0]
            assert not (out / "predictions.jsonl").read_text()
        else:
            assert "batch batch_0 expired: 4 answers collected, 4 rows left" in said[0]
        server.batch_api.ending = "completed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(_records(out)) == ROWS and _book(out)[-1]["collected"] in (4, ROWS)


def test_a_status_read_refused_for_now_is_said_once_and_waited_out(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        server.batch_api.hiccups = 3  # three 503s while it waits
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    said = [x for x in capsys.readouterr().err.splitlines() if "HTTP 503" in x]
    assert len(said) == 1 and said[0].endswith("it is read again later")
    assert len(_records(out)) == ROWS


def test_cancel_collects_what_had_finished(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        assert not (out / "predictions.jsonl").read_text()
        assert "run this command again to collect" in capsys.readouterr().err
        assert main(_eval(smoke, server, out, "--cancel-batch", "--poll-s", "0.01")) == 0
        assert "asked the provider to cancel 1 batch(es)" in capsys.readouterr().err
        assert server.batch_api.created == ["batch_0"]  # cancelling submits nothing
    assert _book(out)[0]["status"] == "cancelled" and len(_records(out)) == ROWS // 2


@pytest.mark.parametrize("server_says", ["no batch API", "no access"])
def test_refusals_are_one_line_and_leave_no_folder(smoke, tmp_path, capsys, server_says):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        if server_says == "no batch API":
            server.batch_api.enabled = False
        else:
            server.batch_api.refuse_status = 403
        assert main(_eval(smoke, server, out, "--batch")) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    want = "has no batch API" if server_says == "no batch API" else "no batch access"
    assert want in line and not out.exists()


def test_a_mixed_online_and_batch_folder_scores_as_an_all_online_one(smoke, tmp_path):
    mixed, online = tmp_path / "mixed", tmp_path / "online"
    with StubServer(default_reply="Yes") as server:
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
        judge = json.loads((run / "s" / "scores.json").read_text())["judges"]["openai:gpt-4o"]
        scores.append(judge["results"])
    assert scores[0] == scores[1]


def test_batch_flags_where_they_mean_nothing(smoke, tmp_path, capsys):
    with StubServer() as server:
        assert main(_eval(smoke, server, tmp_path / "a", "--no-wait")) == 2
        assert "--no-wait means nothing without --batch" in capsys.readouterr().err
        assert main(_eval(smoke, server, tmp_path / "b", "--batch", "--engine", "ray")) == 2
        assert "drop --engine ray" in capsys.readouterr().err
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", "baseline:oracle",
                 "--out", str(tmp_path / "c"), "--batch"]) == 2
    assert "answers online only" in capsys.readouterr().err
    assert not any((tmp_path / n).exists() for n in "abc")


def test_eval_many_submits_a_batch_judge_and_moves_on(smoke, tmp_path, capsys):
    spec = tmp_path / "judges.yaml"
    with StubServer(default_reply="Yes") as server:
        spec.write_text(f"dataset: {smoke}\ntasks: c\nout: {tmp_path / 'runs'}\n"
                        "engine: local\njudges:\n"
                        f"  - judge: openai:gpt-4o\n    base_url: {server.base_url}\n"
                        "    batch: true\n"
                        "  - judge: baseline:always-yes\n")
        assert main(["eval-many", str(spec), "--no-progress"]) == 0
        batched = tmp_path / "runs" / "openai-gpt-4o"
        assert not (batched / "predictions.jsonl").read_text()  # submitted, not waited for
        assert len(_records(tmp_path / "runs" / "baseline-always-yes")) == ROWS
        assert "rows in 1 batch(es) are with the provider" in capsys.readouterr().err
        for _ in range(4):  # the batch runs to its end at the provider
            server.batch_api._status("batch_0")
        assert main(["eval-many", str(spec), "--no-progress"]) == 0
        assert server.batch_api.created == ["batch_0"]
    assert len(_records(batched)) == ROWS and _book(batched)[0]["state"] == "collected"
    spec.write_text(spec.read_text().replace("batch: true", "batch: true\n    replicas: 2"))
    assert main(["eval-many", str(spec)]) == 2
    assert "'replicas' and 'pipeline_parallel_size' mean nothing" in capsys.readouterr().err


def test_ctrl_c_while_waiting_leaves_the_batch_and_says_how_to_collect(smoke, tmp_path):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        cmd = [sys.executable, "-m", "gridwm_judge", *_eval(smoke, server, out, "--batch",
                                                           "--poll-s", "60")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not (out / "batches.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)  # Ctrl-C while it waits
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert ("stopped waiting; 1 batch(es) keep running at the provider: run this command "
                "again to collect them (--cancel-batch cancels them)") in err
        assert "Traceback" not in err
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["batch_0"]  # collected, not submitted again
    assert len(_records(out)) == ROWS

"""`eval --batch` for openai: judges, what is OpenAI's own or the runner's (the behaviours
every provider shares are in test_batch_providers.py): a batch rejected at validation, a
status read refused for now, Ctrl-C while waiting, eval-many with a batch judge, and the
batch flags where they mean nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from runner.batch_runs import ROWS, book, eval_args, records

from gridwm_judge.cli import main
from gridwm_judge.testing.stub_server import StubServer

JUDGE = "openai:gpt-4o"


def _eval(smoke: Path, server: StubServer, out: Path, *extra: str) -> list[str]:
    return eval_args(smoke, JUDGE, server, out, *extra)


def test_a_rejected_batch_leaves_its_rows_to_ask(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        server.batch_api.ending = "failed"  # rejected at validation, after it was accepted
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 1
        said = [x for x in capsys.readouterr().err.splitlines()
                if "batch_0" in x and "submitted" not in x]
        assert said == [f"eval {JUDGE}: the provider rejected batch batch_0 (line 1: the stub "
                        "rejects this batch); its 8 rows are asked again by the next run of "
                        "this command"]
        assert not (out / "predictions.jsonl").read_text()
        server.batch_api.ending = "completed"
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(records(out)) == ROWS and book(out)[-1]["collected"] == ROWS


def test_a_status_read_refused_for_now_is_said_once_and_waited_out(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        server.batch_api.hiccups = 3  # three 503s while it waits
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    said = [x for x in capsys.readouterr().err.splitlines() if "HTTP 503" in x]
    assert len(said) == 1 and said[0].endswith("it is read again later")
    assert len(records(out)) == ROWS


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
    assert len(records(out)) == ROWS
    assert os.path.exists(out / "batches.json")


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
                        f"  - judge: {JUDGE}\n    base_url: {server.base_url}\n"
                        "    batch: true\n"
                        "  - judge: baseline:always-yes\n")
        assert main(["eval-many", str(spec), "--no-progress"]) == 0
        batched = tmp_path / "runs" / "openai-gpt-4o"
        assert not (batched / "predictions.jsonl").read_text()  # submitted, not waited for
        assert len(records(tmp_path / "runs" / "baseline-always-yes")) == ROWS
        assert "rows in 1 batch(es) are with the provider" in capsys.readouterr().err
        for _ in range(4):  # the batch runs to its end at the provider
            server.batch_api._status("batch_0")
        assert main(["eval-many", str(spec), "--no-progress"]) == 0
        assert server.batch_api.created == ["batch_0"]
    assert len(records(batched)) == ROWS and book(batched)[0]["state"] == "collected"
    spec.write_text(spec.read_text().replace("batch: true", "batch: true\n    replicas: 2"))
    assert main(["eval-many", str(spec)]) == 2
    assert "'replicas' and 'pipeline_parallel_size' mean nothing" in capsys.readouterr().err


def test_results_unreadable_for_now_keep_the_batch_open(smoke, tmp_path, capsys):
    """A 503 on the output file is not the batch gone: it is read again, never paid twice."""
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        server.batch_api.download_hiccups = 2
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["batch_0"]
    said = [x for x in capsys.readouterr().err.splitlines() if "cannot be read for now" in x]
    assert len(said) == 1 and "HTTP 503" in said[0]
    assert len(records(out)) == ROWS and book(out)[0]["collected"] == ROWS


def test_a_batch_the_provider_no_longer_knows_is_asked_again(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        del server.batch_api.batches["batch_0"]  # a deleted batch, another project's key
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["batch_0", "batch_1"]
    err = capsys.readouterr().err
    assert "batch batch_0: the provider no longer knows this batch (HTTP 404" in err
    assert [b["status"] for b in book(out)] == ["gone", "completed"]
    assert len(records(out)) == ROWS


def test_a_reasoning_models_form_is_learned_from_failed_lines(smoke, tmp_path, capsys):
    """Every line of the first batch fails as a reasoning model refuses max_tokens; the
    form is learned from them, the rows go again in it within the same run, and the next
    run starts from the learned form."""
    from gridwm_judge.testing.stub_server import REASONING_DEFAULTS

    out = tmp_path / "run"
    with StubServer(default_reply="Yes", refuse=("max_tokens", *REASONING_DEFAULTS)) as server:
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err
        assert "the server refused 'max_tokens'; sending 'max_completion_tokens'" in err
        assert "the server refused 'temperature'; leaving it out" in err
        assert len(server.batch_api.created) == 3  # max_tokens, then temperature, then right
        assert "max_completion_tokens" in records(out)[0]["sent"]
        assert "temperature" not in records(out)[0]["sent"] and len(records(out)) == ROWS
        learned = json.loads((out / "batches.json").read_text())["learned"]
        assert len(learned) == 2
        # a new folder starts fresh; this one remembers: a row asked again goes right at once
        lines = (out / "predictions.jsonl").read_text().splitlines()
        (out / "predictions.jsonl").write_text("\n".join(lines[:-1]) + "\n")
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert len(server.batch_api.created) == 4 and len(records(out)) == ROWS


def test_credentials_in_the_base_url_are_never_printed(smoke, tmp_path, capsys):
    with StubServer(default_reply="Yes") as server:
        server.batch_api.enabled = False
        url = server.base_url.replace("http://", "http://user:pw-SECRET-123@")
        argv = ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", JUDGE,
                "--base-url", url, "--no-progress", "--out", str(tmp_path / "run"), "--batch"]
        assert main(argv) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "has no batch API" in line and "pw-SECRET-123" not in line


def test_an_online_run_never_asks_rows_a_live_batch_asks(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        capsys.readouterr()
        assert main(_eval(smoke, server, out)) == 2  # the same command without --batch
        [line] = capsys.readouterr().err.strip().splitlines()
        assert "8 rows of" in line and "--batch" in line and "--cancel-batch" in line
        assert not server.requests  # nothing was asked online (the batch holds no answer yet)
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
    assert len(records(out)) == ROWS


def test_rows_go_in_batches_cut_at_the_providers_limits(smoke, tmp_path, capsys, monkeypatch):
    """Each batch is submitted as soon as it holds the provider's most requests (or bytes);
    one request over the byte limit is one line naming --max-pixels, nothing submitted."""
    from gridwm_judge.judges import openai_batch

    out = tmp_path / "run"
    monkeypatch.setattr(openai_batch.BatchClient, "max_requests", 3)
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["batch_0", "batch_1", "batch_2"]
    assert [len(b["lines"]) for b in book(out)] == [3, 3, 2]
    assert len(records(out)) == ROWS
    monkeypatch.setattr(openai_batch.BatchClient, "max_bytes", 1000)
    with StubServer(default_reply="Yes") as server:
        assert main(_eval(smoke, server, tmp_path / "big", "--batch")) == 2
        assert not server.batch_api.created
    [line] = capsys.readouterr().err.strip().splitlines()[-1:]
    assert "over a batch's 1,000; lower --max-pixels" in line
    assert not (tmp_path / "big").exists()

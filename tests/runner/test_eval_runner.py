"""`gridwm-judge eval`: predictions contract, resume, refusal, bad input, and a real kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.prompts import REVERSED_NOTE
from gridwm_judge.runner import PredictionStore
from gridwm_judge.testing.stub_server import StubServer, http_error

FIELDS = {
    "uid",
    "judge",
    "task",
    "raw",
    "status",
    "parsed",
    "parse_mode",
    "request_hash",
    "item_digest",
    "reasoning",
    "format",
    "latency_s",
    "usage",
    "error",
}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _lines(run: Path) -> list[dict]:
    text = (run / "predictions.jsonl").read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def _eval(smoke, run, *extra) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress", *extra]


def test_baseline_run_writes_contract_and_resumes(smoke, tmp_path, capsys, monkeypatch):
    run = tmp_path / "px"
    assert main(_eval(smoke, run, "--tasks", "all", "--judge", "baseline:pixel-heuristic")) == 0
    out = capsys.readouterr().out
    assert "answered 13/13 (13 new, 0 resumed), errors 0, invalid parses 0" in out
    records = _lines(run)
    assert len(records) == 13 and len({r["uid"] for r in records}) == 13
    for r in records:
        assert set(r) == FIELDS and r["judge"] == "baseline:pixel-heuristic"
        assert r["status"] == "ok" and r["parse_mode"] == "strict" and len(r["request_hash"]) == 64
    c_records = [r for r in records if r["task"] == "C"]
    assert all(r["parsed"] == ("success" if ".full." in r["uid"] else "failure") for r in c_records)
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["judge"] == "baseline:pixel-heuristic" and manifest["tasks"] == list("ABCDE")
    assert manifest["dataset_fingerprint"].startswith("sha256:")
    assert manifest["prompt_version"] and manifest["package_version"] and manifest["seed"] == 0
    assert manifest["dataset_provenance"]["seeds"] == {"generation": 1, "sampling": 2}

    def no_judge(*args, **kwargs):
        raise AssertionError("a finished run must not load its judge again")

    monkeypatch.setattr("gridwm_judge.runner.evaluate.make_judge", no_judge)
    assert main(_eval(smoke, run, "--tasks", "all", "--judge", "baseline:pixel-heuristic")) == 0
    assert "answered 13/13 (0 new, 13 resumed)" in capsys.readouterr().out
    assert len(_lines(run)) == 13


def test_resume_requests_only_missing_and_drops_partial_line(smoke, tmp_path, capsys):
    run = tmp_path / "oa"
    with StubServer(default_reply="No") as server:
        args = _eval(
            smoke,
            run,
            "--tasks",
            "c",
            "--judge",
            "openai:stub",
            "--base-url",
            server.base_url,
            "--workers",
            "3",
        )
        assert main(args) == 0
        assert len(server.requests) == 8
        lines = (run / "predictions.jsonl").read_text().splitlines(keepends=True)
        kept = lines[:5]
        (run / "predictions.jsonl").write_text("".join(kept) + lines[5][:37])  # cut mid-line
        assert main(args) == 0
        assert len(server.requests) == 8 + 3  # only the missing uids were asked again
    err = capsys.readouterr().err
    assert "dropped a partial trailing line" in err
    records = _lines(run)
    assert len(records) == 8 and len({r["uid"] for r in records}) == 8
    assert all(r["parsed"] == "failure" and r["usage"]["prompt_tokens"] == 11 for r in records)


def test_changed_settings_are_refused(smoke, tmp_path, capsys):
    run = tmp_path / "r"
    base = _eval(smoke, run, "--tasks", "d", "--judge", "baseline:always-yes")
    assert main(base) == 0
    assert main([*base, "--max-tokens-d", "99"]) == 2
    assert "different settings (max_tokens" in capsys.readouterr().err
    other = _eval(smoke, run, "--tasks", "d", "--judge", "baseline:always-no")
    assert main(other) == 2
    err = capsys.readouterr().err
    assert "refusing to mix" in err and "baseline:always-no" in err
    assert main([*base, "--workers", "9", "--tasks", "c,d"]) == 0  # operational change, new task
    assert len(_lines(run)) == 2 + 8


def test_errors_are_recorded_and_counted(smoke, tmp_path, capsys):
    run = tmp_path / "err"
    with StubServer(default_reply="Yes") as server:
        server.script(REVERSED_NOTE, *[http_error(500)] * 20)
        code = main(
            _eval(
                smoke,
                run,
                "--tasks",
                "c",
                "--judge",
                "openai:stub",
                "--base-url",
                server.base_url,
                "--retries",
                "1",
                "--representation",
                "composite",
            )
        )
    assert code == 1  # errored requests remain: eval does not end as if all were answered
    captured = capsys.readouterr()
    assert "answered 2/4 (4 new, 0 resumed), errors 2, invalid parses 0" in captured.out
    last = captured.err.strip().splitlines()[-1]
    assert "2 request(s) errored" in last and "gridwm-judge" in last and "--tasks c" in last
    records = _lines(run)
    assert {r["uid"].rsplit(".", 1)[1] for r in records} == {"composite"}
    for r in records:
        if ".rev." in r["uid"]:
            assert r["status"] == "error" and r["parsed"] is None and "HTTP 500" in r["error"]
        else:
            assert r["status"] == "ok" and r["parsed"] == "success"
    # the same command asks only the errored uids again (a new server URL is fine on resume)
    with StubServer(default_reply="Yes") as healthy:
        code = main(
            _eval(
                smoke,
                run,
                "--tasks",
                "c",
                "--judge",
                "openai:stub",
                "--base-url",
                healthy.base_url,
                "--representation",
                "composite",
            )
        )
        assert code == 0 and len(healthy.requests) == 2
    assert "answered 4/4 (2 new, 2 resumed), errors 0, invalid parses 0" in capsys.readouterr().out
    records = _lines(run)
    assert len(records) == 4 and all(r["status"] == "ok" for r in records)


def test_bad_input_messages(smoke, tmp_path, capsys, monkeypatch):
    assert main(_eval(smoke, tmp_path / "a", "--tasks", "c", "--judge", "hf-local:x")) == 2
    err = capsys.readouterr().err
    assert "valid backends: vllm, openai, hf, baseline" in err and "did you mean 'hf'" in err
    assert main(_eval(smoke, tmp_path / "b", "--tasks", "c,q", "--judge", "baseline:oracle")) == 2
    assert "unknown task 'q'" in capsys.readouterr().err
    only_c = write_smoke_dataset(tmp_path / "only_c", configs=("task_c",))
    assert main(_eval(only_c, tmp_path / "c", "--tasks", "d", "--judge", "baseline:oracle")) == 2
    assert "has no config 'task_d'; it has: task_c" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "vllm", None)
    assert main(_eval(smoke, tmp_path / "d", "--tasks", "c", "--judge", "vllm:org/model")) == 2
    assert 'pip install -e ".[vllm]" in a clone of' in capsys.readouterr().err


def test_oracle_run_is_labelled_upper_bound(smoke, tmp_path):
    run = tmp_path / "oracle"
    assert (
        main(_eval(smoke, run, "--tasks", "c,e", "--judge", "baseline:oracle", "--limit", "2")) == 0
    )
    records = _lines(run)
    assert len(records) == 3 and all(r["parse_mode"] == "strict" for r in records)
    manifest = json.loads((run / "run.json").read_text())
    assert (
        manifest["oracle_upper_bound"] is True
        and "upper-bound" in manifest["judge_settings"]["note"]
    )


def test_judges_without_pixels_run_without_decoding_images(smoke, tmp_path, capsys, monkeypatch):
    def boom(data):
        raise AssertionError("decoded an image")

    monkeypatch.setattr("gridwm_judge.judges.images.decode_rgb", boom)
    run = tmp_path / "no"
    assert main(_eval(smoke, run, "--tasks", "all", "--judge", "baseline:always-no")) == 0
    assert "answered 13/13 (13 new, 0 resumed), errors 0" in capsys.readouterr().out
    assert len({r["request_hash"] for r in _lines(run)}) == 13


def test_store_skips_duplicates_and_rejects_corrupt_middle(tmp_path):
    path = tmp_path / "p.jsonl"
    with PredictionStore(path) as store:
        assert store.append({"uid": "a", "x": 1}) and not store.append({"uid": "a", "x": 2})
    with PredictionStore(path), pytest.raises(ValueError, match="another eval is writing"):
        PredictionStore(path)
    path.write_text('{"uid": "a"}\nnot json\n{"uid": "b"}\n')
    with pytest.raises(ValueError, match=r"p.jsonl:2 is not a JSON line"):
        PredictionStore(path)


def test_kill_9_loses_only_in_flight_requests(smoke, tmp_path):
    run = tmp_path / "killed"
    with StubServer(default_reply="Yes", delay_s=0.25) as server:
        cmd = [
            sys.executable,
            "-m",
            "gridwm_judge",
            *_eval(
                smoke,
                run,
                "--tasks",
                "c,d,e",
                "--judge",
                "openai:stub",
                "--base-url",
                server.base_url,
                "--workers",
                "2",
            ),
        ]
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        preds = run / "predictions.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if preds.exists() and preds.read_text().count("\n") >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"eval ended early: {proc.communicate()[1].decode()[-2000:]}")
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        text = preds.read_bytes()
        complete = text.count(b"\n")
        assert 3 <= complete < 11
        assert [json.loads(line) for line in text.splitlines()[:complete]]
        sent_before = len(server.requests)
        assert (
            main(
                _eval(
                    smoke,
                    run,
                    "--tasks",
                    "c,d,e",
                    "--judge",
                    "openai:stub",
                    "--base-url",
                    server.base_url,
                    "--workers",
                    "2",
                )
            )
            == 0
        )
        resent = len(server.requests) - sent_before
    records = _lines(run)
    assert len(records) == 11 and len({r["uid"] for r in records}) == 11  # 8 C + 2 D + 1 E
    assert resent == 11 - complete  # nothing finished was asked again
    assert sent_before - complete <= 2 + 1  # lost at most the in-flight ones (2 workers)


def test_predictions_score_with_the_scorer(smoke, tmp_path, capsys):
    run = tmp_path / "scored"
    assert main(_eval(smoke, run, "--tasks", "c,d", "--judge", "baseline:pixel-heuristic")) == 0
    code = main(
        [
            "score",
            "--dataset",
            str(smoke),
            "--predictions",
            str(run / "predictions.jsonl"),
            "--out",
            str(tmp_path / "scores"),
            "--n-resamples",
            "200",
            "--no-les",
        ]
    )
    assert code == 0
    assert "C answered 8/8, D answered 2/2" in capsys.readouterr().out
    assert (tmp_path / "scores" / "scores.json").exists()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), cut=st.floats(0, 1), texts=st.lists(st.text(max_size=30), max_size=6))
def test_store_recovers_from_a_cut_at_any_byte(tmp_path_factory, n, cut, texts):
    path = tmp_path_factory.mktemp("cut") / "p.jsonl"
    with PredictionStore(path) as store:
        for i in range(n):
            store.append({"uid": f"u{i}", "raw": texts[i] if i < len(texts) else "é\n{"})
    data = path.read_bytes()
    keep = int(len(data) * cut)
    path.write_bytes(data[:keep])  # what a kill in the middle of a write could leave
    complete = data[:keep].count(b"\n")
    with PredictionStore(path) as store:
        assert sorted(store.records) == [f"u{i}" for i in range(complete)]
        store.append({"uid": "new"})
    lines = path.read_bytes().decode("ascii").splitlines()
    assert [json.loads(line)["uid"] for line in lines] == [f"u{i}" for i in range(complete)] + [
        "new"
    ]

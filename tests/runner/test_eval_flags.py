"""``gridwm-judge eval`` flags by what they do: ``--reask`` asks stored empty / truncated answers
again on a rerun (and nothing else), a per-task budget reaches the request on the wire, and
``--max-model-len`` / ``--tensor-parallel-size`` reach the judge options the vLLM engine is
built from (a value below 1 is one line)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.judges.vllm_engine import engine_kwargs
from gridwm_judge.runner import commands
from gridwm_judge.runner.evaluate import REASKABLE
from gridwm_judge.testing.stub_server import StubServer, ok

TASK_A_PROMPT = "Action: turn right."  # the smoke dataset's one Task A row


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    return write_smoke_dataset(tmp_path_factory.mktemp("smoke"), configs=("task_a", "task_c"))


def _eval(smoke: Path, server: StubServer, out: Path, *flags: str, tasks: str = "a") -> int:
    return main(["eval", "--dataset", str(smoke), "--tasks", tasks, "--judge",
                 "openai:stub-vlm", "--base-url", server.base_url, "--workers", "1",
                 "--retries", "0", "--no-progress", "--out", str(out), *flags])


def _records(out: Path) -> dict[str, dict]:
    lines = (out / "predictions.jsonl").read_text().splitlines()
    return {r["uid"]: r for r in map(json.loads, lines)}


def test_reaskable_statuses_are_the_ones_eval_documents():
    assert REASKABLE == ("empty", "truncated")


@pytest.mark.parametrize(("status", "reply"), [
    ("empty", ok("")),
    ("truncated", ok("B", finish_reason="length")),
])
def test_reask_asks_a_stored_answer_of_that_status_again_and_only_then(
        status, reply, smoke, tmp_path, capsys):
    other = next(s for s in REASKABLE if s != status)
    out = tmp_path / "run"
    with StubServer(default_reply="C") as server:
        server.script(TASK_A_PROMPT, reply)
        assert _eval(smoke, server, out) == 0, capsys.readouterr().err
        [first] = _records(out).values()
        assert first["status"] == status and server.attempts(TASK_A_PROMPT) == 1
        # a plain rerun keeps what the model said; so does re-asking another status
        for flags in ((), ("--reask", other)):
            assert _eval(smoke, server, out, *flags) == 0
            assert server.attempts(TASK_A_PROMPT) == 1
            assert _records(out) == {first["uid"]: first}
        assert "(0 new, 1 resumed)" in capsys.readouterr().out
        # --reask STATUS asks it again; the new answer replaces the old line
        assert _eval(smoke, server, out, "--reask", f"{other}, {status}") == 0
        assert server.attempts(TASK_A_PROMPT) == 2
    [again] = _records(out).values()
    assert again["uid"] == first["uid"]
    assert (again["status"], again["raw"], again["parsed"]) == ("ok", "C", "C")
    assert "(1 new, 0 resumed)" in capsys.readouterr().out


def test_an_invalid_parse_is_kept_and_cannot_be_reasked(smoke, tmp_path, capsys):
    """An answer that came back but does not parse is what the model said: --reask takes only
    the statuses it lists, and a status it does not know is one line before anything runs."""
    out = tmp_path / "run"
    with StubServer(default_reply="C") as server:
        server.script(TASK_A_PROMPT, ok("I cannot tell"))
        assert _eval(smoke, server, out) == 0
        [first] = _records(out).values()
        assert first["status"] == "ok" and first["parsed"] is None
        assert _eval(smoke, server, out, "--reask", ",".join(REASKABLE)) == 0
        assert server.attempts(TASK_A_PROMPT) == 1 and _records(out) == {first["uid"]: first}
        capsys.readouterr()
        assert _eval(smoke, server, out, "--reask", "invalid") == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot re-ask status 'invalid'" in err
        assert "empty, truncated" in err
        assert server.attempts(TASK_A_PROMPT) == 1 and _records(out) == {first["uid"]: first}


def test_a_per_task_budget_is_the_limit_each_request_of_that_task_carries(smoke, tmp_path):
    with StubServer(default_reply="Yes") as server:
        assert _eval(smoke, server, tmp_path / "run", "--max-tokens-C", "77",
                     tasks="a,c") == 0
        limits = {}
        for body in server.requests:
            text = " ".join(p.get("text", "") for p in body["messages"][-1]["content"])
            limits.setdefault("A" if TASK_A_PROMPT in text else "C", set()).add(
                body["max_tokens"])
    assert limits == {"A": {512}, "C": {77}}
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["max_tokens"]["C"] == 77 and run["max_tokens"]["A"] == 512


def _options(monkeypatch, tmp_path: Path, *flags: str):
    """The JudgeOptions ``eval`` would make its judge with (``run_eval`` replaced)."""
    seen = []
    monkeypatch.setattr(commands, "run_eval", lambda cfg, engine=None: seen.append(cfg) or
                        SimpleNamespace(dropped_partial_bytes=0, errors=0, line=lambda: ""))
    assert main(["eval", "--dataset", str(tmp_path), "--tasks", "c", "--judge",
                 "vllm:Qwen/Qwen2.5-VL-3B-Instruct", "--out", str(tmp_path / "run"),
                 "--no-progress", *flags]) == 0
    [cfg] = seen
    return cfg.options


def test_engine_flags_reach_the_vllm_engine(monkeypatch, tmp_path, capsys):
    options = _options(monkeypatch, tmp_path, "--max-model-len", "4096",
                       "--tensor-parallel-size", "2")
    assert (options.max_model_len, options.tensor_parallel_size) == (4096, 2)
    kwargs = engine_kwargs("m", options)  # what vllm.LLM is constructed with
    assert kwargs["max_model_len"] == 4096 and kwargs["tensor_parallel_size"] == 2
    default = _options(monkeypatch, tmp_path)
    assert (default.max_model_len, default.tensor_parallel_size) == (None, 1)
    assert "max_model_len" not in engine_kwargs("m", default)  # the model's own context
    assert engine_kwargs("m", default)["tensor_parallel_size"] == 1
    capsys.readouterr()


@pytest.mark.parametrize(("flag", "value"), [
    ("--max-model-len", "0"), ("--max-model-len", "-1"), ("--tensor-parallel-size", "0"),
])
def test_an_engine_size_below_one_is_one_line(flag, value, tmp_path, capsys):
    code = main(["eval", "--dataset", str(tmp_path / "none"), "--tasks", "c", "--judge",
                 "vllm:Qwen/Qwen2.5-VL-3B-Instruct", "--out", str(tmp_path / "run"),
                 "--no-progress", flag, value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"{flag} must be an integer >= 1, got {value}" in err
    assert not (tmp_path / "run").exists()


def test_max_model_len_means_nothing_to_a_judge_without_an_engine(smoke, tmp_path, capsys):
    """Either refused (one line) or not part of what the run is: a rerun without it resumes."""
    def run(*flags: str) -> int:
        return main(["eval", "--dataset", str(smoke), "--tasks", "a", "--judge",
                     "baseline:always-yes", "--no-progress", "--out", str(tmp_path / "run"),
                     *flags])

    code = run("--max-model-len", "4096")
    err = capsys.readouterr().err
    if code == 2:
        assert err.count("\n") == 1 and "--max-model-len" in err
        return
    assert code == 0 and run() == 0, capsys.readouterr().err

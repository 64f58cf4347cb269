"""openai: reasoning-model requests against a loopback server that answers as OpenAI's
o-series / GPT-5 models do (400 for max_tokens and a non-default temperature), the eval that
finishes anyway, the run.json record of what was sent, and a resume that asks nothing."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gridwm_judge.cli import main
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.judges.openai_http import refused_param
from gridwm_judge.records import RunRecord
from gridwm_judge.report.sent import decoding_table
from gridwm_judge.testing.stub_server import StubServer, http_error, ok

GPT5 = ("max_tokens", "temperature", "top_p", "presence_penalty", "frequency_penalty")


def _reqs(n: int, budget: int = 64, prompt: str = "Did it work?"):
    return [JudgeRequest(f"u{i}", "C", f"{prompt} {i}", (), budget) for i in range(n)]


def _judge(server, **kw):
    opts = dict(base_url=server.base_url, workers=4, retries=2, backoff_s=0.01, timeout_s=5.0)
    opts.update(kw)
    return make_judge("openai:gpt-5", JudgeOptions(**opts))


def test_gpt5_400s_are_learned_once_and_no_row_errors():
    with StubServer(refuse=GPT5, model="gpt-5-2025-08-07", fingerprint="fp_abc") as server:
        judge = _judge(server, reasoning_effort="low", reasoning_budget=1000)
        out = list(judge.judge(_reqs(16)))
        sending = judge.sending()
        judge.close()
    assert sorted(r.uid for r in out) == sorted(f"u{i}" for i in range(16))
    assert {r.status for r in out} == {"ok"}, [r.error for r in out]
    refused = [b for b in server.requests if "max_tokens" in b or "temperature" in b]
    accepted = [b for b in server.requests if "max_completion_tokens" in b
                and "temperature" not in b]
    assert len(accepted) == 16  # every request asked again in the accepted form, once
    # each refused field costs at most one 400 per worker in flight, not one per row
    assert len(refused) + len(accepted) == len(server.requests)
    assert 2 <= len(refused) <= 4 * 2, len(refused)
    last = accepted[-1]
    assert last["max_completion_tokens"] == 64 + 1000 and "max_tokens" not in last
    assert last["reasoning_effort"] == "low" and last["seed"] == 0
    assert "temperature" not in last and last["top_p"] == 1.0  # neutral values are taken
    assert sending["token_limit_field"] == "max_completion_tokens"
    assert sending["refused_by_server"] == ["temperature"]
    assert set(sending["not_sent"]) == {"top_k", "min_p", "repetition_penalty", "min_tokens"}
    r = out[0]
    assert r.sent == {"max_completion_tokens": 1064, "seed": 0, "reasoning_effort": "low",
                      "top_p": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0}
    assert r.served == {"model": "gpt-5-2025-08-07", "fingerprint": "fp_abc"}


def test_token_field_flag_sends_the_form_at_once():
    with StubServer(refuse=("max_tokens",)) as server:
        judge = _judge(server, token_field="max_completion_tokens", workers=1)
        [r] = list(judge.judge(_reqs(1, budget=33)))
        judge.close()
    assert r.status == "ok" and len(server.requests) == 1
    assert server.requests[0]["max_completion_tokens"] == 33
    assert server.requests[0]["temperature"] == 0.0


def test_a_forced_form_the_server_refuses_is_an_error_not_a_loop():
    with StubServer(refuse=("max_tokens",)) as server:
        judge = _judge(server, token_field="max_tokens", workers=1)
        [r] = list(judge.judge(_reqs(1)))
        judge.close()
    assert r.status == "error" and "HTTP 400" in r.error and "max_completion_tokens" in r.error
    assert len(server.requests) == 1  # a 400 is not retried


def test_an_unrelated_400_is_not_learned_from():
    with StubServer() as server:
        server.script("bad", http_error(400))
        judge = _judge(server, workers=1)
        [r] = list(judge.judge(_reqs(1, prompt="bad")))
        judge.close()
    assert r.status == "error" and len(server.requests) == 1
    assert judge.sending()["refused_by_server"] == []


def test_reasoning_that_hits_the_limit_is_truncated_and_kept_apart():
    with StubServer(refuse=GPT5) as server:
        server.script("long", ok(None, finish_reason="length", reasoning="thinking...",
                                 reasoning_tokens=1064))
        judge = _judge(server, workers=1, reasoning_budget=1000)
        [r] = list(judge.judge(_reqs(1, prompt="long")))
        judge.close()
    assert (r.status, r.raw, r.reasoning) == ("truncated", None, "thinking...")
    assert r.usage.reasoning_tokens == 1064


def test_chat_template_kwargs_are_sent():
    with StubServer() as server:
        judge = _judge(server, workers=1, chat_template_kwargs={"enable_thinking": False})
        [r] = list(judge.judge(_reqs(1)))
        judge.close()
    assert r.status == "ok"
    assert server.requests[0]["chat_template_kwargs"] == {"enable_thinking": False}
    assert r.sent["chat_template_kwargs"] == {"enable_thinking": False}


@pytest.mark.parametrize(("body", "param"), [
    ('{"error": {"message": "x", "param": "max_tokens", "code": "unsupported_parameter"}}',
     "max_tokens"),
    ('{"error": {"message": "max_tokens is too large: 99999.", "param": "max_tokens", '
     '"code": "invalid_value"}}', None),  # out of range, not refused: no switch
    ('{"type": "error", "error": {"type": "invalid_request_error", '
     '"message": "temperature: Extra inputs are not permitted"}}', "temperature"),
    ('{"error": {"message": "Unsupported value: \'temperature\' does not support 0"}}',
     "temperature"),
    ('{"error": {"message": "Unrecognized request argument supplied: top_p"}}', "top_p"),
    ('{"error": {"message": "model not found"}}', None),
    ("not json", None),
])
def test_refused_param_reads_the_400(body, param):
    assert refused_param(body) == param


def test_new_options_leave_the_identity_of_older_runs_alone():
    from gridwm_judge.runner.evaluate import identity_options

    plain = identity_options(JudgeOptions(token_field="max_completion_tokens"))
    assert not {"reasoning_effort", "reasoning_budget", "chat_template_kwargs",
                "token_field"} & set(plain)  # so their request hashes do not change
    set_ = identity_options(JudgeOptions(reasoning_budget=8, chat_template_kwargs={"a": 1}))
    assert set_["reasoning_budget"] == 8 and set_["chat_template_kwargs"] == {"a": 1}


def test_bad_reasoning_options_are_one_line(capsys, tmp_path):
    with pytest.raises(ValueError, match="--reasoning-effort must be one of"):
        JudgeOptions(reasoning_effort="extreme")
    with pytest.raises(ValueError, match="--reasoning-budget must be an integer >= 0"):
        JudgeOptions(reasoning_budget=-1)
    with pytest.raises(SystemExit):
        main(["eval", "--dataset", "x", "--tasks", "c", "--judge", "openai:m", "--out",
              str(tmp_path / "r"), "--chat-template-kwargs", "[1]"])
    assert "expected a JSON object" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()



def test_gpt5_eval_finishes_records_what_was_sent_and_resumes_without_asking(
        api_smoke, tmp_path, capsys):
    run = tmp_path / "gpt5"
    with StubServer(refuse=GPT5, model="gpt-5-2025-08-07", fingerprint="fp_abc") as server:
        args = ["eval", "--dataset", str(api_smoke), "--out", str(run), "--no-progress",
                "--tasks", "c,e", "--judge", "openai:gpt-5", "--base-url", server.base_url,
                "--workers", "3", "--reasoning-effort", "minimal", "--reasoning-budget", "512"]
        assert main(args) == 0
        err = capsys.readouterr().err
        asked = len(server.requests)
        # resumed with the form given by flag: the hashes cover what was asked, not the form
        assert main([*args, "--token-field", "max_completion_tokens"]) == 0
        assert len(server.requests) == asked
    assert err.count("not greedy") == 1
    records = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
    assert records and {r["status"] for r in records} == {"ok"}
    assert all("temperature" not in r["sent"] for r in records)
    meta = json.loads((run / "run.json").read_text())
    sent = meta["as_sent"]
    assert sent["greedy"] is False and sent["refused_by_server"] == ["temperature"]
    assert sent["token_limit_field"] == "max_completion_tokens"
    limits = sent["fields"]["max_completion_tokens"]
    expected = sorted({meta["max_tokens"]["C"] + 512, meta["max_tokens"]["E"] + 512})
    assert limits == (expected[0] if len(expected) == 1 else expected)
    assert sent["served_models"] == ["gpt-5-2025-08-07"] and sent["fingerprints"] == ["fp_abc"]
    assert meta["judge_options"]["reasoning_effort"] == "minimal"
    assert meta["judge_options"]["reasoning_budget"] == 512
    assert meta["usage"]["rows"] == len(records)
    assert meta["usage"]["prompt_tokens"] == 11 * len(records)
    # report's "Requests as sent" row for this run (report/writer.py puts it in index.md)
    record = RunRecord.read(run / "run.json")
    table = decoding_table([SimpleNamespace(path=run, run=record)])
    [row] = [x for x in table.markdown().splitlines() if "openai:gpt-5" in x]
    assert "| **no** |" in row and "max_completion_tokens=768" in row
    assert "| temperature |" in row and "gpt-5-2025-08-07" in row

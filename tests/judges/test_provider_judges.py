"""anthropic: and gemini: backends through their official SDKs against a loopback server that
speaks each API (stub_server with api="anthropic" / "gemini"): success, 429 with Retry-After,
500, overloaded, a cut-off answer, a refusal, a malformed body, thinking, a missing key, a
key echoed back, and an eval that records what was sent and resumes without asking again."""

from __future__ import annotations

import base64
import io
import json
import time

import pytest
from PIL import Image

from gridwm_judge.cli import main
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.judges.http_judge import RunRefused
from gridwm_judge.testing.stub_server import (
    MALFORMED,
    REFUSAL,
    StubServer,
    echo_headers,
    http_error,
    ok,
    trickle,
)

pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

APIS = ("anthropic", "gemini")
KEYS = {"anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}
OVERLOADED = {"anthropic": 529, "gemini": 503}
SECRET = "sk-provider-secret-0123456789"


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)


def _req(uid, prompt, n_images=2, budget=40):
    imgs = tuple(Image.new("RGB", (12, 10), (i * 40, 200, 0)) for i in range(n_images))
    return JudgeRequest(uid, "C", prompt, imgs, budget)


def _judge(api, server, **kw):
    opts = dict(base_url=server.base_url, workers=2, retries=2, backoff_s=0.01, timeout_s=5.0)
    opts.update(kw)
    return make_judge(f"{api}:stub-model", JudgeOptions(**opts))


def _ask(api, server, *reqs, **kw):
    judge = _judge(api, server, **kw)
    try:
        return {r.uid: r for r in judge.judge(list(reqs))}, judge
    finally:
        judge.close()


def _header(server, name):
    return {k.lower(): v for k, v in server.headers[0].items()}[name]


def _images_and_text(api, body):
    if api == "anthropic":
        parts = body["messages"][0]["content"]
        imgs = [p["source"]["data"] for p in parts if p["type"] == "image"]
        return imgs, [p["text"] for p in parts if p["type"] == "text"], parts[-1]["type"]
    parts = body["contents"][0]["parts"]
    imgs = [p["inlineData"]["data"] for p in parts if "inlineData" in p]
    return imgs, [p["text"] for p in parts if "text" in p], "text" if "text" in parts[-1] else "x"


@pytest.mark.parametrize("api", APIS)
def test_success_sends_images_in_order_the_prompt_and_the_budget(api):
    with StubServer(api=api, default_reply="Yes", model="served-model-1") as server:
        out, judge = _ask(api, server, _req("u1", "Did the agent succeed?", n_images=3))
    r = out["u1"]
    assert (r.raw, r.status, r.error) == ("Yes", "ok", None)
    assert r.usage.prompt_tokens == 11 and r.served == {"model": "served-model-1"}
    [body] = server.requests
    imgs, texts, last = _images_and_text(api, body)
    assert texts == ["Did the agent succeed?"] and last == "text"
    colours = [Image.open(io.BytesIO(base64.b64decode(d))).getpixel((0, 0)) for d in imgs]
    assert colours == [(0, 200, 0), (40, 200, 0), (80, 200, 0)]
    if api == "anthropic":
        assert body["max_tokens"] == 40 and body["temperature"] == 0.0
        assert _header(server, "authorization") == f"Bearer {SECRET}"  # anthropic >= 2
        assert r.sent == {"max_tokens": 40, "temperature": 0.0}
    else:
        cfg = body["generationConfig"]
        assert cfg["maxOutputTokens"] == 40 and cfg["temperature"] == 0.0 and cfg["seed"] == 0
        assert _header(server, "x-goog-api-key") == SECRET
        assert r.sent == {"temperature": 0.0, "seed": 0, "max_output_tokens": 40}
    sending = judge.sending()
    assert "top_k" in sending["not_sent"] and "temperature" not in sending["not_sent"]


@pytest.mark.parametrize("api", APIS)
def test_429_waits_for_retry_after_then_succeeds(api):
    with StubServer(api=api) as server:
        server.script("busy", http_error(429, retry_after=0.4), ok("No"))
        start = time.monotonic()
        out, _ = _ask(api, server, _req("a", "busy"))
        took = time.monotonic() - start
    assert (out["a"].raw, out["a"].status) == ("No", "ok")
    assert server.attempts("busy") == 2 and took >= 0.4  # backoff alone would be 0.01 s


@pytest.mark.parametrize("api", APIS)
def test_500_and_overloaded_are_retried_then_recorded_as_errors(api):
    with StubServer(api=api) as server:
        server.script("flaky", http_error(500), http_error(OVERLOADED[api]), ok("Yes"))
        server.script("down", *[http_error(OVERLOADED[api])] * 5)
        out, _ = _ask(api, server, _req("a", "flaky"), _req("b", "down"))
    assert (out["a"].raw, out["a"].status) == ("Yes", "ok") and server.attempts("flaky") == 3
    assert out["b"].status == "error" and out["b"].raw is None
    assert f"HTTP {OVERLOADED[api]}" in out["b"].error and "gave up after 3" in out["b"].error
    assert server.attempts("down") == 3


@pytest.mark.parametrize("api", APIS)
def test_cut_off_refused_malformed_and_bad_request(api):
    with StubServer(api=api) as server:
        server.script("long", ok("The agent first", finish_reason="length"))
        server.script("nope", REFUSAL)
        server.script("garbage", *[MALFORMED] * 5)
        server.script("bad", http_error(400))
        out, _ = _ask(api, server, _req("a", "long"), _req("b", "nope"), _req("c", "garbage"),
                      _req("d", "bad"))
    assert (out["a"].status, out["a"].raw) == ("truncated", "The agent first")
    assert out["b"].status == "empty" and out["b"].raw is None
    assert out["b"].finish_reason == ("refusal" if api == "anthropic" else "SAFETY")
    assert out["c"].status == "error" and "malformed" in out["c"].error
    assert server.attempts("garbage") == 3
    assert out["d"].status == "error" and "HTTP 400" in out["d"].error
    assert server.attempts("bad") == 1  # not retried


@pytest.mark.parametrize("api", APIS)
def test_thinking_budget_is_added_to_the_limit_and_kept_apart(api):
    with StubServer(api=api) as server:
        server.script("think", ok("Yes", reasoning="the key was taken", reasoning_tokens=300))
        out, judge = _ask(api, server, _req("a", "think", budget=40), reasoning_budget=2048)
    r = out["a"]
    assert (r.raw, r.reasoning, r.usage.reasoning_tokens) == ("Yes", "the key was taken", 300)
    [body] = server.requests
    if api == "anthropic":
        assert body["max_tokens"] == 40 + 2048 and "temperature" not in body
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert "temperature" in judge.sending()["not_sent"]
    else:
        cfg = body["generationConfig"]
        assert cfg["maxOutputTokens"] == 40 + 2048
        # the SDK sends this nested object in proto field names, which the API also reads
        thinking = {k.replace("_", "").lower(): v for k, v in cfg["thinkingConfig"].items()}
        assert thinking == {"thinkingbudget": 2048, "includethoughts": True}


@pytest.mark.parametrize("api", APIS)
def test_a_trickling_server_is_cut_at_the_deadline(api):
    with StubServer(api=api) as server:
        server.script("drip", trickle(0.2))
        start = time.monotonic()
        out, _ = _ask(api, server, _req("a", "drip"), timeout_s=1.0, retries=0)
        took = time.monotonic() - start
    assert out["a"].status == "error" and "timeout" in out["a"].error
    assert 0.9 < took < 5, took  # the whole reply would take ~40 s


@pytest.mark.parametrize("api", APIS)
def test_a_refused_connection_stops_the_run_until_a_server_answered(api):
    """Refused before anything answered: nothing to retry against, the run stops in one
    line (once a server has answered, it is retried: tests/judges/test_faults_http.py)."""
    with StubServer(api=api) as server:
        url = server.base_url  # the port is closed once the server stops
    judge = make_judge(f"{api}:m", JudgeOptions(base_url=url, retries=1, backoff_s=0.01,
                                                timeout_s=2.0))
    with pytest.raises(RunRefused, match=f"{api}:m: cannot reach .*the connection was refused"):
        list(judge.judge([_req("a", "hi")]))
    judge.close()


def test_structured_output_where_the_api_has_it():
    choice = JudgeRequest("c", "C", "yes or no?", (), 40)
    json_item = JudgeRequest("e", "E", "which?", (), 40)
    with StubServer(api="gemini") as server:
        out, _ = _ask("gemini", server, choice, structured=True)
    cfg = server.requests[0]["generationConfig"]
    assert cfg["responseMimeType"] == "text/x.enum"
    assert cfg["responseSchema"]["enum"] == ["Yes", "No"] and out["c"].status == "ok"
    with StubServer(api="anthropic") as server:
        out, judge = _ask("anthropic", server, json_item, choice, structured=True)
    bodies = {b["messages"][0]["content"][-1]["text"]: b for b in server.requests}
    fmt = bodies["which?"]["output_config"]["format"]
    assert fmt["type"] == "json_schema" and fmt["schema"]["required"] == ["answer"]
    assert "output_config" not in bodies["yes or no?"]  # no choice constraint in this API
    assert judge.sending()["structured"] == "JSON-answer tasks only"


def test_claude_refusing_temperature_is_learned_and_recorded_not_greedy():
    with StubServer(api="anthropic", refuse=("temperature",)) as server:
        out, judge = _ask("anthropic", server, *[_req(f"u{i}", f"q{i}") for i in range(6)])
    assert {r.status for r in out.values()} == {"ok"}
    accepted = [b for b in server.requests if "temperature" not in b]
    assert len(accepted) == 6 and len(server.requests) - 6 <= 2  # one 400 per worker at most
    assert judge.sending()["refused_by_server"] == ["temperature"]
    assert out["u0"].sent == {"max_tokens": 40}


@pytest.mark.parametrize("api", APIS)
def test_a_missing_key_is_one_line_before_any_request(api, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with StubServer(api=api) as server:
        with pytest.raises(ValueError, match=f"needs an API key: set {KEYS[api]}"):
            _judge(api, server)
    assert server.requests == []


def test_google_api_key_is_taken_too(monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key-0123456789")
    with StubServer(api="gemini") as server:
        out, _ = _ask("gemini", server, _req("a", "hi"))
    assert out["a"].status == "ok" and _header(server, "x-goog-api-key") == "g-key-0123456789"


@pytest.mark.parametrize("api", APIS)
def test_an_echoed_key_never_reaches_the_error_text(api):
    with StubServer(api=api) as server:
        server.script("leak", echo_headers(400))
        out, _ = _ask(api, server, _req("a", "leak"))
        server.script("bad-key", echo_headers(401))
        with pytest.raises(RunRefused, match="the key was refused") as refused:
            _ask(api, server, _req("b", "bad-key"))
    assert out["a"].status == "error" and "HTTP 400" in out["a"].error
    assert SECRET not in out["a"].error and SECRET not in str(refused.value)


def test_too_many_images_for_claude_is_refused_before_sending():
    with StubServer(api="anthropic") as server:
        with pytest.raises(ValueError, match="at most 100 per request"):
            _judge("anthropic", server, max_images=101)
        big = JudgeRequest("a", "C", "big", (Image.new("RGB", (8001, 2)),), 40)
        out, _ = _ask("anthropic", server, big)
    assert out["a"].status == "error" and "8001x2 px" in out["a"].error
    assert "--max-pixels" in out["a"].error and server.requests == []



@pytest.mark.parametrize("api", APIS)
def test_eval_records_what_was_sent_errors_are_not_answers_and_resume_asks_the_rest(
        api, api_smoke, tmp_path, capsys):
    run = tmp_path / api
    with StubServer(api=api, model=f"{api}-served") as server:
        server.script("", *[http_error(400)])  # the first request fails for good
        args = ["eval", "--dataset", str(api_smoke), "--out", str(run), "--no-progress",
                "--tasks", "c", "--judge", f"{api}:m", "--base-url", server.base_url,
                "--workers", "1", "--retries", "0"]
        assert main(args) == 1  # one errored request remains
        first = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
        asked = len(server.requests)
        assert main(args) == 0  # asks only the errored one again
        assert len(server.requests) == asked + 1
        assert main(args) == 0 and len(server.requests) == asked + 1  # nothing left
    capsys.readouterr()
    assert [r["status"] for r in first].count("error") == 1
    records = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
    assert {r["status"] for r in records} == {"ok"} and len(records) == len(first)
    assert all(r["served"] == {"model": f"{api}-served"} for r in records)
    meta = json.loads((run / "run.json").read_text())
    sent = meta["as_sent"]
    assert sent["greedy"] is True and sent["fields"]["temperature"] == 0.0
    assert sent["served_models"] == [f"{api}-served"] and "top_k" in sent["not_sent"]
    assert meta["usage"] == {"rows": len(records), "prompt_tokens": 11 * len(records),
                             "completion_tokens": len(records), "reasoning_tokens": 0}
    assert SECRET not in (run / "run.json").read_text()
    assert SECRET not in (run / "predictions.jsonl").read_text()

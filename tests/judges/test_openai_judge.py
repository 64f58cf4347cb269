"""openai: backend against a real HTTP server on 127.0.0.1 (canned, 429, 500, slow, malformed,
reasoning models, an echoed key, close during a request)."""

from __future__ import annotations

import base64
import io
import threading
import time

import pytest
from PIL import Image

from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.judges.http_judge import RunRefused
from gridwm_judge.judges.openai_http import RateLimiter, chat_body, parse_completion
from gridwm_judge.testing.stub_server import (
    MALFORMED,
    NO_CHOICES,
    StubServer,
    echo_headers,
    http_error,
    ok,
    slow,
    trickle,
)


def _req(uid: str, prompt: str, n_images: int = 1, max_tokens: int = 256) -> JudgeRequest:
    imgs = tuple(Image.new("RGB", (12, 10), (i * 40, 200, 0)) for i in range(n_images))
    return JudgeRequest(uid, "C", prompt, imgs, max_tokens)


def _judge(server, **kw):
    opts = dict(base_url=server.base_url, workers=4, retries=3, backoff_s=0.01, timeout_s=5.0)
    opts.update(kw)
    return make_judge("openai:stub-model", JudgeOptions(**opts))


@pytest.fixture()
def server():
    with StubServer(default_reply="Yes") as s:
        yield s


def test_canned_completion_and_request_shape(server, monkeypatch):
    monkeypatch.setenv("GRIDWM_API_KEY", "sk-test-123")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = _judge(server, seed=7)
    [resp] = list(judge.judge([_req("u1", "Did it work?", n_images=2, max_tokens=33)]))
    judge.close()
    assert (resp.uid, resp.raw, resp.status, resp.error) == ("u1", "Yes", "ok", None)
    assert resp.usage.prompt_tokens == 11 and resp.latency_s > 0
    body = server.requests[0]
    assert body["model"] == "stub-model" and body["temperature"] == 0.0
    assert body["max_tokens"] == 33 and body["seed"] == 7
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]
    url = parts[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert decoded.size == (12, 10) and decoded.getpixel((0, 0)) == (0, 200, 0)
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"


def test_retries_429_and_500_then_succeeds(server):
    server.script("flaky429", http_error(429, retry_after=0.01), http_error(429), ok("No"))
    server.script("flaky500", http_error(500), http_error(503), ok("Success"))
    judge = _judge(server)
    out = {r.uid: r for r in judge.judge([_req("a", "flaky429"), _req("b", "flaky500")])}
    judge.close()
    assert (out["a"].raw, out["a"].status) == ("No", "ok")
    assert (out["b"].raw, out["b"].status) == ("Success", "ok")
    assert server.attempts("flaky429") == 3 and server.attempts("flaky500") == 3


def test_final_failures_are_recorded_as_errors(server):
    server.script("always500", *[http_error(500)] * 10)
    server.script("garbage", *[MALFORMED] * 10)
    server.script("empty-choices", *[NO_CHOICES] * 10)
    server.script("bad-request", http_error(400))
    judge = _judge(server, retries=2)
    reqs = [
        _req("x", "always500"),
        _req("y", "garbage"),
        _req("z", "empty-choices"),
        _req("w", "bad-request"),
        _req("fine", "plain"),
    ]
    out = {r.uid: r for r in judge.judge(reqs)}
    judge.close()
    for uid in ("x", "y", "z"):
        assert out[uid].status == "error" and out[uid].raw is None
        assert "gave up after 3 attempts" in out[uid].error
    assert "HTTP 500" in out["x"].error and "malformed" in out["y"].error
    assert out["w"].status == "error" and "HTTP 400" in out["w"].error
    assert server.attempts("bad-request") == 1  # 4xx other than 429 is not retried
    assert out["fine"].status == "ok"


def test_timeout_is_retried_then_recorded(server):
    server.script("nap-once", slow(1.5), ok("Fail"))
    server.script("always-slow", *[slow(1.5)] * 5)
    judge = _judge(server, timeout_s=0.5, retries=1)
    out = {r.uid: r for r in judge.judge([_req("s", "nap-once"), _req("t", "always-slow")])}
    judge.close()
    assert (out["s"].raw, out["s"].status) == ("Fail", "ok")
    assert out["t"].status == "error" and "timeout" in out["t"].error


def test_truncated_and_empty_status(server):
    server.script("long", ok("The agent first walks", finish_reason="length"))
    server.script("blank", ok("   "))
    judge = _judge(server)
    out = {r.uid: r for r in judge.judge([_req("l", "long"), _req("b", "blank")])}
    judge.close()
    assert out["l"].status == "truncated" and out["l"].raw == "The agent first walks"
    assert out["b"].status == "empty"


def test_workers_run_concurrently_and_results_stream(server):
    server.delay_s = 0.1
    judge = _judge(server, workers=8)
    out = list(judge.judge(_req(f"u{i}", f"p{i}") for i in range(16)))
    judge.close()
    assert sorted(r.uid for r in out) == sorted(f"u{i}" for i in range(16))
    assert server.max_active >= 4  # requests were in flight together (speed: bench_judges.py)


def test_rate_limit_spaces_request_starts(server):
    judge = _judge(server, workers=4, rps=20.0)
    start = time.perf_counter()
    list(judge.judge(_req(f"r{i}", f"q{i}") for i in range(6)))
    judge.close()
    assert time.perf_counter() - start >= 5 / 20.0 * 0.9
    limiter = RateLimiter(None)
    t0 = time.perf_counter()
    for _ in range(100):
        limiter.wait()
    assert time.perf_counter() - t0 < 0.05


def test_structured_outputs_extra_parameter():
    req = JudgeRequest("u", "D", "p", (), 8)
    assert "structured_outputs" not in chat_body("m", req)
    assert chat_body("m", req, structured=True)["structured_outputs"] == {
        "choice": ["Success", "Fail"]
    }


def test_missing_base_url_is_a_clear_error():
    with pytest.raises(ValueError, match="needs --base-url"):
        make_judge("openai:some-model", JudgeOptions())


def test_request_body_is_explicitly_greedy():
    body = chat_body("m", JudgeRequest("u", "C", "p", (), 256))
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0
    assert body["frequency_penalty"] == 0.0 and body["presence_penalty"] == 0.0
    assert body["max_tokens"] == 256


def test_reasoning_models(server):
    server.script("field", ok("Yes", reasoning="The door opened.", reasoning_tokens=4))
    server.script("old-field", ok("No", reasoning="Key never used.",
                                  reasoning_key="reasoning_content"))
    server.script("budget", ok(None, finish_reason="length", reasoning="Let me think step"))
    server.script("inline", ok("<think>Agent reached goal.</think>\n\nSuccess"))
    server.script("opened-in-prompt", ok("goal reached\n</think>\nYes"))
    server.script("cut-think", ok("<think>first the agent", finish_reason="length"))
    server.script("null-stop", ok(None))
    judge = _judge(server)
    keys = ("field", "old-field", "budget", "inline", "opened-in-prompt", "cut-think",
            "null-stop")
    out = {r.uid: r for r in judge.judge([_req(k, k) for k in keys])}
    judge.close()
    got = {k: (out[k].raw, out[k].status, out[k].reasoning) for k in keys}
    assert got == {
        "field": ("Yes", "ok", "The door opened."),
        "old-field": ("No", "ok", "Key never used."),
        "budget": (None, "truncated", "Let me think step"),
        "inline": ("Success", "ok", "Agent reached goal."),
        "opened-in-prompt": ("Yes", "ok", "goal reached"),
        "cut-think": ("", "truncated", "first the agent"),
        "null-stop": (None, "empty", None),
    }
    assert out["field"].usage.reasoning_tokens == 4
    assert out["old-field"].usage.reasoning_tokens is None


def test_parse_completion_refuses_bodies_of_the_wrong_shape():
    with pytest.raises(ValueError, match="no choices"):
        parse_completion({"choices": []})
    with pytest.raises(ValueError, match="not text"):
        parse_completion({"choices": [{"message": {"content": ["Yes"]}}]})
    done = parse_completion({"choices": [{"message": {"content": "<think>x</think>No",
                                                      "reasoning": "y"}}]})
    assert (done.answer, done.reasoning, done.status) == ("No", "y\n\nx", "ok")


def test_error_text_never_carries_the_key(server, monkeypatch):
    monkeypatch.setenv("GRIDWM_API_KEY", "sk-echoed-999")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script("echo", echo_headers(400))
    judge = _judge(server)
    [resp] = list(judge.judge([_req("e", "echo")]))
    judge.close()
    assert server.headers[0]["Authorization"] == "Bearer sk-echoed-999"
    assert resp.status == "error" and "HTTP 400" in resp.error
    assert "sk-echoed-999" not in resp.error and "***" in resp.error
    # a 401 refuses the whole run in one line, which carries no key either
    server.script("echo401", echo_headers(401))
    judge = _judge(server)
    with pytest.raises(RunRefused, match="the key was refused") as refused:
        list(judge.judge([_req("f", "echo401")]))
    judge.close()
    assert "sk-echoed-999" not in str(refused.value) and "***" in str(refused.value)


def test_close_interrupts_a_request_in_flight(server):
    server.script("hang", trickle(1.0))
    judge = _judge(server, timeout_s=60.0, retries=3)
    gen = judge.judge([_req("h", "hang")])
    timer = threading.Timer(0.5, judge.close)
    timer.start()
    start = time.perf_counter()
    [resp] = list(gen)
    assert time.perf_counter() - start < 2.0
    assert resp.status == "error" and "cancelled" in resp.error

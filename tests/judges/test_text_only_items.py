"""Every backend sends a text-only item (Oracle-State's state arm) as text alone: the openai
backend against the loopback stub server (also through eval on a built oracle_state dataset),
the transformers backend with a tiny random model, the vLLM request builders on CPU."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from PIL import Image

from gridwm_judge.cli import main
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.judges.openai_http import chat_body
from gridwm_judge.judges.vllm_engine import VLLMJudge, engine_kwargs
from gridwm_judge.judges.vllm_engine import chat_messages as vllm_messages
from gridwm_judge.runner import EvalConfig, run_eval
from gridwm_judge.task_table import OS_TASK_TYPES, STAGED_SCHEMA
from gridwm_judge.testing.stub_server import StubServer

ANSWER = json.dumps({"task_type": OS_TASK_TYPES[0], "objective": "goal_green",
                     "verdict": "Success"})


def _text(uid="t", prompt="Reference trajectory state table:\n1. agent (1, 1)"):
    return JudgeRequest(uid, "OS", prompt, (), 64)


def _image(uid="i", prompt="two storyboards"):
    return JudgeRequest(uid, "OS", prompt,
                        (Image.new("RGB", (40, 40), (0, 200, 0)),
                         Image.new("RGB", (48, 40), (200, 0, 0))), 64)


def _parts(body):
    return [p["type"] for p in body["messages"][0]["content"]]


def test_openai_body_of_a_text_only_item_is_text_alone():
    body = chat_body("m", _text(), structured=True)
    assert _parts(body) == ["text"]
    assert body["messages"][0]["content"][0]["text"].startswith("Reference trajectory")
    assert body["structured_outputs"] == {"json": json.dumps(STAGED_SCHEMA)}
    assert _parts(chat_body("m", _image())) == ["image_url", "image_url", "text"]


def test_openai_judge_answers_text_only_items_over_http():
    with StubServer(default_reply=ANSWER) as server:
        judge = make_judge("openai:stub", JudgeOptions(base_url=server.base_url, workers=2,
                                                       retries=0, timeout_s=5.0))
        out = {r.uid: r for r in judge.judge([_text("t1"), _image("i1"), _text("t2")])}
        judge.close()
        bodies = list(server.requests)
    assert {u: (r.status, r.raw) for u, r in out.items()} == {
        u: ("ok", ANSWER) for u in ("t1", "i1", "t2")}
    assert sorted(_parts(b).count("image_url") for b in bodies) == [0, 0, 2]


@pytest.fixture(scope="module")
def smoke_os(tmp_path_factory):
    out = tmp_path_factory.mktemp("os") / "data"
    assert main(["build", "--profile", "smoke", "--configs", "oracle_state", "--out", str(out),
                 "--num-proc", "1"]) == 0
    return out


def test_eval_sends_the_state_arm_without_images(smoke_os, tmp_path):
    with StubServer(default_reply=ANSWER) as server:
        summary = run_eval(EvalConfig(
            dataset=str(smoke_os), tasks=("OS",), judge="openai:stub", out=tmp_path / "run",
            options=JudgeOptions(base_url=server.base_url, workers=2, retries=0,
                                 timeout_s=10.0, structured=True),
            progress=False))
        bodies = list(server.requests)
    assert summary.done == len(bodies) == 18
    text_only = [b for b in bodies if "image_url" not in _parts(b)]
    assert len(text_only) == 6  # the state arm: 2 queries x 3 variants
    assert all("state table" in b["messages"][0]["content"][0]["text"] for b in text_only)
    assert all(_parts(b).count("image_url") == 2 for b in bodies if b not in text_only)
    assert all(b["structured_outputs"] == {"json": json.dumps(STAGED_SCHEMA)} for b in bodies)
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text()
               .splitlines()]
    assert {(r["status"], r["parse_mode"]) for r in records} == {("ok", "strict")}


def test_transformers_judge_on_text_only_and_mixed_batches(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from gridwm_judge.judges.hf_transformers import chat_messages
    from gridwm_judge.testing.tiny_model import build_tiny_vlm

    assert [p["type"] for p in chat_messages(_text())[0]["content"]] == ["text"]
    tiny = build_tiny_vlm(tmp_path / "vlm", hidden_size=32, layers=2)
    reqs = [_text("t0", "same words"), _image("i1", "same words"),
            _text("t2", "another text-only item")]
    reqs = [JudgeRequest(r.uid, r.task, r.prompt, r.images, 4) for r in reqs]
    mixed = {r.uid: r for r in make_judge(f"hf:{tiny}", JudgeOptions(batch_size=3)).judge(reqs)}
    alone = {r.uid: r for r in make_judge(f"hf:{tiny}", JudgeOptions(batch_size=1)).judge(reqs)}
    for uid, resp in mixed.items():
        assert resp.status in ("ok", "truncated", "empty"), resp.error
        assert (resp.raw, resp.usage.prompt_tokens) == (alone[uid].raw,
                                                        alone[uid].usage.prompt_tokens)
    # same text: the image placeholders were expanded for the image item only
    assert mixed["i1"].usage.prompt_tokens > mixed["t0"].usage.prompt_tokens


class _Engine:
    def __init__(self):
        self.calls = []

    def chat(self, conversations, params):
        self.calls.append((conversations, params))
        done = SimpleNamespace(text=ANSWER, token_ids=[1, 2], finish_reason="stop")
        return [SimpleNamespace(outputs=[done], prompt_token_ids=[0] * 9) for _ in conversations]


def test_vllm_builders_send_text_only_items_as_text():
    [turn] = vllm_messages(_text())
    assert turn["content"] == [{"type": "text", "text": _text().prompt}]
    assert engine_kwargs("m", JudgeOptions(max_images=1))["limit_mm_per_prompt"] == {
        "image": 1, "video": 0}
    engine = _Engine()
    judge = VLLMJudge("m", JudgeOptions(structured=True), "vllm:m", engine=engine)
    out = list(judge.judge([_text("a"), _image("b")]))
    assert [(r.uid, r.status, r.raw) for r in out] == [("a", "ok", ANSWER), ("b", "ok", ANSWER)]
    convs, params = engine.calls[0]
    assert [p["type"] for p in convs[0][0]["content"]] == ["text"]
    assert [p["type"] for p in convs[1][0]["content"]] == ["image_pil", "image_pil", "text"]
    assert params[0]["structured_outputs"] == {"json": json.dumps(STAGED_SCHEMA)}

"""vllm: backend as plain data (engine kwargs, sampling params, messages) and its seam, on CPU."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from PIL import Image

from gridwm_judge.judges import DEFAULT_MAX_TOKENS, JudgeOptions, JudgeRequest
from gridwm_judge.judges.vllm_engine import (
    VLLMJudge,
    chat_messages,
    engine_kwargs,
    sampling_kwargs,
    structured_spec,
)


def _req(uid, task="C", n=2, max_tokens=256):
    return JudgeRequest(
        uid, task, f"prompt {uid}", tuple(Image.new("RGB", (8, 8)) for _ in range(n)), max_tokens
    )


def test_engine_kwargs_sized_to_task_and_limits():
    kw = engine_kwargs(
        "Qwen/Qwen2.5-VL-7B-Instruct",
        JudgeOptions(max_images=12, max_model_len=16384, max_pixels=512 * 512, seed=5),
    )
    assert kw["model"] == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert kw["limit_mm_per_prompt"] == {"image": 12}
    assert kw["max_model_len"] == 16384 and kw["tensor_parallel_size"] == 1 and kw["seed"] == 5
    assert kw["mm_processor_kwargs"] == {"max_pixels": 262144}
    assert "mm_processor_kwargs" not in engine_kwargs("m", JudgeOptions())


@pytest.mark.parametrize("task", "ABCDE")
def test_sampling_is_greedy_with_paper_budget(task):
    kw = sampling_kwargs(task, DEFAULT_MAX_TOKENS[task])
    assert kw == {"temperature": 0.0, "max_tokens": DEFAULT_MAX_TOKENS[task], "seed": 0}
    assert DEFAULT_MAX_TOKENS == {"A": 512, "B": 2048, "C": 256, "D": 256, "E": 256}


def test_structured_outputs_match_each_task_format():
    assert sampling_kwargs("C", 256, structured=True)["structured_outputs"] == {
        "choice": ["Yes", "No"]
    }
    assert structured_spec("D") == {"choice": ["Success", "Fail"]}
    assert structured_spec("A") == {"choice": ["A", "B", "C", "D"]}
    e_schema = json.loads(structured_spec("E")["json"])
    assert e_schema["required"] == ["answer"]
    b_schema = json.loads(structured_spec("B")["json"])
    assert set(b_schema["required"]) == {"agent", "front_cell", "visible_objects"}
    with pytest.raises(ValueError, match="unknown task 'Z'"):
        structured_spec("Z")


def test_chat_messages_put_every_image_before_the_prompt():
    req = _req("u", n=3)
    [turn] = chat_messages(req)
    assert turn["role"] == "user"
    assert [p["type"] for p in turn["content"]] == ["image_pil"] * 3 + ["text"]
    assert turn["content"][0]["image_pil"] is req.images[0]
    assert turn["content"][-1]["text"] == "prompt u"


class FakeEngine:
    """Stands in for the vLLM seam: records calls, returns RequestOutput-shaped objects."""

    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def chat(self, conversations, params):
        self.calls.append((conversations, params))
        if self.fail:
            raise RuntimeError("CUDA out of memory")
        outs = []
        for conv, p in zip(conversations, params, strict=True):
            long = "long" in conv[0]["content"][-1]["text"]
            completion = SimpleNamespace(
                text="The agent" if long else "Yes",
                token_ids=[1] * (p["max_tokens"] if long else 1),
                finish_reason="length" if long else "stop",
            )
            outs.append(SimpleNamespace(outputs=[completion], prompt_token_ids=[0] * 40))
        return outs


def test_judge_batches_and_converts_outputs():
    engine = FakeEngine()
    judge = VLLMJudge("m", JudgeOptions(structured=True), "vllm:m", engine=engine)
    reqs = [_req("a"), _req("long", task="D", max_tokens=7)] + [_req(f"r{i}") for i in range(70)]
    out = {r.uid: r for r in judge.judge(reqs)}
    assert len(out) == 72 and len(engine.calls) == 2  # chunks of 64
    assert (out["a"].raw, out["a"].status, out["a"].usage.prompt_tokens) == ("Yes", "ok", 40)
    assert out["long"].status == "truncated" and out["long"].usage.completion_tokens == 7
    params = engine.calls[0][1]
    assert params[1]["structured_outputs"] == {"choice": ["Success", "Fail"]}
    assert judge.settings()["structured"] is True


def test_engine_failure_becomes_error_records():
    judge = VLLMJudge("m", JudgeOptions(), "vllm:m", engine=FakeEngine(fail=True))
    out = list(judge.judge([_req("a"), _req("b")]))
    assert [r.status for r in out] == ["error", "error"]
    assert all("CUDA out of memory" in r.error for r in out)

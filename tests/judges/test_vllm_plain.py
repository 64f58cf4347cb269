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
    response_from_output,
    sampling_kwargs,
    structured_spec,
)


def _req(uid, task="C", n=2, max_tokens=256):
    return JudgeRequest(
        uid, task, f"prompt {uid}", tuple(Image.new("RGB", (8, 8)) for _ in range(n)), max_tokens
    )


# Read from the vLLM 0.34.0 wheel (pip download --no-deps vllm==0.34.0, not installed):
# vllm/sampling_params.py SamplingParams / StructuredOutputsParams fields, and the
# vllm/engine/arg_utils.py EngineArgs fields that LLM(**kwargs) accepts.
VLLM_SAMPLING_FIELDS = {
    "n", "presence_penalty", "frequency_penalty", "repetition_penalty", "temperature",
    "top_p", "top_k", "min_p", "seed", "stop", "stop_token_ids", "ignore_eos", "max_tokens",
    "min_tokens", "logprobs", "skip_special_tokens", "structured_outputs",
}  # fmt: skip
VLLM_STRUCTURED_FIELDS = {"json", "regex", "choice", "grammar", "json_object"}
VLLM_ENGINE_FIELDS = {
    "model", "limit_mm_per_prompt", "max_model_len", "tensor_parallel_size", "seed",
    "generation_config", "mm_processor_kwargs", "trust_remote_code", "dtype",
}  # fmt: skip


def test_engine_kwargs_take_context_from_model_and_ignore_its_generation_defaults():
    kw = engine_kwargs(
        "Qwen/Qwen2.5-VL-7B-Instruct",
        JudgeOptions(max_images=12, max_pixels=512 * 512, seed=5, tensor_parallel_size=4),
    )
    assert kw["model"] == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert kw["limit_mm_per_prompt"] == {"image": 12, "video": 0}  # images only
    assert "max_model_len" not in kw  # vLLM reads the model's own context length
    assert kw["tensor_parallel_size"] == 4 and kw["seed"] == 5
    assert kw["generation_config"] == "vllm"
    assert "mm_processor_kwargs" not in kw  # --max-pixels scales images before the engine
    assert engine_kwargs("m", JudgeOptions(max_model_len=8192))["max_model_len"] == 8192
    assert set(kw) <= VLLM_ENGINE_FIELDS
    with pytest.raises(ValueError, match="tensor-parallel-size must be an integer >= 1, got 0"):
        engine_kwargs("m", JudgeOptions(tensor_parallel_size=0))


@pytest.mark.parametrize("task", "ABCDE")
def test_sampling_is_greedy_with_paper_budget(task):
    kw = sampling_kwargs(task, DEFAULT_MAX_TOKENS[task])
    assert kw["temperature"] == 0.0 and kw["max_tokens"] == DEFAULT_MAX_TOKENS[task]
    assert kw["repetition_penalty"] == 1.0 and kw["top_k"] == 0 and kw["top_p"] == 1.0
    assert kw["presence_penalty"] == kw["frequency_penalty"] == 0.0 and kw["seed"] == 0
    assert set(kw) <= VLLM_SAMPLING_FIELDS
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
    for task in "ABCDE":
        assert set(structured_spec(task)) <= VLLM_STRUCTURED_FIELDS


def test_builders_against_installed_vllm_signatures():
    """Where vLLM is installed (a GPU machine), its own classes accept what the builders make."""
    import dataclasses
    import inspect

    vllm = pytest.importorskip("vllm")
    from vllm.engine.arg_utils import EngineArgs
    from vllm.sampling_params import StructuredOutputsParams

    params = set(inspect.signature(vllm.SamplingParams).parameters)
    assert set(sampling_kwargs("C", 8, structured=True)) <= params
    assert set(structured_spec("B")) <= {
        f.name for f in dataclasses.fields(StructuredOutputsParams)
    }
    engine_fields = {f.name for f in dataclasses.fields(EngineArgs)}
    assert set(engine_kwargs("m", JudgeOptions(max_model_len=64))) <= engine_fields


def test_think_block_is_reasoning_and_truncated_thinking_is_truncated():
    req = _req("r")
    think = SimpleNamespace(
        text="<think>the key is gone</think>Yes", token_ids=[5, 6, 99, 7], finish_reason="stop"
    )
    out = SimpleNamespace(outputs=[think], prompt_token_ids=[0] * 10)
    resp = response_from_output(req, out, 0.1, think_end_id=99)
    assert (resp.raw, resp.reasoning, resp.status) == ("Yes", "the key is gone", "ok")
    assert resp.usage.reasoning_tokens == 3 and resp.usage.completion_tokens == 4
    cut = SimpleNamespace(text="<think>step 1, step 2", token_ids=[5] * 8, finish_reason="length")
    resp = response_from_output(req, SimpleNamespace(outputs=[cut], prompt_token_ids=[0]), 0.1, 99)
    assert (resp.raw, resp.reasoning, resp.status) == ("", "step 1, step 2", "truncated")
    assert resp.usage.reasoning_tokens == 8


def test_chat_messages_put_every_image_before_the_prompt():
    req = _req("u", n=3)
    [turn] = chat_messages(req)
    assert turn["role"] == "user"
    assert [p["type"] for p in turn["content"]] == ["image_pil"] * 3 + ["text"]
    assert turn["content"][0]["image_pil"] is req.images[0]
    assert turn["content"][-1]["text"] == "prompt u"
    big = JudgeRequest("b", "C", "p", (Image.new("RGB", (400, 200)),), 8)
    assert chat_messages(big, max_pixels=20_000)[0]["content"][0]["image_pil"].size == (200, 100)


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
    settings = judge.settings()
    assert settings["structured"] is True and settings["decoding"]["strategy"] == "greedy"
    assert settings["engine"]["generation_config"] == "vllm"


def test_engine_failure_becomes_error_records():
    judge = VLLMJudge("m", JudgeOptions(), "vllm:m", engine=FakeEngine(fail=True))
    out = list(judge.judge([_req("a"), _req("b")]))
    assert [r.status for r in out] == ["error", "error"]
    assert all("CUDA out of memory" in r.error for r in out)

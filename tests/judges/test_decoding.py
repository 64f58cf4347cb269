"""The one greedy decoding configuration, as each backend's API receives it."""

from __future__ import annotations

import json

import pytest

from gridwm_judge.judges.decoding import (
    GREEDY,
    hf_generate_kwargs,
    openai_request_fields,
    vllm_sampling_kwargs,
)
from gridwm_judge.parsing import split_reasoning


def test_greedy_has_no_sampling_and_no_penalties():
    assert GREEDY.temperature == 0.0 and GREEDY.top_p == 1.0 and GREEDY.top_k == 0
    assert GREEDY.repetition_penalty == 1.0
    assert GREEDY.presence_penalty == GREEDY.frequency_penalty == 0.0
    settings = GREEDY.settings()
    assert settings["strategy"] == "greedy" and json.loads(json.dumps(settings)) == settings


def test_hf_kwargs_set_every_logits_changing_default_explicitly():
    kw = hf_generate_kwargs(256)
    assert kw["max_new_tokens"] == 256 and kw["do_sample"] is False and kw["num_beams"] == 1
    assert kw["repetition_penalty"] == 1.0 and kw["no_repeat_ngram_size"] == 0
    assert kw["min_new_tokens"] == 0


def test_backends_read_the_same_values():
    v, o = vllm_sampling_kwargs(512), openai_request_fields(512)
    for key in ("temperature", "top_p", "presence_penalty", "frequency_penalty", "max_tokens"):
        assert v[key] == o[key]
    assert v["repetition_penalty"] == hf_generate_kwargs(512)["repetition_penalty"] == 1.0
    assert o == {
        "temperature": 0.0,
        "top_p": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "max_tokens": 512,
    }


@pytest.mark.parametrize(
    ("text", "reasoning", "answer"),
    [
        ("<think>look at frame 2</think>\n\nYes", "look at frame 2", "Yes"),
        ("the door opens</think>No", "the door opens", "No"),  # opening tag in the prompt
        ("<think>still thinking", "still thinking", ""),  # budget ran out while thinking
        ("Yes", None, "Yes"),
        (None, None, None),
    ],
)
def test_backends_split_reasoning_off_the_answer(text, reasoning, answer):
    assert split_reasoning(text) == (reasoning, answer)

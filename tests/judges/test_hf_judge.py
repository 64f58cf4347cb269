"""hf: backend end to end on CPU with a tiny random Idefics3-style model built in the test."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402
from smoke_data import write_smoke_dataset  # noqa: E402

from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge  # noqa: E402
from gridwm_judge.judges.hf_transformers import batches, chat_messages  # noqa: E402
from gridwm_judge.judges.images import fit_pixels  # noqa: E402
from gridwm_judge.runner import EvalConfig, run_eval  # noqa: E402
from gridwm_judge.testing.tiny_model import build_tiny_vlm  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny") / "vlm", hidden_size=32, layers=2)


def _reqs(n, max_tokens=6):
    colours = [(0, 200, 0), (200, 0, 0), (30, 30, 30), (100, 100, 100)]
    return [
        JudgeRequest(
            f"u{i}",
            "C",
            "Did the trajectory satisfy this goal?" + " Answer." * (i % 3),
            tuple(
                Image.new("RGB", (40 + 8 * i, 40), colours[(i + k) % 4]) for k in range(1 + i % 3)
            ),
            max_tokens,
        )
        for i in range(n)
    ]


def test_batches_split_on_size_and_budget():
    reqs = _reqs(5)
    reqs[3] = JudgeRequest("x", "A", "p", (), 99)
    sizes = [[r.uid for r in b] for b in batches(reqs, 2)]
    assert sizes == [["u0", "u1"], ["u2"], ["x"], ["u4"]]
    content = chat_messages(reqs[2])[0]["content"]
    assert [p["type"] for p in content] == ["image"] * 3 + ["text"]
    assert [p["image"] for p in content[:3]] == list(reqs[2].images)
    scaled = chat_messages(reqs[2], max_pixels=400)[0]["content"][0]["image"]
    assert scaled.width * scaled.height <= 400


def test_fit_pixels_only_scales_down():
    img = Image.new("RGB", (400, 200))
    small = fit_pixels(img, 20_000)
    assert small.width * small.height <= 20_000 and small.size == (200, 100)
    assert fit_pixels(img, None) is img and fit_pixels(img, 10**6) is img
    with pytest.raises(ValueError, match="max_pixels must be a positive pixel count, got 0"):
        fit_pixels(img, 0)


def test_batched_left_padded_generation_matches_one_by_one(tiny):
    reqs = _reqs(3, max_tokens=4)
    batched = {r.uid: r for r in make_judge(f"hf:{tiny}", JudgeOptions(batch_size=3)).judge(reqs)}
    single = {r.uid: r for r in make_judge(f"hf:{tiny}", JudgeOptions(batch_size=1)).judge(reqs)}
    assert set(batched) == {r.uid for r in reqs}
    for uid, resp in batched.items():
        assert resp.status in ("ok", "truncated", "empty"), resp.error
        assert resp.raw == single[uid].raw  # left padding does not change greedy output
        assert resp.usage.prompt_tokens == single[uid].usage.prompt_tokens > 0
        assert resp.usage.completion_tokens <= 4
    # prompts with more images are longer: the image placeholders were expanded per image
    assert batched["u2"].usage.prompt_tokens > batched["u0"].usage.prompt_tokens


def test_eval_with_hf_judge_on_smoke_dataset(tiny, tmp_path):
    data = write_smoke_dataset(tmp_path / "data", configs=("task_c", "task_e"))
    cfg = EvalConfig(
        dataset=str(data),
        tasks=("C", "E"),
        judge=f"hf:{tiny}",
        out=tmp_path / "run",
        limit=2,
        max_tokens={"A": 3, "B": 3, "C": 3, "D": 3, "E": 3},
        options=JudgeOptions(batch_size=4),
        progress=False,
    )
    summary = run_eval(cfg)
    lines = (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert summary.done == summary.new == len(records) == 3  # 2 C rows + the 1 E row
    assert {r["task"] for r in records} == {"C", "E"}
    for r in records:
        assert r["status"] in ("ok", "truncated", "empty") and r["usage"]["prompt_tokens"] > 0
        assert r["parse_mode"] in ("strict", "recovered", "invalid")
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["judge_settings"]["backend"] == "hf" and run["max_tokens"]["C"] == 3


def test_model_generation_defaults_do_not_change_greedy_output(tiny, tmp_path):
    """A generation_config.json with sampling and penalties is overridden by explicit greedy."""
    import shutil

    import torch
    import transformers

    skewed = tmp_path / "skewed"
    shutil.copytree(tiny, skewed)
    gen = json.loads((skewed / "generation_config.json").read_text())
    gen.update(do_sample=True, temperature=5.0, top_k=3, repetition_penalty=50.0, min_length=40)
    (skewed / "generation_config.json").write_text(json.dumps(gen))
    reqs = _reqs(3, max_tokens=8)
    plain = {r.uid: r.raw for r in make_judge(f"hf:{tiny}", JudgeOptions()).judge(reqs)}
    judge = make_judge(f"hf:{skewed}", JudgeOptions())
    assert {r.uid: r.raw for r in judge.judge(reqs)} == plain
    # control: the same model generating with its own defaults does decode differently
    enc = judge.encode(reqs[:1])
    enc.pop("token_type_ids", None)  # transformers 4.x tokenizers add them; generate rejects
    torch.manual_seed(0)
    with torch.inference_mode():
        own = judge.model.generate(**enc, max_new_tokens=8)
    greedy = judge.model.generate(**enc, max_new_tokens=8, do_sample=False, repetition_penalty=1.0)
    assert own.tolist() != greedy.tolist()
    assert transformers.GenerationConfig.from_pretrained(skewed).repetition_penalty == 50.0
    settings = judge.settings()["decoding"]
    assert settings["strategy"] == "greedy" and settings["repetition_penalty"] == 1.0


def test_think_block_goes_to_reasoning_not_raw(tiny, monkeypatch):
    judge = make_judge(f"hf:{tiny}", JudgeOptions())
    monkeypatch.setattr(judge.tokenizer, "decode", lambda ids, **kw: "<think>it moved</think> Yes")
    [resp] = judge.judge(_reqs(1, max_tokens=3))
    assert (resp.raw, resp.reasoning) == ("Yes", "it moved")
    assert resp.usage.reasoning_tokens is not None

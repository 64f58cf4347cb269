"""hf: backend end to end on CPU with a tiny random Idefics3-style model built in the test."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402
from smoke_data import write_smoke_dataset  # noqa: E402

from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge  # noqa: E402
from gridwm_judge.judges.hf_transformers import (  # noqa: E402
    batches,
    chat_messages,
    limit_pixels,
)
from gridwm_judge.judges.tiny_model import build_tiny_vlm  # noqa: E402
from gridwm_judge.runner import EvalConfig, run_eval  # noqa: E402


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
    assert [p["type"] for p in chat_messages(reqs[2])[0]["content"]] == ["image"] * 3 + ["text"]


def test_limit_pixels_only_scales_down():
    img = Image.new("RGB", (400, 200))
    small = limit_pixels(img, 20_000)
    assert small.width * small.height <= 20_000 and small.size == (200, 100)
    assert limit_pixels(img, None) is img and limit_pixels(img, 10**6) is img


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

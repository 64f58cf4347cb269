"""The baseline judges answer the prompt ablation in each row's style: the same verdict as on
Task D's item, given as a bare word or as the style's strict JSON object."""

from __future__ import annotations

import json

import pytest

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest
from gridwm_judge.judges.baseline import BaselineJudge, query_frames
from gridwm_judge.parsing import parse_answer
from gridwm_judge.task_table import task_spec
from gridwm_judge.tasks import prompt_ablation, task_d
from gridwm_judge.worlds.minigrid import generate_groups


@pytest.fixture(scope="module")
def rows():
    groups = generate_groups("doorkey", 3, 830000).groups
    d = {r["uid"].replace("D.", "PA.", 1).removesuffix(".clean-neutral"): r
         for r in task_d.build_rows(groups, conditions=("clean-neutral",),
                                    variants=("full", "cf"))}
    return [(r, d[r["item_id"]]) for r in prompt_ablation.build_rows(groups)]


def _ask(judge, row, task, style=""):
    req = JudgeRequest(row["uid"], task, row["prompt"], row["images"], 256,
                       gold=row["answer"], style=style)
    return judge.answer(req)


@pytest.mark.parametrize("name", ["always-yes", "always-no", "pixel-heuristic", "oracle"])
def test_same_verdict_as_task_d_in_the_rows_format(rows, name):
    judge = BaselineJudge(name, JudgeOptions(), f"baseline:{name}")
    for pa_row, d_row in rows:
        style = pa_row["prompt_style"]
        raw = _ask(judge, pa_row, "PA", style)
        parsed = parse_answer("PA", raw, style=style)
        assert parsed.mode == "strict", (name, style, raw)
        assert parsed.value == parse_answer("D", _ask(judge, d_row, "D")).value
        if style != "direct":
            obj = json.loads(raw)
            assert list(obj) == (["rationale", "verdict"] if style == "structured_rationale"
                                 else ["verdict"])


def test_random_answers_parse_strict_in_every_style(rows):
    judge = BaselineJudge("random", JudgeOptions(seed=3), "baseline:random")
    for pa_row, _ in rows:
        raw = _ask(judge, pa_row, "PA", pa_row["prompt_style"])
        assert parse_answer("PA", raw, style=pa_row["prompt_style"]).mode == "strict"


def test_the_pixel_heuristic_reads_the_query_storyboard_as_on_task_d(rows):
    """PA items have Task D's layout (reference image, then query): the heuristic reads the
    query storyboard's panels, not both images."""
    for pa_row, d_row in rows[:3]:
        got = query_frames(task_spec("PA").recipe, pa_row["prompt"], pa_row["images"])
        want = query_frames(task_spec("D").recipe, d_row["prompt"], d_row["images"])
        assert len(got) == len(want) > 2
        assert all((a == b).all() for a, b in zip(got, want, strict=True))


def test_eval_budget_per_style_scales_with_the_users_budget(tmp_path):
    from gridwm_judge.runner.evaluate import EvalConfig

    default = EvalConfig("ds", ("PA",), "baseline:oracle", tmp_path)
    assert [default.budget("PA", s) for s in ("", "direct", "structured_verdict",
                                               "structured_rationale")] == [256, 256, 256, 1024]
    user = EvalConfig("ds", ("PA",), "baseline:oracle", tmp_path, max_tokens={"PA": 100})
    assert user.budget("PA", "structured_rationale") == 400 and user.budget("PA") == 100
    assert default.budget("D") == 256
    with pytest.raises(ValueError, match="no prompt style 'cot'"):
        default.budget("PA", "cot")

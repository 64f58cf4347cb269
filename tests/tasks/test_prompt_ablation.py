"""The prompt ablation's rows: Task D's clean-neutral Full/CF items in three prompt styles,
matched item for item (same groups, images and image order), differing only in the answer
instruction; its profile plans."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

import numpy as np
import pytest

from gridwm_judge.dataset.png_store import PngCache
from gridwm_judge.dataset.profiles import CONTROL_GROUPS, CONTROL_GROUPS_SMOKE, get_profile
from gridwm_judge.parsing import parse_answer
from gridwm_judge.prompts import PA_ANSWER, TASK_D_ANSWER, prompt_ablation_prompt, task_d_prompt
from gridwm_judge.schema import COLUMNS, PROMPT_STYLES, dataset_row
from gridwm_judge.task_table import PA_STYLES, answer_spec, task_spec
from gridwm_judge.tasks import prompt_ablation, task_d
from gridwm_judge.worlds.minigrid import generate_groups


@pytest.fixture(scope="module")
def groups():
    return generate_groups("lavagap", 3, 830000).groups  # one reference + two queries


@pytest.fixture(scope="module")
def rows(groups):
    return prompt_ablation.build_rows(groups)


def test_rows_are_full_and_cf_of_each_query_in_three_styles(rows, groups):
    assert len(rows) == 2 * 2 * 3
    for r in rows:
        dataset_row(r)  # the row contract: every column, right types
        assert r["task"] == "PA" and r["prompt_style"] in PROMPT_STYLES
        assert r["uid"] == f"{r['item_id']}.{r['prompt_style']}"
        assert r["reference_group_id"] == groups[0].group_id
        assert (r["variant"], r["label"]) in (("full", 1), ("cf", 0))
        assert (r["visual"], r["framing"], r["temporal"]) == ("clean", "neutral", "orig")
    assert len({r["uid"] for r in rows}) == len(rows)
    assert {r["group_id"] for r in rows} == {g.group_id for g in groups[1:]}


def test_three_styles_are_matched_item_for_item(rows, groups):
    """Same groups, images (the same PNG bytes), image order, frames and labels per item; and
    the images are Task D's clean-neutral ones."""
    png = PngCache()
    by_item = defaultdict(dict)
    for r in rows:
        by_item[r["item_id"]][r["prompt_style"]] = r
    d_rows = {f"PA.{r['group_id']}.{r['variant']}": r for r in task_d.build_rows(
        groups, conditions=("clean-neutral",), variants=("full", "cf"))}
    assert set(by_item) == set(d_rows)
    for item, styles in by_item.items():
        assert tuple(styles) == PROMPT_STYLES  # every style, in the same order
        images = {s: [png.encode(im) for im in r["images"]] for s, r in styles.items()}
        assert len(images["direct"]) == 2
        assert images["direct"] == images["structured_verdict"] == images["structured_rationale"]
        assert images["direct"] == [png.encode(im) for im in d_rows[item]["images"]]
        for col in COLUMNS:
            if col in ("uid", "prompt", "prompt_style", "answer", "images"):
                continue
            assert len({json.dumps(r[col]) for r in styles.values()}) == 1, col


def test_prompts_differ_only_in_the_answer_instruction(rows):
    direct = prompt_ablation_prompt("direct")
    assert direct == task_d_prompt("neutral")  # the Task D prompt exactly
    for style in PROMPT_STYLES:
        text = prompt_ablation_prompt(style)
        assert text.replace(PA_ANSWER[style], TASK_D_ANSWER) == direct
        assert all(r["prompt"] == text for r in rows if r["prompt_style"] == style)
    # nothing of the audit reaches the prompt
    for r in rows:
        for leak in ("full", "cf", r["group_id"], "rationale\": \"The query"):
            assert leak not in r["prompt"]
    with pytest.raises(ValueError, match="unknown prompt style 'cot'"):
        prompt_ablation_prompt("cot")


def test_gold_answers_are_strict_answers_in_the_rows_format(rows):
    for r in rows:
        parsed = parse_answer("PA", r["answer"], style=r["prompt_style"])
        assert parsed.mode == "strict"
        assert parsed.value == ("success" if r["label"] == 1 else "failure")
    rationale = [json.loads(r["answer"]) for r in rows
                 if r["prompt_style"] == "structured_rationale"]
    assert all(list(a) == ["rationale", "verdict"] and a["rationale"] for a in rationale)


def test_styles_budgets_and_formats_come_from_the_task_table():
    spec = task_spec("prompt_ablation")
    assert tuple(spec.styles) == PROMPT_STYLES == tuple(PA_STYLES)
    assert [answer_spec("PA", s).max_tokens for s in PROMPT_STYLES] == [256, 256, 1024]
    assert answer_spec("PA", "direct").structured_output() == {"choice": ["Success", "Fail"]}
    schema = json.loads(answer_spec("PA", "structured_rationale").structured_output()["json"])
    assert list(schema["properties"]) == ["rationale", "verdict"]
    assert schema["properties"]["verdict"] == {"enum": ["Success", "Fail"]}
    assert answer_spec("C") is task_spec("C")  # tasks without styles are unchanged
    with pytest.raises(ValueError, match="no prompt style 'cot'"):
        answer_spec("PA", "cot")
    with pytest.raises(ValueError, match="task C has no prompt style 'direct'"):
        answer_spec("C", "direct")


def test_a_subset_of_styles_and_a_wrong_count_are_refused(groups):
    two = prompt_ablation.build_rows(groups, styles=("direct", "structured_rationale"))
    assert len(two) == 8
    with pytest.raises(ValueError, match="bad styles"):
        prompt_ablation.build_rows(groups, styles=("free_text",))
    with pytest.raises(ValueError, match="give 12 rows, not n_items=10"):
        prompt_ablation.build_rows(groups, n_items=10)


def test_profiles_ship_the_config_over_the_control_groups():
    base = get_profile("base").plan("prompt_ablation")
    assert base.envs == CONTROL_GROUPS and base.extra_per_env == 1 and base.shard_by == "env"
    assert base.expected_rows == 98 * 2 * 3 == 588
    smoke = get_profile("smoke").plan("prompt_ablation")
    assert smoke.envs == CONTROL_GROUPS_SMOKE and smoke.expected_rows == 2 * 2 * 3


PA_DIGEST = "e9a4e88cf5fbda6eba187f72c9afc5ce39eff8272557374d9b840296a8d72184"
"""sha256 of the fixture's rows (the columns below, then each image's shape and pixels), taken
before oracle_state's references and task-type order were drawn per query: the ablation shares
the controlled analyses' groups but keeps its items (Task D's batches: the first group of an
env is every query's reference, Task D's prompt)."""


def test_items_are_unchanged_by_oracle_state_changes(rows):
    keys = ("uid", "item_id", "group_id", "variant", "label", "prompt_style", "prompt",
            "answer", "reference_group_id", "frame_indices", "representation", "visual",
            "framing", "temporal")
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps([r[k] for k in keys]).encode())
        for im in r["images"]:
            a = np.asarray(im)
            h.update(repr(a.shape).encode() + a.tobytes())
        assert r["task_type_order"] == ""  # oracle_state's audit column, blank here
    assert h.hexdigest() == PA_DIGEST

"""Task D rows from real groups: reference first, conditions, D3 prompts, counts."""

import json
from collections import defaultdict

import numpy as np
import pytest

from gridwm_judge.prompts import D_ORDER_NOTE, TASK_C_PREAMBLE, TASK_D
from gridwm_judge.schema import COLUMNS
from gridwm_judge.tasks import task_d
from gridwm_judge.worlds.minigrid import generate_groups


@pytest.fixture(scope="module")
def groups():
    return generate_groups("lavagap", 3, 830000).groups


@pytest.fixture(scope="module")
def rows(groups):
    return task_d.build_rows(groups, seed=42)


def test_counts_and_structure(rows, groups):
    reference, queries = groups[0], groups[1:]
    assert len(rows) == 2 * 3 * 4  # 2 query groups x 3 variants x 4 conditions (paper, per env)
    assert all(set(r) == set(COLUMNS) for r in rows)
    assert len({r["uid"] for r in rows}) == len(rows)
    assert {r["group_id"] for r in rows} == {q.group_id for q in queries}
    assert {r["reference_group_id"] for r in rows} == {reference.group_id}
    assert reference.seed not in {r["seed"] for r in rows}
    assert rows[0]["uid"] == f"D.{queries[0].group_id}.full.clean-neutral"
    assert all(len(r["images"]) == 2 and r["representation"] == "composite" for r in rows)
    for r in rows:
        assert r["answer"] == ("Success" if r["label"] else "Fail")
        assert r["label"] == int(getattr(groups[1 if r["group_id"] == queries[0].group_id else 2],
                                         r["variant"]).success)


def test_prompts_follow_the_condition_and_match_across_variants(rows):
    by = defaultdict(set)
    for r in rows:
        by[(r["group_id"], r["visual"], r["framing"])].add(r["prompt"])
        assert r["prompt"].endswith(f"{TASK_D}\n{D_ORDER_NOTE}")  # reference image first
        if r["framing"] != "neutral":
            assert r["prompt"].startswith(TASK_C_PREAMBLE[r["framing"]])
        else:
            assert r["prompt"] == f"{TASK_D}\n{D_ORDER_NOTE}"
    assert len(by) == 8 and all(len(p) == 1 for p in by.values())  # D3


def test_reference_image_first_and_shared(rows):
    clean = [r for r in rows if r["visual"] == "clean"]
    assert len({id(r["images"][0]) for r in clean}) == 1
    style = [r for r in rows if r["visual"] == "style"]
    assert len({id(r["images"][0]) for r in style}) == 1
    assert not np.array_equal(np.asarray(clean[0]["images"][0]), np.asarray(style[0]["images"][0]))
    full = next(r for r in clean if r["variant"] == "full")
    cf = next(r for r in clean if r["variant"] == "cf" and r["group_id"] == full["group_id"])
    assert not np.array_equal(np.asarray(full["images"][1]), np.asarray(cf["images"][1]))
    ref_idx, query_idx = json.loads(full["frame_indices"])
    assert ref_idx == sorted(ref_idx) and query_idx == sorted(query_idx)


def test_bad_input(groups):
    with pytest.raises(ValueError, match="no query group"):
        task_d.build_rows(groups[:1], seed=0)
    with pytest.raises(ValueError, match="clean-neutral"):
        task_d.build_rows(groups, seed=0, conditions=("dirty",))

"""MiniWorld configs miniworld_c / miniworld_d: real MiniWorld groups rendered headless, rows
through the task table, the baseline judges."""

import json

import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")
from gridwm_judge.miniworld.backend import require_miniworld  # noqa: E402

require_miniworld()

from gridwm_judge.judges import make_judge  # noqa: E402
from gridwm_judge.judges.base import JudgeRequest  # noqa: E402
from gridwm_judge.miniworld.variants import generate_groups  # noqa: E402
from gridwm_judge.schema import COLUMNS  # noqa: E402
from gridwm_judge.task_table import ALL_CONFIGS, CONFIGS, parse_task_list, task_spec  # noqa: E402
from gridwm_judge.tasks import TASK_MODULES, build_rows  # noqa: E402
from gridwm_judge.tasks.miniworld_d import mission_batches  # noqa: E402

SEED = 830000


@pytest.fixture(scope="module")
def groups():
    # Sign seeds 830000..830004 hold both missions (box: 0 and 4; key: 1, 2, 3).
    return (list(generate_groups("tmaze", 2, SEED).groups)
            + list(generate_groups("sign", 5, SEED).groups))


@pytest.fixture(scope="module")
def c_rows(groups):
    return build_rows("miniworld_c", [groups[0], groups[2]], seed=0,
                      probe_sets=("grid", "framing"))


def test_configs_in_the_task_table():
    assert {"miniworld_c", "miniworld_d"} <= set(ALL_CONFIGS) == set(TASK_MODULES)
    assert parse_task_list("miniworld_c,miniworld_d") == ("MC", "MD")
    # "all" stays the MiniGrid benchmark: MiniWorld is never pooled with it
    assert parse_task_list("all") == ("A", "B", "C", "D", "E") and "miniworld_c" not in CONFIGS
    c, d = task_spec("miniworld_c"), task_spec("MD")
    assert (c.name, c.recipe, c.protocol) == ("MC", "presentation_invariance", "eligible_pairs")
    assert (d.config, d.recipe, d.protocol) == ("miniworld_d", "reference_aided", "all_groups")


def test_c_rows_are_task_c_rows_of_their_own_task(c_rows):
    assert len(c_rows) == 2 * 3 * 2 * 9   # groups x variants x representations x presentations
    assert len({r["uid"] for r in c_rows}) == len(c_rows)
    for r in c_rows:
        assert set(r) == set(COLUMNS)
        assert r["task"] == "MC" and r["uid"].startswith("MC.") and r["item_id"].startswith("MC.")
        assert r["answer"] == {"full": "Yes", "nocue": "Yes", "cf": "No"}[r["variant"]]
        assert r["label"] == (r["variant"] != "cf")
        assert "first-person 3D views" in r["prompt"] and "MiniGrid" not in r["prompt"]
        assert ("reverse chronological" in r["prompt"]) == (r["temporal"] == "rev")
        assert len(r["images"]) == (1 if r["representation"] == "composite" else 8)
    # D3: the variants of one group and presentation have one prompt
    prompts = {}
    for r in c_rows:
        key = (r["group_id"], r["probe_family"], r["temporal"], r["visual"], r["framing"],
               r["representation"])
        prompts.setdefault(key, set()).add(r["prompt"])
    assert len(prompts) == 2 * 2 * 9 and all(len(p) == 1 for p in prompts.values())
    sign = next(r for r in c_rows if r["family"] == "sign")
    assert "read the colour on the sign" in sign["prompt"]
    framed = next(r for r in c_rows if r["framing"] == "negative")
    assert "may contain a failure" in framed["prompt"]


def test_d_batches_by_mission(groups):
    assert [len(b) for b in mission_batches(groups)] == [2, 2, 3]
    rows = build_rows("miniworld_d", groups, seed=0)
    assert len(rows) == (1 + 1 + 2) * 3 * 4   # query groups x variants x conditions
    by_id = {g.group_id: g for g in groups}
    for r in rows:
        assert set(r) == set(COLUMNS) and r["task"] == "MD" and r["uid"].startswith("MD.")
        ref, query = by_id[r["reference_group_id"]], by_id[r["group_id"]]
        assert ref.mission == query.mission and ref.group_id != query.group_id
        assert f"Task goal: {query.mission}" in r["prompt"] and len(r["images"]) == 2
        assert r["answer"] == ("Fail" if r["variant"] == "cf" else "Success")
    assert len({r["uid"] for r in rows}) == len(rows)
    with pytest.raises(ValueError, match="no query group"):
        build_rows("miniworld_d", groups[:1], seed=0)


def test_minigrid_groups_are_refused(groups):
    from gridwm_judge.sim import generate_groups as minigrid_groups

    g = minigrid_groups("redbluedoor", 1, 0).groups[0]
    with pytest.raises(ValueError, match="no family .redbluedoor.; expected one of tmaze"):
        build_rows("miniworld_c", [g], seed=0)


@pytest.mark.parametrize("name", ["always-yes", "always-no", "random", "pixel-heuristic"])
def test_baseline_judges_answer_the_new_configs(c_rows, groups, name):
    d_rows = build_rows("miniworld_d", groups[:2], seed=0, conditions=("clean-neutral",))
    judge = make_judge(f"baseline:{name}")
    reqs = [JudgeRequest(r["uid"], r["task"], r["prompt"], r["images"], 256)
            for r in c_rows[:30:7] + d_rows[:3]]
    out = list(judge.judge(reqs))
    assert [o.status for o in out] == ["ok"] * len(reqs)
    for req, o in zip(reqs, out, strict=True):
        assert o.raw in task_spec(req.task).answer.options, (name, req.uid, o.raw)
    if name == "always-yes":
        assert {o.raw for o in out} == {"Yes", "Success"}
    json.dumps([o.raw for o in out])

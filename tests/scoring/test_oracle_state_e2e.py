"""oracle_state end to end on the smoke profile: build -> eval (oracle, always-yes) -> score ->
report; the written dataset's state prompts carry no excluded field and its arms match."""

from __future__ import annotations

import json
import re

import datasets
import pytest

from gridwm_judge.cli import main
from gridwm_judge.records import ScoresRecord
from gridwm_judge.report.table import DASH
from gridwm_judge.results import Results

STATE_WORDS = re.compile(r"success|fail|reward|terminat|truncat|valid|interven|mission|"
                         r"objective|[a-z]+_[a-z]+", re.I)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("os_e2e")
    data = root / "data"
    assert main(["build", "--profile", "smoke", "--configs", "oracle_state", "--out", str(data),
                 "--num-proc", "1"]) == 0
    runs = []
    for judge in ("oracle", "always-yes", "prompt-only"):
        run = root / judge
        assert main(["eval", "--dataset", str(data), "--tasks", "oracle_state", "--judge",
                     f"baseline:{judge}", "--out", str(run), "--no-progress"]) == 0
        assert main(["score", "--dataset", str(data), "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(run), "--n-resamples",
                     "300"]) == 0
        runs.append(run)
    assert main(["report", *map(str, runs), "--out", str(root / "report")]) == 0
    return root


def _os(root, judge):
    scores = ScoresRecord.read(root / judge / "scores.json")
    return Results(scores.judges[f"baseline:{judge}"].results.select(task="OS"))


STAGES = ("task_type", "objective", "verdict", "joint")


def _chance(res, arm):
    return {r.condition: (r.value, r.denominator, r.detail)
            for r in res.select(arm=arm, name="chance_best_constant")}


def test_the_built_dataset(pipeline):
    validation = json.loads((pipeline / "data" / "validation.json").read_text())
    v = validation["configs"]["oracle_state"]
    assert (v["rows"], v["by_evidence"]) == (18, {"pixel": 6, "pixel_state": 6, "state": 6})
    assert v["rows_without_images"] == v["state_rows_with_images"] == 0
    assert v["d3_prompts_identical_across_variants"]["ok"]
    assert v["task_type_order_shown"]["ok"] and v["task_type_order_shown"]["checked"] == 18
    refs = v["references"]  # smoke: one query per env, so one reference each
    assert refs["ok"] and refs["own_group_as_reference"] == 0
    assert {e: b["references"] for e, b in refs["by_env"].items()} == {
        "MiniGrid-DoorKey-8x8-v0": 1, "MiniGrid-LavaGapS7-v0": 1}
    ds = datasets.load_dataset(str(pipeline / "data"), "oracle_state", split="test")
    rows = ds.to_list()
    arms = {}
    for r in rows:
        arms.setdefault(r["item_id"], {})[r["evidence"]] = r
    assert all(set(a) == {"pixel", "state", "pixel_state"} for a in arms.values())
    for r in rows:
        if r["evidence"] == "pixel":
            continue
        table = r["prompt"][r["prompt"].index("Reference trajectory state table:"):
                            r["prompt"].index("Answer three")]
        assert r["mission"] and r["mission"] not in r["prompt"]
        assert not STATE_WORDS.search(table), STATE_WORDS.search(table)
        for op in json.loads(r["intervention"]):
            assert json.dumps(op) not in r["prompt"]
        assert (len(r["images"]) == 0) == (r["evidence"] == "state")


def test_oracle_and_always_yes_scores(pipeline):
    oracle = _os(pipeline, "oracle")
    for arm in ("pixel", "state", "pixel_state"):
        assert {k: oracle.value(arm=arm, name=k) for k in STAGES} == dict.fromkeys(STAGES, 1.0)
        assert oracle.value(arm=arm, name="idr_raw") == 1.0
    assert oracle.value(name="vcc_oracle") == 1.0
    yes = _os(pipeline, "always-yes")
    for arm in ("pixel", "state", "pixel_state"):
        assert yes.value(arm=arm, name="verdict") == pytest.approx(2 / 3)  # CF wrong
        assert tuple(yes.value(arm=arm, name=k) for k in ("p_active", "idr_raw", "acc_cf")) == \
            (1.0, 0.0, 0.0)
    diffs = yes.select(name="idr_raw").select(baseline="pixel")
    assert {r.arm for r in diffs} == {"state", "pixel_state"}
    for r in diffs:
        assert r.value == 0.0
        assert yes.value(arm=r.arm, baseline="pixel", name="joint") == 0.0


def test_prompt_only_and_chance_levels(pipeline):
    """Smoke: one query in DoorKey-8x8 and one in LavaGap-S7, both objectives goal_green."""
    rows = datasets.load_dataset(str(pipeline / "data"), "oracle_state",
                                 split="test").to_list()
    first = [json.loads(r["task_type_order"])[0] == json.loads(r["answer"])["task_type"]
             for r in rows if r["evidence"] == "pixel"]
    po = _os(pipeline, "prompt-only")
    for arm in ("pixel", "state", "pixel_state"):
        m = {k: po.value(arm=arm, name=k) for k in STAGES}
        assert m["task_type"] == pytest.approx(sum(first) / len(first))
        assert (m["objective"], m["verdict"]) == (1.0, pytest.approx(2 / 3))
        ch = _chance(po, arm)
        assert ch == _chance(_os(pipeline, "oracle"), arm)  # the items', not a judge's
        assert {k: v[0] for k, v in ch.items()} == pytest.approx(
            {"task_type": 0.5, "objective": 1.0, "verdict": 2 / 3, "joint": 1 / 3})
        uniform = po.one(arm=arm, condition="task_type", name="chance_uniform")
        assert uniform.value == pytest.approx(1 / 6)


def test_the_report_section(pipeline):
    report = pipeline / "report"
    for key in ("oracle_state_stages", "oracle_state_idr", "oracle_state_differences"):
        for ext in ("md", "csv", "json"):
            assert (report / "tables" / f"{key}.{ext}").is_file()
    stages = json.loads((report / "tables" / "oracle_state_stages.json").read_text())
    assert len(stages["rows"]) == 3 * 3 + 2  # 3 judges x 3 arms, chance uniform / best
    chance = {r["judge"]: r for r in stages["rows"] if r["judge"].startswith("chance")}
    assert {r["evidence"] for r in chance.values()} == {"all arms"}
    assert chance["chance: best constant"]["objective"]["value"] == 1.0
    assert chance["chance: best constant"]["verdict"]["den"] == 6
    assert any("baseline:prompt-only reads the prompt's text" in n for n in stages["notes"])
    assert not any("not among these runs" in n for n in stages["notes"])
    idr = json.loads((report / "tables" / "oracle_state_idr.json").read_text())
    agree = {(r["judge"], r["evidence"]): r["VCC vs Pixel"] for r in idr["rows"]}
    assert agree[("baseline:oracle", "Pixel")] == DASH  # the baseline arm itself
    for arm in ("State", "Pixel+State"):
        assert agree[("baseline:oracle", arm)]["value"] == 1.0
        assert agree[("baseline:oracle", arm)]["den"] == 6  # every query, paired with Pixel
    assert (report / "figures" / "fig_oracle_state_differences.png").stat().st_size > 10_000
    index = (report / "index.md").read_text()
    assert "Oracle-State: staged accuracy per evidence arm" in index
    # the runs asked only oracle_state: none of MiniGrid's (empty) tables or figures is written
    assert sorted(p.name for p in (report / "figures").iterdir()) == [
        "fig_oracle_state_differences.png"]
    assert not (report / "tables" / "headline.md").exists()
    assert "Headline: does the judge" not in index


def test_a_report_without_the_prompt_only_run_says_so(pipeline, tmp_path):
    assert main(["report", str(pipeline / "oracle"), "--out", str(tmp_path / "r")]) == 0
    stages = json.loads((tmp_path / "r" / "tables" / "oracle_state_stages.json").read_text())
    assert [r["judge"] for r in stages["rows"]][-2:] == ["chance: uniform",
                                                          "chance: best constant"]
    assert any("It is not among these runs" in n for n in stages["notes"])

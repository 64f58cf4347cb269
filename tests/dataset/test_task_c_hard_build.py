"""task_c_hard end to end: the smoke build's rows and counts, its shortcut ceiling in
validation.json and the card, and the report's hard-vs-paper table from scored shortcut runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from datasets import load_dataset

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.report.writer import write_report
from gridwm_judge.scoring.score import score
from gridwm_judge.scoring.task_scores import Settings
from gridwm_judge.tasks import task_c_hard


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "smoke"
    build_dataset(out, "smoke", configs=["task_c", "task_c_hard"])
    return out


def test_base_and_smoke_plan_the_paper_group_count_per_family():
    base = get_profile("base").plan("task_c_hard")
    assert base.families == tuple((f, 6) for f in task_c_hard.FAMILIES)
    assert base.expected_rows == 18 * 6 and base.cf_kind == "hard"
    assert get_profile("smoke").plan("task_c_hard").expected_rows == 3 * 6


def test_rows_counts_and_presentation(smoke):
    rows = load_dataset(str(smoke), "task_c_hard", split="test")
    assert len(rows) == 18
    assert set(rows["task"]) == {"CH"} and all(u.startswith("CH.") for u in rows["uid"])
    assert all(g.endswith(".hard") for g in rows["group_id"])
    assert sorted(set(rows["family"])) == sorted(task_c_hard.FAMILIES)
    assert {(r["temporal"], r["visual"], r["framing"]) for r in rows} == {
        ("orig", "clean", "neutral")}
    assert sorted(set(rows["representation"])) == ["composite", "split"]
    assert sorted(set(rows["variant"])) == ["cf", "full", "nocue"]
    for g in set(rows["group_id"]):   # gate D3: one prompt per group and representation
        for rep in ("composite", "split"):
            prompts = {r["prompt"] for r in rows if r["group_id"] == g
                       and r["representation"] == rep}
            assert len(prompts) == 1
    ops = [json.loads(r["intervention"]) for r in rows if r["variant"] == "cf"]
    assert {op[0]["op"] for op in ops} == {"move", "swap"}


def test_validation_holds_the_shortcut_ceiling_and_the_hard_rejects(smoke):
    v = json.loads((smoke / "validation.json").read_text())
    assert v["ok"], v["problems"]
    ceil = v["shortcut_ceilings"]["task_c_hard"]
    assert set(ceil) == {"first-frame", "last-frame", "mask-artifact"}
    for fam in ("all", *task_c_hard.FAMILIES):
        assert ceil["first-frame"][fam]["idr_raw"]["value"] == 0.0   # the gate's promise
    assert "hard" in v["generation"]["rejects_by_cf_kind"]
    assert {e["cf_kind"] for e in v["generation"]["envs"]} == {"paper", "hard"}
    card = (smoke / "README.md").read_text()
    assert "task_c_hard, causal sensitivity on hard counterfactuals" in card
    assert "| `task_c_hard` | redbluedoor | first-frame |" in card


def test_report_sets_the_hard_config_beside_task_c(smoke, tmp_path):
    runs = []
    for name in ("first-frame", "always-yes"):
        run = tmp_path / name
        assert main(["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                     "--tasks", "c,task_c_hard", "--judge", f"baseline:{name}"]) == 0
        score(str(smoke), [run / "predictions.jsonl"], run, settings=Settings(n_resamples=200))
        runs.append(run)
    res = write_report(runs, tmp_path / "report")
    table = json.loads((res.out / "tables" / "hard_counterfactuals.json").read_text())
    rows = {(r["judge"], r["family"]): r for r in table["rows"]}
    assert ("baseline:always-yes", "redbluedoor") in rows
    row = rows[("baseline:always-yes", "all")]
    assert row["hard IDR_raw"]["value"] == 0.0 and row["hard p_active"]["value"] == 1.0
    assert row["hard best shortcut IDR_raw"].endswith("(first-frame)")
    ceiling = json.loads((res.out / "tables" / "shortcut_ceiling.json").read_text())
    assert any(r["config"] == "CH" for r in ceiling["rows"])

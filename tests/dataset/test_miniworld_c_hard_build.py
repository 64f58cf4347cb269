"""miniworld_c_hard end to end: the smoke build's rows and counts, its shortcut
ceiling in validation.json and the card, and the report's hard-vs-paper table (MCH beside MC)
from scored shortcut runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")

from datasets import load_dataset  # noqa: E402

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.dataset.profiles import get_profile  # noqa: E402
from gridwm_judge.report.writer import write_report  # noqa: E402
from gridwm_judge.scoring.score import score  # noqa: E402
from gridwm_judge.scoring.task_scores import Settings  # noqa: E402
from gridwm_judge.task_table import task_spec  # noqa: E402
from gridwm_judge.tasks import miniworld_c_hard  # noqa: E402
from gridwm_judge.worlds.miniworld.cards import FAMILIES  # noqa: E402


@pytest.fixture(scope="module")
def smoke(miniworld_smoke) -> Path:
    return miniworld_smoke.out


def test_profiles_plan_miniworld_c_s_group_count_per_family():
    assert miniworld_c_hard.FAMILIES == FAMILIES   # every MiniWorld family has a hard CF
    full = get_profile("miniworld")
    plan = full.plan("miniworld_c_hard")
    assert dict(plan.families) == dict(full.plan("miniworld_c").families)
    assert plan.expected_rows == 48 * 6 and plan.cf_kind == "hard"
    assert get_profile("miniworld_smoke").plan("miniworld_c_hard").expected_rows == 4 * 6
    spec = task_spec("miniworld_c_hard")
    assert (spec.name, spec.world, spec.paper) == ("MCH", "miniworld", "MC")


def test_rows_counts_and_presentation(smoke):
    rows = load_dataset(str(smoke), "miniworld_c_hard", split="test")
    assert len(rows) == 24
    assert set(rows["task"]) == {"MCH"} and all(u.startswith("MCH.") for u in rows["uid"])
    assert all(g.endswith(".hard") for g in rows["group_id"])
    assert sorted(set(rows["family"])) == sorted(FAMILIES)
    assert {(r["temporal"], r["visual"], r["framing"]) for r in rows} == {
        ("orig", "clean", "neutral")}
    assert sorted(set(rows["representation"])) == ["composite", "split"]
    assert sorted(set(rows["variant"])) == ["cf", "full", "nocue"]
    assert all("first-person 3D views" in p for p in rows["prompt"])
    for g in set(rows["group_id"]):   # gate D3: one prompt per group and representation
        for rep in ("composite", "split"):
            prompts = {r["prompt"] for r in rows if r["group_id"] == g
                       and r["representation"] == rep}
            assert len(prompts) == 1
    ops = {json.loads(r["intervention"])[0]["op"] for r in rows if r["variant"] == "cf"}
    assert ops == {"move_entity", "swap_entities"}   # Sign swaps; the others move the target
    validators = [json.loads(v) for v in rows["validators"]]
    assert all(v["H1"] and v["H2"] for v in validators)


def test_validation_holds_the_shortcut_ceiling_and_the_hard_rejects(smoke):
    v = json.loads((smoke / "validation.json").read_text())
    assert v["ok"], v["problems"]
    ceil = v["shortcut_ceilings"]["miniworld_c_hard"]
    assert set(ceil) == {"first-frame", "last-frame", "mask-artifact"}
    for fam in ("all", *FAMILIES):
        assert ceil["first-frame"][fam]["idr_raw"]["value"] == 0.0   # the gate's promise
    assert "hard" in v["generation"]["rejects_by_cf_kind"]
    assert {e["cf_kind"] for e in v["generation"]["envs"]} == {"paper", "hard"}
    card = (smoke / "README.md").read_text()
    assert "miniworld_c_hard, causal sensitivity on hard counterfactuals" in card
    assert "| `miniworld_c_hard` | tmaze | first-frame |" in card
    assert "$" not in card.split("---\n", 2)[2]


def test_report_sets_the_hard_config_beside_miniworld_c(smoke, tmp_path):
    runs = []
    for name in ("first-frame", "always-yes"):
        run = tmp_path / name
        assert main(["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                     "--tasks", "miniworld_c,miniworld_c_hard",
                     "--judge", f"baseline:{name}"]) == 0
        score(str(smoke), [run / "predictions.jsonl"], run, settings=Settings(n_resamples=200))
        runs.append(run)
    res = write_report(runs, tmp_path / "report")
    table = json.loads((res.out / "tables" / "hard_counterfactuals.json").read_text())
    rows = {(r["judge"], r["configs"], r["family"]): r for r in table["rows"]}
    assert ("baseline:always-yes", "MC / MCH", "sign") in rows
    row = rows[("baseline:always-yes", "MC / MCH", "all")]
    assert row["hard IDR_raw"]["value"] == 0.0 and row["hard p_active"]["value"] == 1.0
    assert row["hard best shortcut IDR_raw"].endswith("(first-frame)")
    ceiling = json.loads((res.out / "tables" / "shortcut_ceiling.json").read_text())
    assert any(r["config"] == "MCH" for r in ceiling["rows"])

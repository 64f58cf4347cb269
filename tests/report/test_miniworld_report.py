"""MiniWorld's failure modes and stability are diagnosed and reported on their own (issue 13):
a real MiniWorld smoke build, the oracle and always-yes baselines on miniworld_c/miniworld_d,
score, report; MiniGrid's modes, headline and stability rows are not touched by them."""

import json

import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.dataset.export import build_dataset  # noqa: E402
from gridwm_judge.scoring.judge_scores import failure_modes  # noqa: E402

ORACLE, YES = "baseline:oracle", "baseline:always-yes"


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("mwreport")
    out = root / "smoke"
    build_dataset(out, "miniworld_smoke", num_proc=2)
    runs = []
    for judge in ("oracle", "always-yes"):
        run = root / judge
        assert main(["eval", "--dataset", str(out), "--tasks", "miniworld_c,miniworld_d",
                     "--judge", f"baseline:{judge}", "--out", str(run), "--no-progress"]) == 0
        runs.append(str(run / "predictions.jsonl"))
    assert main(["score", "--dataset", str(out), "--predictions", *runs,
                 "--out", str(root / "s"), "--n-resamples", "50"]) == 0
    assert main(["report", str(root / "s"), "--out", str(root / "r")]) == 0
    scores = json.loads((root / "s" / "scores.json").read_text())["judges"]
    return scores, root / "r"


def _modes(judge_scores, world):
    return {m["name"]: m for m in judge_scores["failure_modes"]
            if m.get("world", "minigrid") == world}


def test_scores_diagnose_miniworld_by_task_scope(scored):
    scores, _ = scored
    oracle, yes = _modes(scores[ORACLE], "miniworld"), _modes(scores[YES], "miniworld")
    assert len(oracle) == len(yes) == 5
    assert not [n for n, m in oracle.items() if m["status"] == "flagged"]
    mis = yes["causal_misgrounding"]
    assert mis["status"] == "flagged"
    assert any("(MD)" in e for e in mis["evidence"])
    assert not any("(D)" in e or "(C/" in e for e in mis["evidence"])
    # MiniGrid's modes of a MiniWorld-only judge: nothing to assess, nothing flagged
    for judge in (ORACLE, YES):
        grid = _modes(scores[judge], "minigrid")
        assert len(grid) == 5 and all(m["status"] == "not assessed" for m in grid.values())


def test_minigrid_modes_unchanged_by_miniworld_blocks(scored):
    """The same blocks as MiniGrid's C/D give the same MiniGrid modes whether or not MiniWorld
    blocks sit beside them, and MiniWorld's modes name MC/MD scopes only."""
    scores, _ = scored
    yes, oracle = scores[YES]["tasks"], scores[ORACLE]["tasks"]
    grid = {"C": yes["MC"], "D": yes["MD"]}
    alone = failure_modes(grid)
    both = failure_modes({**grid, "MC": oracle["MC"], "MD": oracle["MD"]})
    assert [m for m in both if m.world == "minigrid"] == list(alone)
    assert [m.world for m in alone] == ["minigrid"] * 5
    assert any(m.flagged for m in alone)  # always-yes blocks flag MiniGrid scopes C/D
    assert not any(m.flagged for m in both if m.world == "miniworld")
    flagged = [m for m in failure_modes({"MC": yes["MC"], "MD": yes["MD"]}) if m.flagged]
    assert flagged and all(m.world == "miniworld" for m in flagged)
    assert all("(C/" not in e and "(D)" not in e for m in flagged for e in m.evidence)


def test_report_keeps_miniworld_failures_and_stability_apart(scored):
    _, report = scored
    md = (report / "failure_modes.md").read_text()
    grid, _, world = md.partition("# MiniWorld (3D) failure modes")
    assert world, "no MiniWorld section"
    assert "MC/" not in grid and "MD" not in grid
    yes = world.split(f"## {YES} (MiniWorld)")[1]
    assert "| success biased | **flagged** |" in yes and "(MD)" in yes
    assert "| causal misgrounding | **flagged** |" in yes
    oracle = world.split(f"## {ORACLE} (MiniWorld)")[1].split("## ")[0]
    # the smoke build has 2 MC groups: the oracle's only flag is the sample-size one
    assert [ln.split(" |")[0] for ln in oracle.splitlines() if "**flagged**" in ln] == [
        "| low activation"]
    assert "G_active (MC/composite) = 2 < 10" in oracle

    fm = json.loads((report / "failure_modes.json").read_text())
    yes_flags = {m["name"] for m in fm[YES] if m.get("world") == "miniworld" and m["flagged"]}
    assert {"success_biased", "causal_misgrounding"} <= yes_flags
    assert not [m for m in fm[YES] if m.get("world") is None and m["flagged"]]
    assert [m["name"] for m in fm[ORACLE] if m["flagged"]] == ["low_activation"]

    tables = report / "tables"
    stab = json.loads((tables / "miniworld_stability.json").read_text())
    scopes = {r["scope"] for r in stab["rows"]}
    assert scopes and scopes <= {"MC/composite", "MC/split", "MD"} and "MC/composite" in scopes
    grid_stab = json.loads((tables / "stability.json").read_text())
    assert not grid_stab["rows"]
    headline = json.loads((tables / "headline.json").read_text())
    assert not headline["rows"]  # the headline is MiniGrid's: no MiniGrid answers, no rows

"""MiniWorld's failure modes, stability, headline and figures are diagnosed and reported on
their own: a real MiniWorld smoke build, the oracle and always-yes baselines on
miniworld_a/_c/_d, score, report; MiniGrid's modes, headline, stability rows and figures are
not touched by them."""

import contextlib
import dataclasses
import io
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from PIL import Image

from gridwm_judge.records import MODE_LABELS

pytest.importorskip("pyglet", reason="needs the 3d extra")

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.report import collect  # noqa: E402
from gridwm_judge.report.plots import write_figures  # noqa: E402
from gridwm_judge.report.sections import FIGURES as SECTIONS  # noqa: E402
from gridwm_judge.report.sections import all_figures, all_tables  # noqa: E402
from gridwm_judge.results import Results  # noqa: E402
from gridwm_judge.scoring.judge_scores import failure_modes  # noqa: E402
from gridwm_judge.task_table import MINIWORLD_TASKS  # noqa: E402

ORACLE, YES = "baseline:oracle", "baseline:always-yes"
MINIWORLD_FIGURES = [s.name for s in SECTIONS if s.name.startswith("miniworld_")]
FIGURES = [s.name for s in SECTIONS if s.name.startswith("fig")]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Scored(NamedTuple):
    scores: dict[str, Any]  # scores.json "judges"
    report: Path
    score_dir: Path
    printed: str  # what `report` printed


@pytest.fixture(scope="module")
def scored(tmp_path_factory, miniworld_smoke):
    root = tmp_path_factory.mktemp("mwreport")
    out = miniworld_smoke.out
    runs = []
    for judge in ("oracle", "always-yes"):
        run = root / judge
        assert main(["eval", "--dataset", str(out), "--tasks",
                     "miniworld_a,miniworld_c,miniworld_d", "--judge", f"baseline:{judge}",
                     "--out", str(run), "--no-progress"]) == 0
        runs.append(str(run / "predictions.jsonl"))
    assert main(["score", "--dataset", str(out), "--predictions", *runs,
                 "--out", str(root / "s"), "--n-resamples", "50"]) == 0
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["report", str(root / "s"), "--out", str(root / "r")]) == 0
    scores = json.loads((root / "s" / "scores.json").read_text())["judges"]
    return Scored(scores, root / "r", root / "s", printed.getvalue())


def _modes(judge_scores, world):
    return {m["name"]: m for m in judge_scores["failure_modes"]
            if m.get("world", "minigrid") == world}


def test_scores_diagnose_miniworld_by_task_scope(scored):
    scores = scored.scores
    oracle, yes = _modes(scores[ORACLE], "miniworld"), _modes(scores[YES], "miniworld")
    assert list(oracle) == list(yes) == list(MODE_LABELS)  # five modes, three flags
    # the oracle discriminates every group; on a smoke build's few groups only the
    # degenerate-judge caution on IDR_cond can be raised
    assert {n for n, m in oracle.items() if m["status"] == "flagged"} <= {"low_activation"}
    mis = yes["causal_misgrounding"]
    assert mis["status"] == "flagged"
    assert any("(MD)" in e for e in mis["evidence"])
    assert not any("(D)" in e or "(C/" in e for e in mis["evidence"])
    # MiniGrid's modes of a MiniWorld-only judge: nothing to assess, nothing flagged
    for judge in (ORACLE, YES):
        grid = _modes(scores[judge], "minigrid")
        assert len(grid) == 8 and all(m["status"] == "not assessed" for m in grid.values())


def test_minigrid_modes_unchanged_by_miniworld_blocks(scored):
    """The same blocks as MiniGrid's C/D give the same MiniGrid modes whether or not MiniWorld
    blocks sit beside them, and MiniWorld's modes name MC/MD scopes only."""
    scores = scored.scores
    yes, oracle = (Results.from_json(scores[j]["results"]) for j in (YES, ORACLE))

    def as_task(results, task, new):
        return [dataclasses.replace(r, task=new, world="minigrid")
                for r in results.select(task=task)]

    grid = Results([*as_task(yes, "MC", "C"), *as_task(yes, "MD", "D")])
    alone = failure_modes(grid)
    both = failure_modes(Results([*grid, *oracle.select(task="MC"), *oracle.select(task="MD")]))
    assert [m for m in both if m.world == "minigrid"] == list(alone)
    assert [m.world for m in alone] == ["minigrid"] * 8
    assert any(m.flagged for m in alone)  # always-yes results flag MiniGrid scopes C/D
    # the oracle's MiniWorld modes: nothing but the sample-size caution of a smoke build
    assert {m.name for m in both if m.world == "miniworld" and m.flagged} <= {"low_activation"}
    mine = Results([*yes.select(task="MC"), *yes.select(task="MD")])
    flagged = [m for m in failure_modes(mine) if m.flagged]
    assert flagged and all(m.world == "miniworld" for m in flagged)
    assert all("(C/" not in e and "(D)" not in e for m in flagged for e in m.evidence)


def test_report_keeps_miniworld_failures_and_stability_apart(scored):
    report = scored.report
    md = (report / "failure_modes.md").read_text()
    grid, _, world = md.partition("# MiniWorld (3D) failure modes")
    assert world, "no MiniWorld section"
    assert "MC/" not in grid and "MD" not in grid
    yes = world.split(f"## {YES} (MiniWorld)")[1]
    assert "| success-biased | **flagged** |" in yes and "(MD)" in yes
    assert "| misgrounded | **flagged** |" in yes
    oracle = world.split(f"## {ORACLE} (MiniWorld)")[1].split("## ")[0]
    # the smoke build has 2 MC groups: the oracle's only flag is the sample-size one
    assert [ln.split(" |")[0] for ln in oracle.splitlines() if "**flagged**" in ln] == [
        "| low-activation"]
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
    # no judge was asked a MiniGrid task: none of MiniGrid's tables is written
    for key in ("headline", "task_c", "task_d", "stability"):
        assert not (tables / f"{key}.json").exists(), key


def _rows(report, key):
    return {r["judge"]: r for r in json.loads((report / "tables" / f"{key}.json").read_text())[
        "rows"]}


def test_miniworld_headline_beside_minigrid_and_printed(scored):
    report = scored.report
    head = _rows(report, "miniworld_headline")
    assert set(head) == {ORACLE, YES}
    oracle, yes = head[ORACLE], head[YES]
    assert oracle["scope"] == yes["scope"] == "MC/composite"
    # the scope's figures carry their interval, and the groups they rest on
    assert (oracle["IDR_raw"], oracle["IDR_raw MD"], oracle["Acc_A1 MA"]) == (
        "1.000 [1.00, 1.00]", "1.000", "1.000")
    assert (yes["IDR_raw"], yes["Acc_cf"], yes["IDR_raw MD"]) == (
        "0.000 [0.00, 0.00]", "0.000 [0.00, 0.00]", "0.000")
    assert yes["p_active"] == "1.000 (2/2) [1.00, 1.00]"  # 2 MC groups in the smoke build
    assert yes["groups"] == oracle["groups"] == "2"
    assert "success-biased" in yes["flags"] and "misgrounded" in yes["flags"]
    assert oracle["flags"] == "low-activation"
    index = (report / "index.md").read_text()
    # the summary: MiniWorld's headline before its detail tables; no MiniGrid headline (no
    # judge was asked a MiniGrid task)
    assert "## Headline: does the judge" not in index
    assert index.index("## MiniWorld (3D) headline") < index.index("## MiniWorld (3D) Task")
    assert f"- **{YES}** (MiniWorld): misgrounded" in index
    assert f"- **{ORACLE}** (MiniWorld): low-activation" in index
    printed = scored.printed
    assert "MiniWorld (3D) headline" in printed and "MC/composite" in printed


def test_miniworld_figures_are_drawn_and_listed(scored):
    report = scored.report
    index = (report / "index.md").read_text()
    assert not any((report / "figures" / name).exists() for name in FIGURES)
    for name in MINIWORLD_FIGURES:
        path = report / "figures" / name
        assert path.read_bytes()[:8] == PNG_MAGIC, name
        with Image.open(path) as im:
            im.load()
            assert im.width >= 600 and im.height >= 400
            assert len(im.convert("RGB").getcolors(maxcolors=1 << 20) or ()) > 20, name
        assert f"](figures/{name})" in index
    assert all(name.startswith("miniworld_") for name in MINIWORLD_FIGURES)


def test_a_miniworld_report_has_only_what_was_run(scored, tmp_path):
    """Judges asked MiniWorld's A, C and D: MiniWorld's tables and figures, none of MiniGrid's,
    and no hard-counterfactual table (the build holds miniworld_c_hard, no judge was asked
    it); MiniWorld's figures draw only the judges asked MiniWorld's tasks."""
    data = collect([scored.score_dir], work_dir=tmp_path / "w")
    keys = [t.key for t in all_tables(data)]
    assert keys == ["miniworld_headline", "miniworld_a", "miniworld_c", "miniworld_d",
                    "miniworld_stability", "shortcut_ceiling", "shortcut_vs_judges",
                    "judge_pairs"]  # MC's judges are compared pairwise
    assert "MCH" in data.not_run() and data.run() == ("MA", "MC", "MD")
    assert list(all_figures(data)) == MINIWORLD_FIGURES
    mw = {t.name for t in MINIWORLD_TASKS}

    def strip(e):
        sc = dataclasses.replace(
            e.scores, coverage={t: c for t, c in e.scores.coverage.items() if t not in mw},
            results=Results(r for r in e.scores.results if r.task not in mw))
        return dataclasses.replace(e, scores=sc)

    # beside a judge asked nothing of MiniWorld, MiniWorld's figures draw the oracle only
    grid_yes, oracle = strip(data.judges[0]), data.judges[1]
    mixed = dataclasses.replace(data, judges=(grid_yes, oracle))
    assert [e.label for e in mixed.only(("MA", "MC", "MD")).judges] == [oracle.label]
    assert list(all_figures(mixed)) == MINIWORLD_FIGURES
    written = write_figures(mixed, tmp_path / "mixed", all_figures(mixed))
    assert [p.name for p in written] == MINIWORLD_FIGURES


def test_miniworld_differences_signed_and_bar_labels_clear(scored, tmp_path, monkeypatch):
    from figure_checks import check_report  # tests/report/

    signed, labels = check_report(collect([scored.score_dir], work_dir=tmp_path / "w"),
                                  monkeypatch)
    assert signed > 0 and labels > 0

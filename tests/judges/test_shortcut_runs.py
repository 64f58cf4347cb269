"""Shortcut judges end to end: which tasks they run, the refusal of a task without a rule, and
the report's shortcut ceiling read from their scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.records import ScoresRecord
from gridwm_judge.report.writer import write_report
from gridwm_judge.scoring.score import score
from gridwm_judge.scoring.task_scores import Settings


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "smoke"
    build_dataset(out, "smoke", configs=["task_a", "task_c", "task_d", "oracle_state"])
    return out


def _eval(smoke, run, tasks, judge) -> int:
    return main(["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                 "--tasks", tasks, "--judge", judge])


def _tasks(run: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (run / "predictions.jsonl").read_text().splitlines():
        task = json.loads(line)["task"]
        out[task] = out.get(task, 0) + 1
    return out


def test_a_task_without_a_rule_is_refused_and_nothing_is_written(smoke, tmp_path, capsys):
    run = tmp_path / "ff"
    assert _eval(smoke, run, "a,c", "baseline:first-frame") == 2
    err = capsys.readouterr().err
    assert "baseline:first-frame has no rule for task(s) A" in err
    assert "it answers C, D, CH, MC, MD" in err and len(err.strip().splitlines()) == 1
    assert not run.exists()
    assert _eval(smoke, run, "c", "baseline:least-change") == 2
    assert "no rule for task(s) C; it answers A, MA" in capsys.readouterr().err
    assert not run.exists()


def test_all_runs_the_tasks_with_a_rule_and_pixel_rows_only(smoke, tmp_path):
    run = tmp_path / "ff"
    assert _eval(smoke, run, "all", "baseline:first-frame") == 0
    # 'all' for a rule-limited judge: every task it has a rule for that the dataset holds
    assert json.loads((run / "run.json").read_text())["tasks"] == ["C", "D", "OS"]
    assert set(_tasks(run)) == {"C", "D", "OS"}
    assert _eval(smoke, tmp_path / "lc", "all", "baseline:least-change") == 0
    assert set(_tasks(tmp_path / "lc")) == {"A"}
    # Oracle-State: the State arm has no images, so a pixel rule is not asked it
    os_run = tmp_path / "os"
    assert _eval(smoke, os_run, "oracle_state", "baseline:last-frame") == 0
    from datasets import load_dataset

    rows = load_dataset(str(smoke), "oracle_state", split="test")
    with_images = sum(1 for n in rows["images"] if n)
    assert 0 < with_images < len(rows) and _tasks(os_run) == {"OS": with_images}


def test_report_shows_the_ceiling_and_the_best_shortcut_beside_each_judge(smoke, tmp_path):
    runs = []
    for name in ("last-frame", "always-yes", "least-change"):
        run = tmp_path / name
        tasks = "a" if name == "least-change" else "c,d"
        assert _eval(smoke, run, tasks, f"baseline:{name}") == 0
        score(str(smoke), [run / "predictions.jsonl"], run, settings=Settings(n_resamples=200))
        runs.append(run)
    res = write_report(runs, tmp_path / "report")
    ceiling = json.loads((res.out / "tables" / "shortcut_ceiling.json").read_text())
    rows = {(r["config"], r["family"], r["shortcut"]): r for r in ceiling["rows"]}
    scored = ScoresRecord.read(runs[0] / "scores.json").judges["baseline:last-frame"].results

    def same(cell, metric):  # a smoke set has < 10 groups: the interval is left out
        assert "ci" not in cell
        assert (cell["value"], cell["num"], cell["den"]) == (
            metric.value, metric.numerator, metric.denominator)

    same(rows[("C", "all", "last-frame")]["IDR_raw"],
         scored.one(task="C", representation="composite", name="idr_raw"))
    fam = sorted(f for f in scored.select(task="C", name="idr_raw").values_of("family") if f)[0]
    same(rows[("C", fam, "last-frame")]["IDR_raw"],
         scored.one(task="C", representation="composite", family=fam, name="idr_raw"))
    assert ("A", "all", "least-change") in rows and ("D", "all", "last-frame") in rows
    beside = json.loads((res.out / "tables" / "shortcut_vs_judges.json").read_text())["rows"]
    yes_c = next(r for r in beside if r["judge"] == "baseline:always-yes" and r["config"] == "C")
    assert "(last-frame)" in yes_c["best shortcut's"]
    headline = (res.out / "tables" / "headline.md").read_text()
    assert "shortcut IDR" in headline
    assert "Shortcut ceiling" in (res.out / "index.md").read_text()


def test_a_report_without_shortcut_runs_says_how_to_get_the_ceiling(smoke, tmp_path):
    run = tmp_path / "yes"
    assert _eval(smoke, run, "c", "baseline:always-yes") == 0
    res = write_report([run], tmp_path / "report", n_resamples=100)
    text = (res.out / "tables" / "shortcut_ceiling.md").read_text()
    assert "No shortcut judge in this report" in text and "baseline:first-frame" in text


def test_the_cards_ceiling_is_what_score_gives_the_same_shortcut(smoke, tmp_path):
    """The build measures the ceiling on its canonical items; scoring a shortcut's run on the
    same dataset gives the same IDR_raw, config by config and family by family."""
    measured = json.loads((smoke / "validation.json").read_text())["shortcut_ceilings"]
    assert set(measured) == {"task_a", "task_c", "task_d", "oracle_state"}
    assert "## Shortcut ceiling" in (smoke / "README.md").read_text()
    run = tmp_path / "lf"
    assert _eval(smoke, run, "c,d,oracle_state", "baseline:last-frame") == 0
    score(str(smoke), [run / "predictions.jsonl"], run, settings=Settings(n_resamples=100))
    results = ScoresRecord.read(run / "scores.json").judges["baseline:last-frame"].results
    scopes = {"task_c": {"task": "C", "representation": "composite"}, "task_d": {"task": "D"},
              "oracle_state": {"task": "OS", "arm": "pixel"}}
    for config, where in scopes.items():
        card = measured[config]["last-frame"]
        assert card["all"]["idr_raw"]["value"] == results.value(name="idr_raw", **where), config
        fams = [f for f in results.select(name="idr_raw", **where).values_of("family") if f]
        assert fams, config
        for fam in fams:
            for name in ("idr_raw", "nocue_lift"):
                assert card[fam][name]["value"] == results.value(name=name, family=fam, **where)


def test_a_misspelled_baseline_with_tasks_all_is_named(smoke, tmp_path, capsys):
    run = tmp_path / "ff"
    assert _eval(smoke, run, "all", "baseline:first-fram") == 2
    err = capsys.readouterr().err
    assert "unknown baseline judge 'first-fram'" in err and "did you mean 'first-frame'" in err
    assert not run.exists()

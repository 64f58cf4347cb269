"""The path docs/reproducing-the-paper.md leads with, through the command line: import the
release, score the ten published judges with their published parse, run one's own judge on
the paper's Task D-R and rank it beside them."""

from __future__ import annotations

import json

import jsonschema
from release_copy import make_release

from gridwm_judge.cli import main
from gridwm_judge.results import scores_schema


def test_import_score_eval_report(tmp_path, capsys):
    release = make_release(tmp_path / "Towards-Reliable-VLM-Judges")
    data = tmp_path / "paper"
    assert main(["import-paper", str(release), "--out", str(data)]) == 0
    out = capsys.readouterr().out
    assert "paper_task_d_r: 144 rows" in out and "10 published judges" in out
    published = sorted((data / "runs" / "published").glob("*"))
    preds = [str(p / "predictions.jsonl") for p in published]
    assert main(["score", "--dataset", str(data), "--predictions", *preds, "--rules",
                 "published", "--out", str(tmp_path / "scores")]) == 0
    scores = json.loads((tmp_path / "scores" / "scores.json").read_text())
    jsonschema.validate(scores, scores_schema())
    assert scores["parser"] == {"rules": "published", "version": "as-published/1"}
    kimi = scores["judges"]["published:kimi-k2.5"]["coverage"]["RDR"]
    assert kimi["disagree"] == 11 and len(kimi["disagree_head"]) == 5
    gpt = scores["judges"]["published:gpt-5.4"]
    idr = [r for r in gpt["results"] if r["task"] == "RDR" and r["name"] == "idr_raw"
           and r.get("protocol") == "all_groups" and not r.get("condition")
           and not r.get("family")]
    assert len(idr) == 1 and round(idr[0]["value"], 3) == 0.333   # Table 13: GPT-5.4

    mine = tmp_path / "runs" / "mine"
    assert main(["eval", "--dataset", str(data), "--tasks", "rdr", "--judge",
                 "baseline:last-frame", "--out", str(mine)]) == 0
    report = tmp_path / "report"
    assert main(["report", *map(str, published), str(mine), "--out", str(report)]) == 0
    table = (report / "tables" / "paper_task_d_r.md").read_text()
    assert "| baseline:last-frame | run (committed parse) |" in table
    assert "| GPT-5.4 (published) | published: paper Table 13" in table
    assert "| published:gpt-5.4 | published answers, scored here (committed parse) |" in table
    pairs = json.loads((report / "tables" / "judge_pairs.json").read_text())
    ranked = {(r["judge A"], r["judge B"]) for r in pairs["rows"]}
    assert ("baseline:last-frame", "published:gpt-5.4") in ranked
    agreement = (report / "tables" / "parse_agreement.md").read_text()
    assert "| published:kimi-k2.5 | RDR | 144 | 11 |" in agreement
    moved = tmp_path / "elsewhere" / "paper"   # the runs find the folder they are in
    moved.parent.mkdir()
    data.rename(moved)
    assert main(["report", str(moved / "runs" / "published" / "qwen3-8b"), "--out",
                 str(tmp_path / "report2")]) == 0
    data = moved
    capsys.readouterr()
    assert main(["push", str(data), "--repo-id", "me/paper", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    assert "data/paper_task_d_r/test-00000-of-00001.parquet" in plan
    assert "runs/published/gpt-5.4/predictions.jsonl" in plan   # the answers travel with it


def test_score_rules_published_needs_published_answers(imported, tmp_path, capsys):
    run = tmp_path / "mine"
    assert main(["eval", "--dataset", str(imported), "--tasks", "rdr", "--judge",
                 "baseline:random", "--out", str(run)]) == 0
    capsys.readouterr()
    code = main(["score", "--dataset", str(imported), "--predictions",
                 str(run / "predictions.jsonl"), "--rules", "published", "--out",
                 str(tmp_path / "s")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "--rules published reads the parse each answer was published with" in err[0]
    assert not (tmp_path / "s").exists()


def test_import_paper_refusal_is_one_line(tmp_path, capsys):
    code = main(["import-paper", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "does not exist" in err[0]
    assert "git clone --branch rebuttal-artifact-repair-2026-07-24" in err[0]
    assert not (tmp_path / "o").exists()


def test_a_published_judge_is_not_a_backend(imported, tmp_path, capsys):
    code = main(["eval", "--dataset", str(imported), "--tasks", "rdr", "--judge",
                 "published:gpt-5.4", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "names answers published with the paper's release" in err
    assert not (tmp_path / "r").exists()


def test_what_an_imported_exam_cannot_give_is_said_so(imported, tmp_path, capsys):
    """Task A's exam holds the true-action rows only and Task C's composite storyboards only:
    their deltas and VCC_rep are results of status undefined that say why, and the report
    shows that instead of a number."""
    from gridwm_judge.scoring import read_scores

    run = tmp_path / "oracle"
    assert main(["eval", "--dataset", str(imported), "--tasks", "ra,rc,re", "--judge",
                 "baseline:oracle", "--out", str(run)]) == 0
    assert main(["score", "--dataset", str(imported), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(run), "--no-les"]) == 0
    res = read_scores(run / "scores.json").judges["baseline:oracle"].results
    for task, name, rows in (("RA", "delta_shuffle", "shuffled-action rows"),
                             ("RA", "delta_mask", "masked-action rows"),
                             ("RC", "vcc_rep", "split storyboards")):
        r = res.one(task=task, name=name)
        assert r is not None and r.value is None and r.status == "undefined"
        assert r.note == f"not defined on these items: the release holds no {rows}"
    assert res.value(task="RA", name="acc_a1") == 1.0
    assert res.value(task="RE", name="e_acc") == 1.0
    assert res.value(task="RC", name="idr_raw", representation="composite") == 1.0
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    table = (tmp_path / "report" / "tables" / "paper_exams.md").read_text()
    assert "not defined on these items (no split storyboards)" in table
    assert "| baseline:oracle | 1.000 (6/6)" in table


def test_building_an_imported_config_points_to_import_paper(tmp_path, capsys):
    code = main(["build", "--profile", "smoke", "--configs", "paper_task_d_r", "--out",
                 str(tmp_path / "b")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "gridwm-judge import-paper RELEASE" in err[0]
    assert not (tmp_path / "b").exists()

"""The report over real baseline runs: the session's one real quickstart (``quickstart_run`` in
conftest.py: build -> eval -> score -> report, the nine baseline judges), read here.

Task C and Task D both have >= 10 groups there, so the oracle carries no low-activation caution.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from gridwm_judge import cli
from gridwm_judge.records import SCORES_FILE as SCORES
from gridwm_judge.report import Table, collect, summarize, write_report
from gridwm_judge.report.sections import FIGURES as FIGURE_SECTIONS
from gridwm_judge.report.sections import TABLES
from gridwm_judge.scoring.scopes import causal_scope

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIGURES = ("fig3a_activation_idr.png", "fig3b_composite_split.png", "fig4_stability.png",
           "fig5_controls.png")


@pytest.fixture(scope="module")
def qs(quickstart_run):
    return quickstart_run.result  # the session's one real quickstart (conftest.py)


def _entry(data, judge):
    (e,) = [e for e in data.judges if e.judge == f"baseline:{judge}"]
    return e


def _status(entry) -> dict[str, str]:
    return {m.name: m.status for m in summarize(entry)}


def test_report_renders_every_table_and_index(qs):
    rep = qs.report
    index = (rep / "index.md").read_text()
    fingerprint = json.loads((qs.run_dirs[0] / "run.json").read_text())["dataset_fingerprint"]
    assert fingerprint[:23] in index
    from gridwm_judge import __version__

    assert f"gridwm-judge {__version__}" in index
    assert "## Requests as sent" in index  # baseline runs send nothing: "not recorded"
    for key in ("headline", "task_c", "composite_split", "controls", "task_d", "stability"):
        md = (rep / "tables" / f"{key}.md").read_text()
        assert md.startswith("### ")
        doc = json.loads((rep / "tables" / f"{key}.json").read_text())
        rows = list(csv.DictReader(io.StringIO((rep / "tables" / f"{key}.csv").read_text())))
        assert len(rows) == len(doc["rows"]) > 0, key
    for judge in ("always-yes", "always-no", "random", "pixel-heuristic", "oracle"):
        assert f"baseline:{judge}" in qs.headline
    # every table written is a section of the registry under its own name; the sections of
    # tasks not run (MiniWorld's, the controlled analyses') are left out and named
    written = {p.stem for p in (rep / "tables").iterdir()}
    assert written == {s.name for s in TABLES if s.name in written}
    assert not any(k.startswith(("miniworld", "oracle_state", "prompt_ablation")) for k in written)
    assert {p.name for p in (rep / "figures").iterdir()} == set(FIGURES)
    assert set(FIGURES) <= {s.name for s in FIGURE_SECTIONS}
    [line] = [x for x in index.splitlines() if x.startswith("Tasks run:")]
    assert line.startswith("Tasks run: A, B, C, D, E, CH. Not run by any judge")
    assert "PA, OS" in line and "MC" in line
    # numbers carry their denominators (p_active of 10 Task C groups) and CIs
    task_c = (rep / "tables" / "task_c.md").read_text()
    assert "(10/10)" in task_c and "[" in task_c
    assert "; env " in (rep / "tables" / "task_d.md").read_text()


def test_expected_diagnoses(qs):
    data = collect(qs.run_dirs, work_dir=qs.out / "unused")
    yes, no, oracle = (_entry(data, j) for j in ("always-yes", "always-no", "oracle"))
    assert _status(yes)["success_biased"] == "flagged"
    assert _status(no)["all_fail"] == "flagged"
    # its stable probe families hold 10 groups: descriptive, so the trap is suggested only
    assert _status(no)["stability_trap"] == "suggested"
    assert not [m.name for m in summarize(oracle) if m.flagged]
    for rep in ("composite", "split"):
        c = causal_scope(oracle.results, "C", representation=rep)
        assert c is not None and c.value("idr_raw") == 1.0
        assert c.g_active >= 10 and c.degenerate_flags == ()
    # the flagged modes carry the numbers that triggered them
    ev = [m for m in summarize(yes) if m.name == "success_biased"][0].evidence
    assert any("p_active (C/composite) = 1.000 (10/10)" in x for x in ev)
    failure_md = (qs.report / "failure_modes.md").read_text()
    assert "**flagged**" in failure_md and "## baseline:oracle" in failure_md
    assert "| stability-trap | suggested | NS_" in failure_md
    # the headline shows each figure's interval and groups, and marks descriptive ones
    head = (qs.report / "tables" / "headline.md").read_text()
    assert "| baseline:always-no | 10 | 0.000 [0.00, 0.00] | 0.000 (0/10) [0.00, 0.00] |" in head
    # a suggested mode has a column of its own: never read as qualifying a flagged one
    assert "| misgrounded, all-fail | stability-trap |" in head
    assert "| rep-fragile, misgrounded, low-activation | leakage |" in head
    assert "| baseline:oracle |" in head and head.count("| none | – |") >= 1
    assert "(suggested)" not in head
    stab = (qs.report / "tables" / "stability.md").read_text()  # D's probes: 12 groups
    assert "]†" in stab and "† Descriptive" in stab
    stab_json = json.loads((qs.report / "tables" / "stability.json").read_text())
    assert stab_json["rows"][0]["NS"]["status"] == "descriptive"


def test_plots_are_valid_pngs(qs):
    for name in FIGURES:
        path = qs.report / "figures" / name
        assert path.read_bytes()[:8] == PNG_MAGIC
        with Image.open(path) as im:
            im.load()
            assert im.width >= 600 and im.height >= 400
            # not a blank canvas: a drawn figure has many distinct colours
            assert len(im.convert("RGB").getcolors(maxcolors=1 << 20) or ()) > 20


def test_two_runs_side_by_side_and_scoring_on_the_fly(qs, tmp_path, capsys):
    # a copy of the always-no run without its scores.json: the report scores it itself
    bare = tmp_path / "always-no-bare"
    shutil.copytree(qs.run_dirs[1], bare)
    (bare / SCORES).unlink()
    (bare / "rows.jsonl").unlink()
    yes = qs.out / "runs" / "always-yes"
    code = cli.main(
        ["report", str(yes), str(bare), "--out", str(tmp_path / "rep"), "--n-resamples", "200"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "baseline:always-yes" in printed and "baseline:always-no" in printed
    doc = json.loads((tmp_path / "rep" / "tables" / "task_c.json").read_text())
    judges = [r["judge"] for r in doc["rows"]]
    assert judges == ["baseline:always-yes"] * 2 + ["baseline:always-no"] * 2
    no_rows = [r for r in doc["rows"] if r["judge"] == "baseline:always-no"]
    assert all(r["p_active"]["num"] == 0 and r["p_active"]["den"] == 10 for r in no_rows)
    assert "computed by this report" in (tmp_path / "rep" / "index.md").read_text()

    # the same judge twice: labelled by run so the columns stay apart
    twin = tmp_path / "twin" / "always-yes"
    shutil.copytree(yes, twin)
    res = write_report([yes, twin], tmp_path / "rep2")
    labels = [e.label for e in res.data.judges]
    assert labels == ["baseline:always-yes [always-yes]", "baseline:always-yes [always-yes-2]"]


def test_a_score_folder_of_several_judges_is_a_run_dir(qs, tmp_path):
    from gridwm_judge.scoring.score import score
    from gridwm_judge.scoring.task_scores import Settings

    runs = [qs.out / "runs" / j for j in ("oracle", "always-yes")]
    score(
        str(qs.dataset),
        [r / "predictions.jsonl" for r in runs],
        tmp_path / "scored",
        settings=Settings(n_resamples=200, with_les=False),
    )
    res = write_report([tmp_path / "scored"], tmp_path / "rep")
    oracle_flags = {e.judge: e.is_oracle for e in res.data.judges}
    assert oracle_flags == {"baseline:always-yes": False, "baseline:oracle": True}
    assert "baseline:oracle" in res.headline and "baseline:always-yes" in res.headline


def test_report_errors_name_the_problem(qs, tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(FileExistsError, match="--overwrite"):
        write_report([qs.run_dirs[0]], qs.report)


def test_table_renderings_keep_denominators_and_cis():
    m = {"value": 0.5, "num": 7.0, "den": 14.0, "ci": [0.25, 0.75], "ci_env": [0.1, 0.9]}
    t = Table("t", "T", ("judge", "IDR_raw"), (("j", m), ("k", None)))
    assert "0.500 (7/14) [0.25, 0.75; env 0.10, 0.90]" in t.markdown()
    rows = list(csv.DictReader(io.StringIO(t.csv())))
    assert rows[0]["IDR_raw_num"] == "7.0" and rows[0]["IDR_raw_env_ci_hi"] == "0.9"
    assert rows[1]["IDR_raw"] == ""
    assert json.loads(t.json())["rows"][0]["IDR_raw"] == m


def test_quickstart_result_points_at_real_files(qs):
    assert Path(qs.report / "index.md").is_file()
    assert {p.name for p in qs.run_dirs} == {
        "always-yes",
        "always-no",
        "random",
        "pixel-heuristic",
        "oracle",
        "first-frame",
        "last-frame",
        "mask-artifact",
        "least-change",
    }
    for run in qs.run_dirs:
        assert (run / "predictions.jsonl").is_file() and (run / SCORES).is_file()



def test_judge_pairs_table_tells_who_can_be_told_apart(qs, tmp_path):
    doc = json.loads((qs.report / "tables" / "judge_pairs.json").read_text())
    cols = doc["columns"]
    rows = [r if isinstance(r, dict) else dict(zip(cols, r, strict=True)) for r in doc["rows"]]
    assert {r["config"] for r in rows} == {"task_c", "task_c_hard", "task_d"}
    rows = [r for r in rows if r["config"] == "task_c"]
    judges = {e for r in rows for e in (r["judge A"], r["judge B"])}
    assert len(rows) == len(judges) * (len(judges) - 1) // 2   # every pair once a config
    pair = {(r["judge A"], r["judge B"]): r for r in rows}
    same = pair[("baseline:last-frame", "baseline:oracle")]     # identical verdicts
    assert same["verdict"] == "no difference seen"
    assert same["A - B [95% CI]"] == "0.000 [0.00, 0.00]"
    apart = pair[("baseline:always-yes", "baseline:oracle")]
    assert apart["groups"] == 10 and apart["discordant (A only / B only)"] == "0 / 10"
    assert apart["A - B [95% CI]"] == "-1.000 [-1.00, -1.00]"
    # ten groups, Holm over every pair: not even these are told apart, and it says so
    assert apart["verdict"].startswith(
        "not distinguishable at this size (more than 10 groups needed")
    # a run without its graded rows is named, not silently left out
    import shutil

    runs = []
    for d in qs.run_dirs[:3]:
        shutil.copytree(d, tmp_path / d.name)
        runs.append(tmp_path / d.name)
    (runs[0] / "rows.jsonl").unlink()
    from gridwm_judge.report.judge_pairs import table

    data = collect(runs, work_dir=tmp_path / "w")
    assert any("rerun `gridwm-judge score`" in n for n in table(data).notes)


def test_judge_pairs_bootstrap_as_many_resamples_as_the_report(qs, tmp_path, monkeypatch):
    from dataclasses import replace

    from gridwm_judge.report import judge_pairs

    asked = []
    real = judge_pairs.compare_pairs
    monkeypatch.setattr(judge_pairs, "compare_pairs",
                        lambda graded, **kw: asked.append(kw) or real(graded, **kw))
    data = collect(qs.run_dirs, work_dir=tmp_path / "w")
    judge_pairs.table(replace(data, n_resamples=50))
    judge_pairs.table(data)
    assert asked == [{"n_resamples": 50}, {}]


def test_differences_signed_and_bar_labels_clear(qs, monkeypatch):
    from figure_checks import check_report  # tests/report/

    signed, labels = check_report(collect(qs.run_dirs, work_dir=qs.out / "unused"), monkeypatch)
    assert signed > 0 and labels > 0

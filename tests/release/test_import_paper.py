"""`import-paper`: the paper's release becomes dataset configs and published runs.

The release copy holds the release's real text files (checked here against the release's own
SHA256SUMS) and synthetic images; see release_copy.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from release_copy import DATA, DR, SUMS, make_release, release_sums

from gridwm_judge.dataset.features import features
from gridwm_judge.records import (
    PredictionRecord,
    PublishedParse,
    RunRecord,
    read_prediction_file,
)
from gridwm_judge.release import ReleaseError, import_paper, open_release
from gridwm_judge.schema import COLUMNS

MODELS = ("claude-sonnet-4-6", "gemini-2.0-flash", "gemini-2.5-flash-lite",
          "gemini-3-flash-preview", "gpt-4o", "gpt-5.4", "kimi-k2.5", "qwen3-235b-a22b",
          "qwen3-32b", "qwen3-8b")


def test_the_test_data_are_the_release_files():
    """Every text file the release's SHA256SUMS lists is here with its listed digest (the
    exam's second name, task_d_exam.jsonl, is made by the copy)."""
    listed = {p: d for p, d in release_sums().items() if not p.endswith(".png")}
    assert len(listed) == 37
    for path, digest in listed.items():
        if path.endswith("task_d_exam.jsonl"):
            assert digest == listed[f"{DR}/task_d_r_exam.jsonl"]
            continue
        assert hashlib.sha256((DATA / path).read_bytes()).hexdigest() == digest, path
    assert "MIT License" in (DATA / "LICENSE").read_text()


def _load(folder, config):
    import datasets

    return datasets.load_dataset(str(folder), config, split="test")


def test_task_d_r_rows_are_the_release_items(imported, release):
    ds = _load(imported, "paper_task_d_r")
    assert ds.features == features() and set(ds.column_names) == set(COLUMNS)
    exam = [json.loads(line) for line in
            (release / DR / "task_d_r_exam.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(ds) == len(exam) == 144
    by_uid = {r["uid"]: r for r in ds.cast_column(
        "images", ds.features["images"].__class__(ds.features["images"].feature.__class__(
            decode=False))).to_list()}
    for line in exam:
        row = by_uid[f"RDR.{line['uid']}"]
        assert row["prompt"] == line["prompt"]   # byte for byte
        image = (release / DR / line["image"]).read_bytes()
        assert [im["bytes"] for im in row["images"]] == [image]
        assert row["answer"] == line["answer"] and row["label"] == line["label"]
        assert (row["variant"], row["visual"]) == (line["variant"], line["visual"])
        assert row["framing"] == {"neu": "neutral", "pos": "positive",
                                  "neg": "negative"}[line["framing"]]
        source = json.loads(row["source"])
        assert source["uid"] == line["uid"] and source["license"] == "MIT"
        assert source["path"] == f"{DR}/task_d_r_exam.jsonl"
        assert source["sums_sha256"] == hashlib.sha256((release / SUMS).read_bytes()).hexdigest()
    labels = [r["label"] for r in by_uid.values()]
    assert (labels.count(1), labels.count(0)) == (96, 48)
    assert {r["family"] for r in by_uid.values()} == {
        "doorkey", "keycorridor", "lavagap", "memory", "multiroom", "redbluedoor"}
    assert len({r["group_id"] for r in by_uid.values()}) == 12
    assert {r["probe_family"] for r in by_uid.values()} == {"baseline", "framing", "visual"}


def test_the_card_credits_the_release_under_mit(imported):
    card = (imported / "README.md").read_text(encoding="utf-8")
    assert "license: mit" in card and "apache" not in card.lower()
    assert "xinyuw922-pixel/Towards-Reliable-VLM-Judges" in card
    assert "rebuttal-artifact-repair-2026-07-24" in card
    assert "Copyright (c)" in card   # the release's LICENSE, as it ships
    assert "left out" not in card   # this copy holds no taskb/ or taskd/
    validation = json.loads((imported / "validation.json").read_text())
    assert validation["checked_files"] == 229
    assert validation["configs"]["paper_task_d_r"]["groups"] == 12


def test_the_shortcut_ceiling_only_where_the_images_read_as_recorded(imported):
    """Task D-R's images here are drawn to their layout records: the shortcut rules read
    them and their ceiling is measured. Task A's and C's are noise that does not cut into the
    panels their exam records: not measured, and the card says why."""
    validation = json.loads((imported / "validation.json").read_text())
    measured = validation["shortcut_ceilings"]
    assert set(measured) == {"paper_task_d_r"}
    dr = measured["paper_task_d_r"]
    assert set(dr) == {"first-frame", "last-frame", "mask-artifact"}
    assert dr["last-frame"]["all"]["idr_raw"]["den"] == 12
    why = validation["shortcut_ceilings_not_measured"]
    assert set(why) == {"paper_task_a", "paper_task_c"}
    assert why["paper_task_c"].startswith("27 of 27 rows' images do not cut into the panels")
    card = (imported / "README.md").read_text()
    assert "- `paper_task_a`: not measured: 6 of 6 rows' images do not cut" in card


def test_other_exams_map_onto_the_package_formats(imported):
    a = _load(imported, "paper_task_a").to_list()
    exam = [json.loads(line) for line in
            (DATA / "datasets/minigrid/taska/task_a_exam.jsonl").read_text().splitlines()]
    assert [r["answer"] for r in a] == [line["answer"] for line in exam]
    assert [r["prompt"] for r in a] == [line["prompt"] for line in exam]
    assert {r["action_condition"] for r in a} == {"orig"}
    assert a[0]["action"] == "forward" and a[0]["checkpoint"] == 3
    c = _load(imported, "paper_task_c").to_list()
    assert len(c) == 27 and {r["answer"] for r in c} == {"Yes", "No"}
    for r in c:   # the release writes Success / Fail; its prompt asks Yes / No
        assert r["answer"] == ("No" if r["variant"] == "cf" else "Yes")
        assert "Answer with ONLY: Yes or No." in r["prompt"]
    assert {r["probe_family"] for r in c} == {"grid", "framing"}
    assert {r["framing"] for r in c if r["probe_family"] == "framing"} == {
        "neutral", "positive", "negative"}
    e = _load(imported, "paper_task_e").to_list()
    assert {r["question"] for r in e} == {"identity", "status"}
    assert json.loads(e[0]["answer"]) == {"answer": "key_green"}


def test_published_runs_are_marked_and_keep_both_parses(imported):
    folders = sorted(p.name for p in (imported / "runs" / "published").iterdir())
    assert folders == sorted(MODELS)
    for model in MODELS:
        run = RunRecord.read(imported / "runs" / "published" / model / "run.json")
        assert run.published and run.judge == f"published:{model}"
        assert run.source["model"] == model and run.source["license"] == "MIT"
        assert run.source["provider"] in ("zhizengzeng", "moonshot")
        records = read_prediction_file(imported / "runs" / "published" / model /
                                       "predictions.jsonl")
        assert len(records) == 144 and all(r.published is not None for r in records)
    kimi = {r.uid: r for r in read_prediction_file(
        imported / "runs" / "published" / "kimi-k2.5" / "predictions.jsonl")}
    cut = kimi["RDR.DR.memory.memory_s000000.memory_s000001.nocue.orig.clean.neg"]
    assert cut.status == "truncated" and cut.finish_reason == "length"
    assert cut.published == PublishedParse(None, "invalid", {
        "parse_mode": "fail", "correct": False, "score": 0.0, "failure": "D_no_label"})
    assert sum(r.status == "truncated" for r in kimi.values()) == 9
    assert PredictionRecord.from_json(cut.to_json()) == cut


def test_task_b_and_the_legacy_task_d_are_left_out_with_why(tmp_path):
    release = make_release(tmp_path / "release", only_dr=True)
    for folder in ("taskb", "taskd"):
        (release / "datasets/minigrid" / folder).mkdir()
        (release / "datasets/minigrid" / folder / "task_x_exam.jsonl").write_text("{}\n")
    summary = import_paper(release, tmp_path / "out")
    lines = [line for line in summary.lines() if "left out" in line]
    assert len(lines) == 2
    assert "Task B left out: its exam names an operational prompt" in lines[0]
    assert "legacy taskd/ left out: a demoted direct-judgment exam" in lines[1]
    assert lines[0] in (tmp_path / "out" / "README.md").read_text()


def test_the_same_release_imports_to_the_same_fingerprint(release, imported, tmp_path):
    """A run asked from one import scores against another import of the same release."""
    from gridwm_judge.dataset_io import dataset_fingerprint

    again = tmp_path / "again"
    import_paper(release, again)
    assert dataset_fingerprint(str(again)) == dataset_fingerprint(str(imported))
    run = RunRecord.read(again / "runs" / "published" / "gpt-5.4" / "run.json")
    assert run.dataset_fingerprint == dataset_fingerprint(str(again))
    assert run.dataset == "../../.."   # the folder the run is in: it can move


def test_a_folder_the_sums_do_not_list_is_left_out(tmp_path):
    release = make_release(tmp_path / "release", only_dr=True)
    rerun = release / "frozen_outputs/minigrid/taskd-r/my-rerun"
    shutil.copytree(release / "frozen_outputs/minigrid/taskd-r/gpt-4o", rerun)
    summary = import_paper(release, tmp_path / "out")
    assert "my-rerun" not in summary.runs and len(summary.runs) == 10
    assert ("frozen_outputs/minigrid/taskd-r/my-rerun/ left out: not in the release's "
            "SHA256SUMS, so not one of its published judges") in summary.lines()


def test_a_failure_after_staging_leaves_nothing(tmp_path, monkeypatch):
    from gridwm_judge.release import importer

    def broken(*args, **kwargs):
        raise ReleaseError("answers broke")

    monkeypatch.setattr(importer, "published_runs", broken)
    release = make_release(tmp_path / "release", only_dr=True)
    out = tmp_path / "made" / "paper"
    with pytest.raises(ReleaseError, match="answers broke"):
        import_paper(release, out)
    assert not (tmp_path / "made").exists()   # no staging folder, no parent it made


def test_a_copy_with_only_task_d_r(tmp_path):
    release = make_release(tmp_path / "repair-branch", only_dr=True)
    summary = import_paper(release, tmp_path / "out")
    assert list(summary.configs) == ["paper_task_d_r"]
    assert len(summary.not_found) == 3
    text = "\n".join(summary.lines())
    assert "not in this copy of the release: datasets/minigrid/taska/task_a_exam.jsonl" in text
    assert len(summary.runs) == 10


def _refused(release, out, match):
    with pytest.raises(ReleaseError, match=match):
        import_paper(release, out)
    assert not out.exists()
    assert not out.parent.exists() or not any(p.name.startswith(".") for p in
                                              out.parent.iterdir())   # no staging left


def test_a_changed_image_is_refused_and_nothing_written(tmp_path):
    release = make_release(tmp_path / "release")
    image = release / DR / "images/taskDR/doorkey/doorkey_s000000/doorkey_s000001__cf_ref_query.png"
    image.write_bytes(image.read_bytes() + b"\0")
    _refused(release, tmp_path / "out" / "paper",
             "doorkey_s000001__cf_ref_query.png differs from the release")


def test_a_changed_answer_file_is_refused(tmp_path):
    release = make_release(tmp_path / "release")
    answers = release / "frozen_outputs/minigrid/taskd-r/gpt-5.4/responses.jsonl"
    answers.write_text(answers.read_text().replace('"raw": "Fail"', '"raw": "Success"', 1))
    _refused(release, tmp_path / "out", "gpt-5.4/responses.jsonl differs from the release")


def test_a_missing_listed_file_is_refused(tmp_path):
    release = make_release(tmp_path / "release")
    (release / "frozen_outputs/minigrid/taskd-r/qwen3-8b/score_per_row.jsonl").unlink()
    _refused(release, tmp_path / "out",
             "qwen3-8b/score_per_row.jsonl is listed in .*SHA256SUMS but missing")


def test_a_folder_that_is_not_the_release_is_refused(tmp_path):
    (tmp_path / "other" / "datasets").mkdir(parents=True)
    _refused(tmp_path / "other", tmp_path / "out", "is not the paper's release")
    _refused(tmp_path / "nowhere", tmp_path / "out2", "does not exist")


def test_task_d_r_without_its_sums_is_refused(tmp_path):
    release = make_release(tmp_path / "release")
    (release / SUMS).unlink()
    _refused(release, tmp_path / "out", "SHA256SUMS is missing")


def test_an_exam_line_off_its_form_names_file_and_line(tmp_path):
    release = make_release(tmp_path / "release", only_dr=True)
    exam = release / "datasets/minigrid/taska"
    exam.mkdir(parents=True)
    shutil.copy(DATA / "datasets/minigrid/taska/task_a_exam.jsonl", exam)
    lines = (exam / "task_a_exam.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"answer": "D"', '"answer": "E"')
    (exam / "task_a_exam.jsonl").write_text("\n".join(lines) + "\n")
    for line in lines:   # its images
        target = exam / json.loads(line)["image"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"png")
    _refused(release, tmp_path / "out", r"task_a_exam.jsonl:3: gold 'E' is not one of A, B")


def test_open_release_records_a_clone_s_commit(tmp_path):
    import subprocess

    release = make_release(tmp_path / "release", only_dr=True)
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", "-b", "rebuttal-artifact-repair-2026-07-24",
                    str(release)], check=True)
    subprocess.run(["git", "-C", str(release), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(release), "-c", "user.email=t@t", "-c", "user.name=t",
                    "commit", "-qm", "copy"], check=True)
    opened = open_release(release)
    assert len(opened.provenance.revision or "") == 40
    assert opened.provenance.branch == "rebuttal-artifact-repair-2026-07-24"
    assert opened.provenance.modified is False
    with (release / "LICENSE").open("a") as fh:   # a file SHA256SUMS does not cover
        fh.write("edited\n")
    assert open_release(release).provenance.modified is True
    summary = import_paper(release, tmp_path / "out")
    assert summary.configs == {"paper_task_d_r": 144}
    card = (tmp_path / "out" / "README.md").read_text()
    assert f"{opened.provenance.revision} (with local changes)" in card

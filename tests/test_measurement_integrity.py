"""Issue 9: a failed request, or another build's item, never becomes a judge's verdict.

End to end through the CLI: a loopback server that answers HTTP 500 to everything, and
predictions scored against a dataset whose item under the same uid has changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.results import Results
from gridwm_judge.testing.stub_server import StubServer, http_error


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _eval(dataset, run, *extra):
    return main(["eval", "--dataset", str(dataset), "--out", str(run), "--no-progress", *extra])


def _score(dataset, run, out, *extra):
    return main(["score", "--dataset", str(dataset), "--predictions",
                 str(Path(run) / "predictions.jsonl"), "--out", str(out), "--n-resamples", "200",
                 *extra])


def test_a_server_that_always_fails_is_not_a_judge_that_says_fail(smoke, tmp_path, capsys):
    run = tmp_path / "down"
    with StubServer() as server:
        server.script("", *[http_error(500)] * 200)
        code = _eval(smoke, run, "--tasks", "c,d", "--judge", "openai:stub", "--base-url",
                     server.base_url, "--retries", "0")
    captured = capsys.readouterr()
    assert code == 1
    assert "answered 0/" in captured.out
    assert "errored" in captured.err.strip().splitlines()[-1]

    assert _score(smoke, run, tmp_path / "scores") == 0
    doc = json.loads((tmp_path / "scores" / "scores.json").read_text())
    judge = doc["judges"]["openai:stub"]
    for task in ("C", "D"):
        cov = judge["coverage"][task]
        assert cov["answered"] == 0 and cov["coverage"] == 0.0
        assert cov["errored"] == cov["asked"] > 0
    assert judge["results"] == []  # nothing scored: no accuracy of 0, no CI of [0, 0]
    assert all(m["status"] == "not assessed" for m in judge["failure_modes"])
    assert (tmp_path / "scores" / "rows.jsonl").read_text() == ""

    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    headline = (tmp_path / "rep" / "tables" / "headline.md").read_text()
    [row] = [ln for ln in headline.splitlines() if ln.startswith("|") and "openai:stub" in ln]
    assert "no answers" in row and "errored" in row
    for flag in ("misgrounded", "all-fail", "stability-trap"):
        assert flag not in row
    # the judge has no row in Task C's tables; their note says why
    note = (tmp_path / "rep" / "tables" / "task_c.md").read_text()
    asked = judge["coverage"]["C"]["asked"]
    assert f"openai:stub C 0/{asked} ({asked} errored)" in note


def test_partly_errored_run_scores_only_answered_rows(smoke, tmp_path, capsys):
    from gridwm_judge.prompts import REVERSED_NOTE

    run = tmp_path / "half"
    with StubServer(default_reply="Yes") as server:
        server.script(REVERSED_NOTE, *[http_error(500)] * 50)
        assert _eval(smoke, run, "--tasks", "c", "--judge", "openai:stub", "--base-url",
                     server.base_url, "--retries", "0") == 1
    capsys.readouterr()
    assert _score(smoke, run, tmp_path / "s") == 0
    cov = json.loads((tmp_path / "s" / "scores.json").read_text())["judges"]["openai:stub"][
        "coverage"]["C"]
    assert 0 < cov["answered"] < cov["asked"] and cov["errored"] == cov["asked"] - cov["answered"]
    rows = [json.loads(x) for x in (tmp_path / "s" / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == cov["answered"] and all(r["status"] == "ok" for r in rows)
    assert main(["report", str(tmp_path / "s"), "--out", str(tmp_path / "rep")]) == 0
    assert "Incomplete coverage" in (tmp_path / "rep" / "tables" / "task_c.md").read_text()


def _change_one_prompt(dataset: Path, config: str = "task_c") -> str:
    """Rewrite ``config`` with the first row's prompt changed (same uid); return that uid."""
    path = next((dataset / "data" / config).glob("*.parquet"))
    table = pq.read_table(path)
    prompts = table.column("prompt").to_pylist()
    prompts[0] = prompts[0] + " (rebuilt)"
    idx = table.schema.get_field_index("prompt")
    table = table.set_column(idx, "prompt", __import__("pyarrow").array(prompts))
    pq.write_table(table, path)
    return table.column("uid")[0].as_py()


def test_predictions_of_another_build_are_refused(smoke, tmp_path, capsys):
    run = tmp_path / "yes"
    assert _eval(smoke, run, "--tasks", "c", "--judge", "baseline:always-yes") == 0
    other = tmp_path / "other"
    shutil.copytree(smoke, other)
    uid = _change_one_prompt(other)
    capsys.readouterr()

    assert _score(other, run, tmp_path / "refused") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "1 prediction(s) answered a different item" in err and repr(uid) in err
    assert "--allow-mismatch" in err
    assert not (tmp_path / "refused").exists()  # nothing written

    assert _score(smoke, run, tmp_path / "ok") == 0  # the build it was asked from
    assert _score(other, run, tmp_path / "forced", "--allow-mismatch") == 0
    doc = json.loads((tmp_path / "forced" / "scores.json").read_text())
    assert any(uid in o for o in doc["overrides"])
    assert main(["report", str(tmp_path / "forced"), "--out", str(tmp_path / "rep")]) == 0
    assert "despite a mismatch" in (tmp_path / "rep" / "index.md").read_text()


def test_report_refuses_to_score_a_run_against_a_rebuilt_dataset(tmp_path, capsys):
    smoke = write_smoke_dataset(tmp_path / "smoke")
    run = tmp_path / "no"
    assert _eval(smoke, run, "--tasks", "c", "--judge", "baseline:always-no") == 0
    _change_one_prompt(smoke)  # the folder the run names is rebuilt with another item
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip()
    # the changed item, or the changed dataset fingerprint, whichever is seen first
    assert err.startswith("gridwm-judge report: error: refusing to score:")
    assert "--allow-mismatch" in err and not (tmp_path / "rep").exists()
    # the hint works: report takes the override and writes it into the report
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--allow-mismatch"]) == 0
    assert "despite a mismatch" in (tmp_path / "rep" / "index.md").read_text()


def _run_with_an_alien_uid(smoke, tmp_path):
    """An always-yes Task C run plus one record for a uid no dataset holds; (run, its lines
    before)."""
    run = tmp_path / "yes"
    assert _eval(smoke, run, "--tasks", "c", "--judge", "baseline:always-yes") == 0
    path = run / "predictions.jsonl"
    lines = path.read_text().splitlines()
    alien = json.loads(lines[0])
    alien["uid"] = "C.elsewhere.s1.full.grid.orig.clean.neutral.composite"
    path.write_text("\n".join([*lines, json.dumps(alien)]) + "\n")
    return run, lines


def test_predictions_of_a_different_dataset_are_refused_or_set_aside(smoke, tmp_path, capsys):
    run, lines = _run_with_an_alien_uid(smoke, tmp_path)
    capsys.readouterr()
    assert _score(smoke, run, tmp_path / "s") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "1 prediction(s) for uids the dataset does not hold" in err
    assert _score(smoke, run, tmp_path / "s", "--allow-mismatch") == 0
    doc = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert any("sets them aside" in o for o in doc["overrides"])
    assert doc["judges"]["baseline:always-yes"]["coverage"]["C"]["answered"] == len(lines)


def test_unknown_status_is_named(smoke, tmp_path, capsys):
    run = tmp_path / "odd"
    assert _eval(smoke, run, "--tasks", "c", "--judge", "baseline:always-yes") == 0
    path = run / "predictions.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["status"] = "exploded"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert _score(smoke, run, tmp_path / "s") == 2
    err = capsys.readouterr().err
    assert "unknown status 'exploded'" in err and "predictions.jsonl:1" in err


def test_a_cut_off_answer_is_truncated_and_not_read_as_a_verdict(smoke, tmp_path, capsys):
    from gridwm_judge.testing.stub_server import ok

    cut = ("Let me check the frames. In frame 3 the agent picks up the key, which looks like "
           "success so far, but then in frame")
    run = tmp_path / "cut"
    with StubServer() as server:
        server.script("", *[ok(cut, finish_reason="length")] * 200)
        assert _eval(smoke, run, "--tasks", "c", "--judge", "openai:stub", "--base-url",
                     server.base_url, "--retries", "0") == 0
    records = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
    assert records and all(r["status"] == "truncated" for r in records)
    assert all(r["parsed"] is None and r["parse_mode"] == "invalid" for r in records)
    capsys.readouterr()
    assert _score(smoke, run, tmp_path / "s") == 0
    judge = json.loads((tmp_path / "s" / "scores.json").read_text())["judges"]["openai:stub"]
    cov = judge["coverage"]["C"]
    # a cut-off answer is an answer (counted), but an invalid one: never a success
    assert cov["answered"] == cov["asked"] and cov["invalid"] == cov["asked"]
    assert cov["statuses"] == {"truncated": cov["asked"]}
    results = Results.from_json(judge["results"])
    assert results.value(task="C", representation="composite", name="jacc_neu") == 0.0


def test_a_styled_record_without_item_digest_is_checked_with_its_style_budget(tmp_path, capsys):
    """Records that carry only a request hash (no item digest) are checked by recomputing it
    with the budget the row was asked with: the rationale style's is 4x the task's."""
    ds = tmp_path / "pa"
    assert main(["build", "--profile", "smoke", "--configs", "prompt_ablation",
                 "--out", str(ds)]) == 0
    run = tmp_path / "run"
    assert _eval(ds, run, "--tasks", "prompt_ablation", "--judge", "baseline:random",
                 "--max-tokens-pa", "100") == 0
    path = run / "predictions.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["uid"].rsplit(".", 1)[1] for r in records} == {
        "direct", "structured_verdict", "structured_rationale"}
    for r in records:
        r["item_digest"] = ""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()
    assert _score(ds, run, tmp_path / "s") == 0, capsys.readouterr().err
    # the check still refuses a record whose item changed
    records[0]["uid"], records[1]["uid"] = records[1]["uid"], records[0]["uid"]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _score(ds, run, tmp_path / "s2") == 2
    assert "answered a different item" in capsys.readouterr().err


def test_a_refusal_names_every_problem_not_a_count(smoke, tmp_path, capsys):
    """Two problems (an item that changed, a uid the dataset lacks): both are said, in one line
    (it used to say "(and 1 more problem(s))" without saying which)."""
    run, _ = _run_with_an_alien_uid(smoke, tmp_path)
    other = tmp_path / "other"
    shutil.copytree(smoke, other)
    _change_one_prompt(other)
    capsys.readouterr()
    assert _score(other, run, tmp_path / "refused") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "more problem" not in err
    assert "for uids the dataset does not hold" in err
    assert "answered a different item" in err

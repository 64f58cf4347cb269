"""The framework bridges' shared core: dataset items, one graded answer, a task's figures.

The figures a framework prints must equal `gridwm-judge score`'s point estimates for the same
answers: checked here through the real `score` command on a real smoke build.
"""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from gridwm_judge.cli import main
from gridwm_judge.dataset_io import load_task
from gridwm_judge.integrations.items import (
    grade_response,
    image_data_uri,
    load_items,
    printed_names,
    task_figures,
)
from gridwm_judge.records import PredictionRecord, ScoresRecord
from gridwm_judge.scoring.score import load_rows
from gridwm_judge.task_table import ALL_TASKS, task_spec


def test_items_are_the_dataset_rows_in_order_with_scores_digests(smoke_build):
    items = load_items(str(smoke_build), "task_c")
    ds = load_task(str(smoke_build), "task_c")
    assert [i.uid for i in items] == ds["uid"]
    assert [i.prompt for i in items] == ds["prompt"]
    assert [len(i.images) for i in items] == [len(x) for x in ds["images"]]
    digests = {r["uid"]: r["item_digest"] for r in load_rows(str(smoke_build), ["C"])}
    assert {i.uid: i.item_digest for i in items} == digests
    assert all("prompt" not in i.audit and "images" not in i.audit for i in items)
    split = load_items(str(smoke_build), "c", representation="split")
    assert split and {i.audit["representation"] for i in split} == {"split"}
    with pytest.raises(ValueError, match="unknown representation 'grid'"):
        load_items(str(smoke_build), "task_c", representation="grid")


def test_image_data_uri_keeps_the_stored_bytes(smoke_build):
    data = load_items(str(smoke_build), "task_d")[0].images[0]
    uri = image_data_uri(data)
    assert uri.startswith("data:image/png;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]) == data
    assert Image.open(io.BytesIO(data)).size[0] > 0
    with pytest.raises(ValueError, match="unknown image encoding"):
        image_data_uri(b"GIF89a....")


def test_grade_response_reads_like_score():
    audit = {"uid": "C.x.g1.cf.grid.orig.clean.neutral.composite", "task": "C", "label": 0,
             "answer": "No", "group_id": "g1", "variant": "cf"}
    assert grade_response("No", audit).correct
    row = grade_response("Yes.", audit)
    assert (row.verdict, row.correct, row.status) == (1, False, "ok")
    assert grade_response("", audit).status == "empty"
    assert grade_response("Yes, the agent", audit, truncated=True).status == "truncated"
    invalid = grade_response("I cannot tell from these frames.", audit)
    assert (invalid.parse_mode, invalid.verdict, invalid.correct) == ("invalid", -1, False)


def _score_values(scores: ScoresRecord, judge: str, task: str) -> dict:
    """Point estimates read from scores.json by explicit scope fields (not the bridge's
    naming)."""
    res = scores.judges[judge].results
    out = {}
    if task == "C":
        for rep in ("composite", "split"):
            for m in ("idr_raw", "idr_cond", "idr_rev", "p_active"):
                out[f"{m}_{rep}"] = res.value(task="C", representation=rep, name=m)
            for fam in ("temporal", "visual", "framing"):
                for m in ("ns", "jcr"):
                    out[f"{m}_{fam}_{rep}"] = res.value(task="C", representation=rep, probe=fam,
                                                        name=m)
        out["vcc_rep"] = res.value(task="C", name="vcc_rep")
    else:
        for m in ("idr_raw", "idr_cond", "p_active", "acc_cf"):
            out[m] = res.value(task="D", name=m)
        for fam in ("framing", "visual"):
            for m in ("ns", "jcr"):
                out[f"{m}_{fam}"] = res.value(task="D", probe=fam, name=m)
    return out


@pytest.mark.parametrize("config", ["task_c", "task_d"])
def test_figures_equal_score_on_the_same_answers(smoke_build, tmp_path, answer, config):
    items = load_items(str(smoke_build), config)
    run = tmp_path / "run"
    run.mkdir()
    with (run / "predictions.jsonl").open("w") as fh:
        for it in items:
            rec = PredictionRecord(uid=it.uid, judge="scripted", task=it.task,
                                   raw=answer(it.uid, it.audit), status="ok",
                                   request_hash="", item_digest=it.item_digest)
            fh.write(json.dumps(rec.to_json()) + "\n")
    assert main(["score", "--dataset", str(smoke_build), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s"),
                 "--n-resamples", "200", "--no-les"]) == 0
    scores = ScoresRecord.read(tmp_path / "s" / "scores.json")
    expected = _score_values(scores, "scripted", items[0].task)
    figures = task_figures([grade_response(answer(i.uid, i.audit), {**i.audit, "uid": i.uid})
                            for i in items])
    assert {k: figures[k] for k in expected} == expected
    # the scripted judge is not degenerate: the comparison is not between constants
    values = [v for v in expected.values() if v is not None]
    assert len(set(values)) > 2 and any(0 < v < 1 for v in values)
    with pytest.raises(ValueError, match="one task"):
        task_figures([grade_response("Yes", {"uid": "c", "task": "C", "label": 1}),
                      grade_response("Fail", {"uid": "d", "task": "D", "label": 0})])


@pytest.mark.parametrize("config", [t.config for t in ALL_TASKS if not t.imported])
def test_every_printed_figure_is_one_the_scorer_writes(config, answer, request):
    """What both bridges print (items.PRINTED) are names of figures the task's recipe writes
    on its world's smoke build: a listed name the scorer never writes would print NaN
    forever, silently."""
    spec = task_spec(config)
    build = (request.getfixturevalue("miniworld_smoke").out if spec.world == "miniworld"
             else request.getfixturevalue("smoke_build"))
    rows = [grade_response(answer(i.uid, i.audit), {**i.audit, "uid": i.uid})
            for i in load_items(str(build), config)]
    written = task_figures(rows)
    missing = [n for n in printed_names(spec) if n not in written]
    assert not missing, f"{config} prints figures its recipe does not write: {missing}"
    assert len(printed_names(spec)) >= 2
    # a probe family's figure is printed where the rows vary the presentation
    assert spec.probed == any(n.startswith(("ns_", "jcr_")) for n in printed_names(spec)) or (
        spec.recipe not in ("presentation_invariance", "reference_aided"))


def test_an_imported_exam_prints_what_its_rows_can_have():
    """The paper's exams are as published: composite storyboards, no presentation probes, so
    no split, NS, JCR or VCC_rep figure (each would be NaN forever); D-R reads its IDR under
    the eligible-pairs protocol too."""
    assert printed_names(task_spec("RC")) == ("idr_raw_composite", "idr_cond_composite",
                                              "idr_rev_composite", "p_active_composite")
    assert printed_names(task_spec("RDR")) == (
        "idr_raw", "idr_cond", "idr_rev", "p_active", "idr_raw_eligible_pairs",
        "idr_cond_eligible_pairs", "idr_rev_eligible_pairs", "p_active_eligible_pairs")

"""The lmms-eval task folder: YAMLs that follow the task table, and hook functions run on real
dataset rows (lmms-eval itself is not needed: the hooks are plain functions of a document)."""

from __future__ import annotations

import io
import json
import math

import datasets
import pytest
from bridge_helpers import lmms_yaml

from gridwm_judge.cli import main
from gridwm_judge.integrations import items, scores_schema
from gridwm_judge.integrations.items import Figures
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.records import PredictionRecord, ScoresRecord
from gridwm_judge.scoring.score import load_rows
from gridwm_judge.task_table import HARD_TASKS, TASKS, task_spec


def test_one_yaml_per_config_following_the_task_table():
    template = lmms_yaml("_default_template_yaml")
    assert template["output_type"] == "generate_until" and template["test_split"] == "test"
    # lmms-eval's CLT standard errors read this field of each graded row, clustered by group
    assert (template["score_key"], template["cluster_key"]) == ("correct", "group_id")
    for hook in ("doc_to_visual", "doc_to_text", "process_results"):
        kind, ref = template[hook]
        assert kind == "function" and callable(getattr(utils, ref.split(".", 1)[1]))
    for spec in TASKS + HARD_TASKS:
        doc = lmms_yaml(f"gridwm_{spec.config}.yaml")
        assert doc["include"] == "_default_template_yaml"
        assert (doc["task"], doc["dataset_name"]) == (f"gridwm_{spec.config}", spec.config)
        gen = doc["generation_kwargs"]
        assert gen["max_new_tokens"] == spec.max_tokens and gen["temperature"] == 0
        assert gen["do_sample"] is False
        names = [m["metric"] for m in doc["metric_list"]]
        assert names == list(utils.metric_names(spec.name))
        # no accuracy pooled over Task A's orig / shuffle / mask rows
        assert ("accuracy" in names) == (spec.recipe != "next_state")
        for m in doc["metric_list"]:
            assert m["aggregation"] == ("function", f"utils.agg_{m['metric']}")
            assert callable(getattr(utils, f"agg_{m['metric']}"))


@pytest.mark.parametrize("config", ["task_c", "task_d"])
def test_hooks_on_real_rows_equal_score(smoke_build, tmp_path, answer, config):
    docs = datasets.load_dataset(str(smoke_build), config, split="test")
    raw_docs = docs.cast_column("images", datasets.List(datasets.Image(decode=False)))
    per_metric: dict[str, list] = {}
    run = tmp_path / "run"
    run.mkdir()
    digests = {r["uid"]: r["item_digest"] for r in load_rows(str(smoke_build), [config])}
    with (run / "predictions.jsonl").open("w") as fh:
        for doc, raw in zip(docs, raw_docs, strict=True):
            visuals = utils.doc_to_visual(doc)
            assert [v.mode for v in visuals] == ["RGB"] * len(raw["images"])
            from PIL import Image

            stored = [Image.open(io.BytesIO(im["bytes"])).convert("RGB") for im in raw["images"]]
            assert [v.tobytes() for v in visuals] == [s.tobytes() for s in stored]  # same order
            assert utils.doc_to_text(doc, {"pre_prompt": "x"}) == doc["prompt"]
            said = answer(doc["uid"], doc)
            for name, value in utils.process_results(doc, [said]).items():
                per_metric.setdefault(name, []).append(json.loads(json.dumps(value)))
            fh.write(json.dumps(PredictionRecord(
                uid=doc["uid"], judge="scripted", task=doc["task"], raw=said, status="ok",
                request_hash="", item_digest=digests[doc["uid"]]).to_json()) + "\n")
    assert main(["score", "--dataset", str(smoke_build), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s"),
                 "--n-resamples", "100", "--no-les"]) == 0
    # the file a real score run writes is valid under the schema generated now
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads((tmp_path / "s" / "scores.json").read_text()),
                        scores_schema.scores_schema())
    judge = ScoresRecord.read(tmp_path / "s" / "scores.json").judges["scripted"]
    task = task_spec(config).name
    aggregated = {n: getattr(utils, f"agg_{n}")(rows) for n, rows in per_metric.items()}
    if task == "C":
        res = judge.results
        expected = {
            "idr_raw_composite": res.one(task="C", representation="composite", name="idr_raw"),
            "p_active_split": res.one(task="C", representation="split", name="p_active"),
            "ns_framing_composite": res.one(task="C", representation="composite",
                                            probe="framing", name="ns"),
            "vcc_rep": res.one(task="C", name="vcc_rep"),
        }
    else:
        res = judge.results
        expected = {"idr_raw": res.one(task="D", name="idr_raw"),
                    "idr_cond": res.one(task="D", name="idr_cond"),
                    "jcr_framing": res.one(task="D", probe="framing", name="jcr")}
    for name, metric in expected.items():
        assert metric is not None and metric.value is not None, name
        assert aggregated[name] == pytest.approx(metric.value), name
    undefined = sorted(n for n, v in aggregated.items() if math.isnan(v))
    scope = {"task": "C", "representation": "composite"} if task == "C" else {"task": "D"}
    for name in undefined:  # NaN exactly where score has no value (a family with no rows)
        metric, fam = name.split("_")[:2]
        assert metric in ("ns", "jcr"), name
        assert judge.results.one(probe=fam, name=metric, **scope).status == "undefined", name
    assert 0 < aggregated["accuracy"] < 1


def test_an_unknown_metric_name_is_an_error_naming_where_it_came_from(monkeypatch):
    """A name outside the results' registry never reaches a YAML (where it would print NaN):
    asking for it is a ValueError naming it and the task, as is a name of the registry that is
    not a figure, and a prompt style the task is not asked in."""
    d = task_spec("D")
    monkeypatch.setitem(items.PRINTED, d.recipe, (Figures("idr", ("idr_rwa",)),))
    with pytest.raises(ValueError, match="unknown metric name 'idr_rwa' in the printed "
                                         "figures of task_d; expected a figure of "
                                         "gridwm_judge.results.FIGURE_NAMES: jacc_neu"):
        utils.figures_of(d)
    monkeypatch.setitem(items.PRINTED, d.recipe, (Figures("idr", ("n_pairs",)),))
    with pytest.raises(ValueError, match="metric 'n_pairs' in the printed figures of task_d "
                                         "is not a figure"):
        utils.metric_names("D")
    with pytest.raises(ValueError, match="prompt_ablation has no prompt style 'terse'; "
                                         "expected one of direct"):
        utils.metric_names("PA/terse")
    with pytest.raises(ValueError, match="has no prompt style 'direct'"):
        utils.process_results({"task": "D", "prompt_style": "direct", "uid": "u"}, ["Fail"])


def test_an_undefined_figure_stays_nan(smoke_build, answer):
    """A figure the rows cannot give (no split storyboards: no split IDR, no VCC_rep) is NaN,
    as score leaves it undefined; a known name is never an error for being undefined."""
    docs = datasets.load_dataset(str(smoke_build), "task_c", split="test")
    docs = docs.filter(lambda r: r == "composite", input_columns="representation")
    graded = [utils.process_results(doc, [answer(doc["uid"], doc)])["vcc_rep"] for doc in docs]
    assert graded
    assert math.isnan(utils.agg_vcc_rep(graded)) and math.isnan(utils.agg_idr_raw_split(graded))
    assert 0 <= utils.agg_idr_raw_composite(graded) <= 1

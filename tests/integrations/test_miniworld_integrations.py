"""MiniWorld's configs in the framework bridges: the inspect_ai tasks
``gridwm_judge/miniworld_a|c|d`` and the lmms-eval YAMLs ``gridwm_miniworld_a|c|d``, on a real
``miniworld_smoke`` build, print the same metrics as ``gridwm-judge score`` for the same answers.
Skipped without the ``3d`` extra; the inspect part also without the ``inspect`` extra."""

from __future__ import annotations

import hashlib
import json
import math

import datasets
import pytest
from bridge_helpers import lmms_yaml, mock_model, score_judge, write_predictions

pytest.importorskip("pyglet", reason="needs the 3d extra")

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.integrations.items import CONDITION_FIGURES, pooled_accuracy  # noqa: E402
from gridwm_judge.integrations.lmms_eval import utils  # noqa: E402
from gridwm_judge.task_table import MINIWORLD_TASKS, Choice, task_spec  # noqa: E402

CONFIGS = [t.config for t in MINIWORLD_TASKS]


@pytest.fixture(scope="module")
def mw_build(miniworld_smoke):
    return miniworld_smoke.out


def mw_answer(uid: str, audit) -> str:
    """A deterministic answer in the task's own words: mostly right, some wrong, some CF
    accepted, some that do not parse (NoCue rows only for verdicts, so the smoke build's two
    groups keep parseable Full / CF pairs and every metric is defined)."""
    spec = task_spec(str(audit["task"]))
    h = int(hashlib.sha256(uid.encode()).hexdigest(), 16) % 10
    if h == 0 and audit["variant"] in ("", "nocue"):
        return "I cannot tell from these views."
    if isinstance(spec.answer, Choice):
        letters = spec.answer.options
        gold = str(audit["answer"])
        return letters[(letters.index(gold) + 1) % len(letters)] if h < 4 else gold
    success, failure = spec.answer.options
    if h == 1:
        return failure if audit["label"] == 1 else success
    if audit["variant"] == "cf" and h < 5:
        return f"{success}."
    return success if audit["label"] == 1 else failure


def expected_figures(judge, task: str) -> dict[str, float]:
    """score's point estimates under the bridges' flat names (see items.task_figures)."""
    spec = task_spec(task)
    res = judge.results
    out: dict[str, float | None] = {}
    if spec.recipe == "next_state":
        for m in ("acc_a1", "acc_shuffle", "acc_mask", "delta_shuffle", "delta_mask"):
            out[m] = res.value(task=task, name=m)
    elif spec.recipe == "presentation_invariance":
        out["vcc_rep"] = res.value(task=task, name="vcc_rep")
        for rep in ("composite", "split"):
            for m in ("idr_raw", "idr_cond", "idr_rev", "p_active"):
                out[f"{m}_{rep}"] = res.value(task=task, representation=rep, name=m)
            for fam in ("temporal", "visual", "framing"):
                for m in ("ns", "jcr"):
                    out[f"{m}_{fam}_{rep}"] = res.value(task=task, representation=rep,
                                                        probe=fam, name=m)
    else:
        for m in ("idr_raw", "idr_cond", "idr_rev", "p_active"):
            out[m] = res.value(task=task, name=m)
        for fam in ("framing", "visual"):
            for m in ("ns", "jcr"):
                out[f"{m}_{fam}"] = res.value(task=task, probe=fam, name=m)
    return {k: v for k, v in out.items() if v is not None}


# --- lmms-eval ------------------------------------------------------------------------------


def test_lmms_eval_yaml_per_miniworld_config_follows_the_task_table():
    for spec in MINIWORLD_TASKS:
        doc = lmms_yaml(f"gridwm_{spec.config}.yaml")
        assert doc["include"] == "_default_template_yaml"
        assert (doc["task"], doc["dataset_name"]) == (f"gridwm_{spec.config}", spec.config)
        gen = doc["generation_kwargs"]
        assert (gen["max_new_tokens"], gen["temperature"], gen["do_sample"]) == (
            spec.max_tokens, 0, False)
        names = [m["metric"] for m in doc["metric_list"]]
        assert names == list(utils.metric_names(spec.name))
        # MA: accuracy per action condition only, never pooled
        assert ("accuracy" in names) == (spec.recipe != "next_state")
        # the same metrics as MiniGrid's task of the same recipe (a hard config's: CH)
        (twin,) = [n for n in ("A", "C", "CH", "D") if task_spec(n).recipe == spec.recipe
                   and task_spec(n).probed == spec.probed]
        assert utils.FIGURES[spec.name] == utils.FIGURES[twin]
        for m in doc["metric_list"]:
            assert m["aggregation"] == ("function", f"utils.agg_{m['metric']}")
            assert callable(getattr(utils, f"agg_{m['metric']}"))


@pytest.mark.parametrize("config", CONFIGS)
def test_lmms_eval_hooks_on_miniworld_rows_equal_score(mw_build, tmp_path, config):
    docs = datasets.load_dataset(str(mw_build), config, split="test")
    per_metric: dict[str, list] = {}
    said = {}
    for doc in docs:
        visuals = utils.doc_to_visual(doc)
        assert len(visuals) == len(doc["images"]) > 0
        assert all(v.mode == "RGB" for v in visuals)
        assert utils.doc_to_text(doc) == doc["prompt"]
        said[doc["uid"]] = mw_answer(doc["uid"], doc)
        for name, value in utils.process_results(doc, [said[doc["uid"]]]).items():
            per_metric.setdefault(name, []).append(json.loads(json.dumps(value)))
    task = task_spec(config).name
    assert sorted(per_metric) == sorted(utils.metric_names(task))
    write_predictions(tmp_path / "p.jsonl", mw_build, config, said)
    judge = score_judge(mw_build, tmp_path / "p.jsonl", tmp_path / "s", "scripted")
    aggregated = {n: getattr(utils, f"agg_{n}")(rows) for n, rows in per_metric.items()}
    expected = expected_figures(judge, task)
    shown = {k: v for k, v in expected.items() if k in utils.FIGURES[task]}
    assert shown, "no figure to compare"
    assert {k: aggregated[k] for k in shown} == pytest.approx(shown)
    # NaN exactly where score has no value (e.g. a probe family the smoke build lacks)
    for name, value in aggregated.items():
        if math.isnan(value):
            assert name not in expected, name
    cov = judge.coverage[task]
    if "accuracy" in per_metric:
        assert aggregated["accuracy"] == pytest.approx(
            sum(r["correct"] for r in per_metric["accuracy"]) / cov.answered)
    for name, cond in CONDITION_FIGURES.get(task_spec(task).recipe, {}).items():
        assert {r["action_condition"] for r in per_metric[name]} == {cond}
        assert aggregated[name] == pytest.approx(
            sum(r["correct"] for r in per_metric[name]) / (cov.answered / 3))


# --- inspect_ai -----------------------------------------------------------------------------


def test_inspect_has_a_task_per_miniworld_config():
    pytest.importorskip("inspect_ai")
    from gridwm_judge.integrations import inspect_tasks

    for spec in MINIWORLD_TASKS:
        assert callable(getattr(inspect_tasks, spec.config)), spec.config


@pytest.mark.parametrize("config", CONFIGS)
def test_inspect_eval_of_miniworld_equals_score(mw_build, tmp_path, config):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval

    spec = task_spec(config)
    model, items, seen = mock_model(mw_build, config, mw_answer)
    [log] = inspect_eval(f"gridwm_judge/{config}", model=model,
                         task_args={"dataset": str(mw_build)}, log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success" and len(log.samples) == len(items)
    assert {(s[2], s[3]) for s in seen} == {(0.0, spec.max_tokens)}
    printed = {k: m.value for s in log.results.scores for k, m in s.metrics.items()}

    run, out = tmp_path / "run", tmp_path / "scores"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    judge = score_judge(mw_build, run / "predictions.jsonl", out, "inspect/mockllm/model")
    expected = expected_figures(judge, spec.name)
    assert len(expected) >= 3 and len(set(expected.values())) >= 2  # not a constant judge
    assert expected and {k: printed[k] for k in expected} == pytest.approx(expected)
    said = {i.item_digest: mw_answer(i.uid, i.audit) for i in reversed(items)}
    correct = sum(said[i.item_digest].rstrip(".") == str(i.audit["answer"]) for i in items)
    if pooled_accuracy(spec):
        assert printed["accuracy"] == pytest.approx(correct / len(items))
    else:  # MA: per action condition only
        assert "accuracy" not in printed and "stderr" not in printed
        assert {"acc_a1", "acc_shuffle", "acc_mask", "acc_a1_stderr"} <= set(printed)
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    tables = tmp_path / "rep" / "tables"
    # a hard config has its own table; the headline reads the paper configs, so a run of the
    # hard config alone leaves it out
    hard = config.endswith("_hard")
    assert (tables / "miniworld_headline.md").exists() is not hard
    assert (tables / "hard_counterfactuals.md").exists() is hard

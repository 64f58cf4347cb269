"""The recipes' results against the previous format's blocks: the same figures, flat.

``tests/data/scores_v2_blocks.json.gz`` holds graded rows (two judges on the tiny A-E dataset of
``scoring_data``, Oracle-State and prompt-ablation rows of their scoring tests) and the nested
blocks the format-2 scorer (package 0.2.1) made of them with 300 resamples. Read through
:func:`~gridwm_judge.scoring.scores_file.upgrade` those blocks must give the very results the
recipes emit now for the same rows: every figure, interval, count, flag and test, in the same
order. The leakage model's fitted numbers are compared by presence and scope only (its fit is
the statistics module's to change).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from gridwm_judge.records import ScoresRecord
from gridwm_judge.results import SCOPE_FIELDS, MetricResult, Results
from gridwm_judge.scoring import read_scores
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.recipes import recipe_for
from gridwm_judge.scoring.scores_file import flatten, upgrade
from gridwm_judge.task_table import task_spec

DATA = Path(__file__).resolve().parents[1] / "data" / "scores_v2_blocks.json.gz"
LES = ("les", "les_d_logit", "les_beta", "les_std_error", "les_sigma")


@pytest.fixture(scope="module")
def fixture():
    return json.loads(gzip.decompress(DATA.read_bytes()))


def _scope(r: MetricResult) -> tuple:
    return (r.task, r.world, r.name, *(getattr(r, f) for f in SCOPE_FIELDS))


def held_by(old: Results, new: Results) -> list[MetricResult]:
    """The results of ``new`` at the scopes the format-2 blocks ``old`` hold (in ``new``'s
    order): a result added since (NS against one level of a probe family, 0.4.0, or any
    figure to come) is not compared, and needs no edit here."""
    scopes = {_scope(r) for r in old}
    return [r for r in new if _scope(r) in scopes]


def comparable(results: Sequence[MetricResult]) -> list[MetricResult]:
    """The results with the leakage fit's numbers blanked (kept: name, scope, status)."""
    return [dataclasses.replace(r, value=None, p_value=None, method=None, note=None,
                                detail=None, status="ok") if r.name in LES else r
            for r in results]


def _score(case, n_resamples):
    spec = task_spec(case["task"])
    rows = [GradedRow(**r) for r in case["rows"]]
    return recipe_for(spec).score(rows, spec, Settings(n_resamples=n_resamples))


def test_every_recipe_emits_what_the_previous_blocks_held(fixture):
    recipes = set()
    for case in fixture["cases"]:
        new = _score(case, fixture["n_resamples"])
        old = flatten(case["task"], case["block"])
        assert comparable(held_by(old, new)) == comparable(old), (case["judge"],
                                                                    case["task"])
        assert len(new) > 5
        recipes.add(task_spec(case["task"]).recipe)
    assert recipes == {"next_state", "perception", "presentation_invariance",
                       "reference_aided", "state_tracking", "oracle_state", "prompt_ablation"}


def test_a_previous_scores_json_reads_as_results(fixture, tmp_path):
    """A whole scores.json of format 2 (judges' ``tasks`` blocks, the comparisons keyed by
    name) reads as format 3; ScoresRecord alone refuses it and names the reader."""
    judges = {}
    for case in fixture["cases"]:
        j = judges.setdefault(case["judge"], {"coverage": {}, "failure_modes": [], "tasks": {}})
        j["tasks"][case["task"]] = case["block"]
    old = {"format": "gridwm-judge-scores/2", "package_version": "0.2.1", "dataset": "d",
           "dataset_fingerprint": None, "predictions": [], "runs": {},
           "parser": {"rules": "committed", "version": "x"}, "bootstrap": {}, "judges": judges,
           "comparisons": {"C_composite_vs_split": {"idr_raw": {
               "statistic": 0.0, "p_value": 0.5, "method": "exact", "n_judges": 2,
               "n_nonzero": 1, "p_holm": 1.0}}},
           "overrides": [], "elapsed_s": 0.0}
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(old))
    read = read_scores(path)
    assert read.to_json()["format"] == "gridwm-judge-scores/3"
    for case in fixture["cases"]:
        got = read.judges[case["judge"]].results.select(task=case["task"])
        assert comparable(got) == comparable(held_by(got, _score(case, fixture["n_resamples"])))
    where = {"task": "C", "representation": "split", "baseline": "composite",
             "condition": "idr_raw"}
    assert read.comparisons.one(name="wilcoxon", **where).p_value == 0.5
    assert read.comparisons.value(name="n_judges", **where) == 2
    assert upgrade(old)["format"] == "gridwm-judge-scores/3"
    with pytest.raises(ValueError, match="read it with gridwm_judge.scoring.read_scores, or "
                       "score the run again with `gridwm-judge score`"):
        ScoresRecord.read(path)
    path.write_text(json.dumps({**old, "format": "gridwm-judge-scores/1"}))
    with pytest.raises(ValueError, match="has format 'gridwm-judge-scores/1'"):
        read_scores(path)


def test_point_estimates_skip_the_bootstrap(fixture):
    """``Settings(intervals=False)`` (the framework bridges) gives the same values, no CIs."""
    case = next(c for c in fixture["cases"] if c["task"] == "C")
    spec = task_spec("C")
    rows = [GradedRow(**r) for r in case["rows"]]
    quick = recipe_for(spec).score(rows, spec, Settings(with_les=False, intervals=False))
    full = _score(case, 300).select(task="C")
    figures = [r for r in full if r.is_figure]
    assert [(r.name, r.value) for r in quick if r.is_figure] == [
        (r.name, r.value) for r in figures]
    assert all(r.ci is None for r in quick) and any(r.ci is not None for r in figures)
    assert not quick.select(name="les")

"""The published figures: which a config declares, and how each is read from results."""

import pytest
import yaml

from gridwm_judge.headlines import eval_yaml, figures_of, headline, headlines
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.task_table import ALL_TASKS, task_spec


def r(task, name, value, **scope):
    return MetricResult(task, "minigrid", name, value, ci=(value - 0.1, value + 0.1),
                        groups=40, **scope)


RESULTS = Results([
    r("C", "idr_raw", 0.7, representation="composite", protocol="eligible_pairs"),
    r("C", "idr_raw", 0.5, representation="split", protocol="eligible_pairs"),
    r("C", "idr_raw", 0.2, representation="composite", protocol="eligible_pairs",
      family="doorkey"),
    r("C", "ns", 0.9, representation="composite", probe="temporal", protocol="eligible_pairs"),
    r("C", "ns", 0.6, representation="composite", probe="visual", protocol="eligible_pairs"),
    r("C", "ns", 0.1, representation="split", probe="visual", protocol="eligible_pairs"),
    r("RDR", "idr_raw", 0.4, protocol="all_groups"),
    r("RDR", "idr_raw", 0.8, protocol="eligible_pairs"),
    r("A", "acc_a1", 0.55),
])


def test_a_figure_is_read_from_the_headline_scope():
    pick = {h.id: h.pick(RESULTS) for h in headlines(["task_c", "paper_task_d_r", "task_a"])}
    assert pick["task_c-idr_raw"].value == 0.7  # composite, no family
    assert pick["task_c-ns_min"].value == 0.6 and pick["task_c-ns_min"].probe == "visual"
    assert pick["paper_task_d_r-idr_raw"].value == 0.4  # the task's own protocol
    assert pick["task_a-acc_a1"].value == 0.55
    assert pick["task_c-vcc_rep"] is None and pick["task_c-jcr_min"] is None


def test_stability_figures_only_where_presentations_vary():
    # a hard config: the neutral presentation only, composite and split
    assert [f for f, _ in figures_of(task_spec("CH"))] == ["idr_raw", "jacc_neu", "vcc_rep"]
    assert [f for f, _ in figures_of(task_spec("RC"))] == ["idr_raw", "jacc_neu"]
    assert "ns_min" in [f for f, _ in figures_of(task_spec("MC"))]
    assert figures_of(task_spec("B")) == () and figures_of(task_spec("OS")) == ()
    ids = [h.id for h in headlines(s.config for s in ALL_TASKS)]
    assert len(ids) == len(set(ids))


def test_eval_yaml_has_the_hubs_keys_only():
    assert yaml.safe_load(eval_yaml(["task_b"], "test"))["tasks"] == []
    doc = yaml.safe_load(eval_yaml(["task_a", "task_c_hard"], "test"))
    assert list(doc) == ["name", "description", "evaluation_framework", "tasks"]
    assert doc["tasks"] == [{"id": "task_a-acc_a1", "config": "task_a", "split": "test"},
                            {"id": "task_c_hard-idr_raw", "config": "task_c_hard",
                             "split": "test"},
                            {"id": "task_c_hard-jacc_neu", "config": "task_c_hard",
                             "split": "test"},
                            {"id": "task_c_hard-vcc_rep", "config": "task_c_hard",
                             "split": "test"}]


def test_an_unknown_headline_names_the_known_ones():
    assert headline("task_a-acc_a1", ["task_a"]).metric == "acc_a1"
    with pytest.raises(ValueError, match="expected one of task_a-acc_a1"):
        headline("task_a-idr_raw", ["task_a"])

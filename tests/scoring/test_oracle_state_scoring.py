"""Oracle-State scoring against hand-computed values: stage accuracies, joint, per-arm IDR,
paired arm differences (group and environment CIs), VCC_oracle, McNemar; the normalisation
rules and the parser's strict / recovered / invalid modes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gridwm_judge.parsing import parse_answer
from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.grading import graded_row
from gridwm_judge.scoring.oracle_state import (
    chance_levels,
    grade_staged,
    objective_label,
    score_oracle_state,
    stage_accuracies,
    stage_hits,
    task_type_key,
    verdict_code,
)
from gridwm_judge.scoring.paired import paired_difference
from gridwm_judge.task_table import OS_TASK_TYPES, task_spec

TT = OS_TASK_TYPES[0]
GOLD = {"full": {"task_type": TT, "objective": "goal_green", "verdict": "Success"},
        "cf": {"task_type": TT, "objective": "goal_green", "verdict": "Fail"}}
ENV = {"g1": "e1", "g2": "e1", "g3": "e2"}
N = 2000


def _answer(verdict: str, wrong: str = "") -> dict:
    out = {"task_type": TT, "objective": "goal_green", "verdict": verdict}
    if wrong == "task_type":
        out["task_type"] = OS_TASK_TYPES[1]
    elif wrong == "objective":
        out["objective"] = "ball_red"
    return out


# (group, variant) -> (verdict, wrong stage) per arm; see the hand computation below
PIXEL = {("g1", "full"): ("Success", ""), ("g1", "cf"): ("Success", ""),
         ("g2", "full"): ("Fail", ""), ("g2", "cf"): ("Fail", "task_type"),
         ("g3", "full"): ("Success", ""), ("g3", "cf"): ("Fail", "")}
STATE = {("g1", "full"): ("Success", ""), ("g1", "cf"): ("Fail", ""),
         ("g2", "full"): ("Success", ""), ("g2", "cf"): ("Fail", "objective"),
         ("g3", "full"): ("Success", ""), ("g3", "cf"): ("Fail", "")}


def _rows(arms=(("pixel", PIXEL), ("state", STATE))):
    rows = []
    for arm, table in arms:
        for (g, variant), (verdict, wrong) in table.items():
            item = f"OS.{g}.{variant}"
            row = {"uid": f"{item}.{arm}", "task": "OS", "family": "doorkey", "env_id": ENV[g],
                   "group_id": g, "item_id": item, "variant": variant, "evidence": arm,
                   "answer": json.dumps(GOLD[variant])}
            value = _answer(verdict, wrong)
            rows.append(graded_row("j", row, "ok", "strict", value, grade_staged(value, row)))
    return rows


def _score(rows):
    return score_oracle_state(rows, task_spec("OS"), Settings(n_resamples=N))


def _m(res, name, **where):
    return res.one(task="OS", name=name, **where)


def _nd(m):
    return (m.numerator, m.denominator)


def test_stage_accuracies_joint_and_idr_by_hand():
    res = _score(_rows())
    px, st = {"arm": "pixel"}, {"arm": "state"}
    # pixel: verdicts right on g1.full, g2.cf, g3.full, g3.cf = 4/6; task type wrong once
    assert _nd(_m(res, "verdict", **px)) == (4, 6)
    assert (_m(res, "task_type", **px).numerator, _m(res, "objective", **px).numerator) == (5, 6)
    assert _nd(_m(res, "joint", **px)) == (3, 6)  # g1.full, g3.full, g3.cf
    assert tuple(_m(res, k, **st).numerator for k in ("verdict", "objective", "joint")) == (
        6, 5, 5)
    assert _m(res, "p_active", **px).value == pytest.approx(2 / 3)  # g1, g3 Full accepted
    assert _m(res, "idr_raw", **px).value == pytest.approx(1 / 3)  # only g3 rejects its CF
    assert _m(res, "idr_cond", **px).value == pytest.approx(1 / 2)
    assert (_m(res, "p_active", **st).value, _m(res, "idr_raw", **st).value) == (1.0, 1.0)
    assert _m(res, "g_active", **px).value == 2 and _m(res, "n_invalid", **px).value == 0
    joint = _m(res, "joint", **px)
    lo, hi = joint.ci
    assert 0 <= lo <= 0.5 <= hi <= 1 and joint.ci_env is not None and joint.env_level


def test_paired_differences_by_hand():
    res = _score(_rows())
    where = {"arm": "state", "baseline": "pixel"}
    joint, idr_raw = _m(res, "joint", **where), _m(res, "idr_raw", **where)
    assert _m(res, "n_items", **where).value == 6 and joint.groups == 3
    assert joint.value == pytest.approx(5 / 6 - 3 / 6)
    assert idr_raw.value == pytest.approx(1 - 1 / 3)
    # the same interval from hand-written per-group sums: joint right per group / rows
    groups = ("g1", "g2", "g3")
    state = GroupRatio(groups, np.array([2.0, 1.0, 2.0]), np.array([2.0, 2.0, 2.0]))
    pixel = GroupRatio(groups, np.array([1.0, 0.0, 2.0]), np.array([2.0, 2.0, 2.0]))
    hand = paired_difference(state, pixel, n_resamples=N)
    assert list(joint.ci) == hand.ci.as_list()
    env = paired_difference(state, pixel, n_resamples=N, clusters=ENV)
    assert list(joint.ci_env) == env.ci.as_list()
    # env level: e1 holds g1+g2 (diff 2/4), e2 holds g3 (diff 0): every draw lies in [0, 1/2]
    assert 0.0 <= env.ci.low <= env.ci.high <= 0.5
    # IDR_raw per group: state 1,1,1 of 1; pixel 0,0,1 of 1
    idr = paired_difference(GroupRatio(groups, np.ones(3), np.ones(3)),
                            GroupRatio(groups, np.array([0.0, 0.0, 1.0]), np.ones(3)),
                            n_resamples=N)
    assert list(idr_raw.ci) == idr.ci.as_list()
    # McNemar per group on discrimination: state discriminates on g1, g2 where pixel does not
    test = _m(res, "mcnemar_idr", **where)
    assert test.denominator == 2 and test.p_value == pytest.approx(0.5)
    assert not res.select(arm="pixel_state", baseline="pixel")


def test_identical_arms_differ_by_zero_with_a_zero_interval():
    res = _score(_rows((("pixel", PIXEL), ("pixel_state", PIXEL))))
    for metric in ("joint", "idr_raw"):
        d = _m(res, metric, arm="pixel_state", baseline="pixel")
        assert d.value == 0.0 and d.ci == (0.0, 0.0) and d.ci_env == (0.0, 0.0)
    assert _m(res, "vcc_pixel_state").value == 1.0
    assert not res.select(name="vcc_oracle")  # no state arm


def test_vcc_oracle_by_hand():
    res = _score(_rows())
    # agree: g1.full, g2.cf, g3.full, g3.cf; disagree: g1.cf (S/F), g2.full (F/S)
    assert _nd(_m(res, "vcc_oracle")) == (4, 6)
    assert _nd(_m(res, "vcc_oracle_given_success")) == (2, 3)
    assert _nd(_m(res, "vcc_oracle_given_failure")) == (2, 3)


def test_differences_pair_only_items_answered_in_both_arms():
    rows = [r for r in _rows() if not (r.evidence == "state" and r.item_id == "OS.g2.full")]
    res = _score(rows)
    where = {"arm": "state", "baseline": "pixel"}
    assert _m(res, "n_items", **where).value == 5
    # joint on the 5 shared items (g2.full out): state 4/5 (g2.cf wrong), pixel 3/5
    assert _m(res, "joint", **where).value == pytest.approx(4 / 5 - 3 / 5)


def test_chance_levels_are_results_of_each_arm():
    res = _score(_rows())
    for arm in ("pixel", "state"):
        verdict = _m(res, "chance_best_constant", arm=arm, condition="verdict")
        assert (verdict.value, verdict.denominator) == (0.5, 6)
        joint = _m(res, "chance_best_constant", arm=arm, condition="joint")
        assert json.loads(joint.detail) == GOLD["full"]  # the first of two tied triples
        assert _m(res, "chance_uniform", arm=arm, condition="verdict").value == 0.5


def test_normalisation_rules():
    assert objective_label("Yellow Ball") == objective_label("ball_yellow") == "ball_yellow"
    assert objective_label("yellow-ball") == "ball_yellow"
    assert objective_label("the yellow ball") == "the_yellow_ball"  # not a label: no match
    assert objective_label(None) is None and objective_label("  ") is None
    assert task_type_key(" Pick up key → unlock door ->  reach goal. ") == task_type_key(TT)
    assert task_type_key(3) is None
    # copied from the prompt's bulleted list, or quoted: still the same type
    assert task_type_key(f"- {TT}") == task_type_key(f'"{TT}"') == task_type_key(TT)
    assert task_type_key(f'"{TT}".') == task_type_key(f"**{TT}**.") == task_type_key(TT)
    # the verdict field is read as the prompt ablation's JSON verdicts are (not exact match)
    assert [verdict_code(v) for v in ("Success", "FAIL", "failure", "Fail.", "**Success**",
                                      "Yes", "maybe", None)] == [1, 0, 0, 0, 1, 1, -1, -1]


def test_invalid_answer_is_wrong_at_every_stage():
    row = {"answer": json.dumps(GOLD["full"])}
    g = grade_staged(None, row)
    assert (g.correct, g.verdict, g.score) == (False, -1, 0.0)
    assert stage_hits({"verdict": "success"}, GOLD["full"]) == {
        "task_type": False, "objective": False, "verdict": True, "joint": False}
    g = grade_staged(_answer("Success", "objective"), row)
    assert (g.correct, g.verdict, g.score) == (False, 1, pytest.approx(2 / 3))


def test_stage_accuracies_need_matching_lengths():
    with pytest.raises(ValueError, match="2 graded answers but 1 group ids"):
        stage_accuracies([{}, {}], ["g"])


def test_the_parser_reads_staged_answers_strict_recovered_invalid():
    obj = {"task_type": TT, "objective": "goal_green", "verdict": "Fail"}
    parsed = parse_answer("OS", json.dumps(obj))
    assert (parsed.value, parsed.mode) == (obj, "strict")
    fenced = "Here it is:\n```json\n" + json.dumps(obj)[:-1] + ",}\n```"
    parsed = parse_answer("oracle_state", fenced)
    assert (parsed.value, parsed.mode) == (obj, "recovered")
    assert parse_answer("OS", '<think>{"verdict": "Success"}</think>' + json.dumps(obj)).value \
        == obj
    for raw in ('{"verdict": "Fail"}', "Fail", "", None, '{"task_type": "x", "objective": "y"}'):
        assert parse_answer("OS", raw).mode == "invalid"


def test_chance_levels_by_hand():
    """Uniform: 1/6, 1/30, 1/2 and their product; best constant: the most common gold
    answer's share (ties to the first seen), read as the grader reads answers."""
    a, b = OS_TASK_TYPES[:2]
    golds = [{"task_type": a, "objective": "goal_green", "verdict": "Success"},
             {"task_type": a, "objective": "ball_blue", "verdict": "Fail"},
             {"task_type": b, "objective": "green goal", "verdict": "Success"},
             {"task_type": b.upper(), "objective": "goal_green", "verdict": "Success"}]
    ch = chance_levels(golds)
    assert {k: v["uniform"] for k, v in ch.items()} == pytest.approx(
        {"task_type": 1 / 6, "objective": 1 / 30, "verdict": 1 / 2, "joint": 1 / 360})
    assert ch["task_type"]["best_constant"] == 0.5 and ch["task_type"]["best_constant_answer"] == a
    assert ch["objective"]["best_constant"] == 0.75  # "green goal" is goal_green
    assert ch["objective"]["best_constant_answer"] == "goal_green"
    assert (ch["verdict"]["best_constant"], ch["verdict"]["best_constant_answer"]) == (
        0.75, "Success")
    assert ch["joint"]["best_constant"] == 0.5  # b's two rows are one answer
    assert ch["joint"]["best_constant_answer"] == golds[2]
    assert all(v["n_rows"] == 4 for v in ch.values())
    empty = chance_levels([])
    assert all(v["best_constant"] is None and v["n_rows"] == 0 for v in empty.values())

"""Telling two judges apart: the paired IDR_raw difference, its bootstrap CI,
McNemar with Holm, and the groups needed when the size cannot tell them apart."""

from __future__ import annotations

import pytest

from gridwm_judge.scoring import power
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.judge_pairs import compare_pairs, discrimination


def _rows(judge: str, verdicts: dict[str, tuple[int, int]], task: str = "C",
          rep: str = "composite") -> list[GradedRow]:
    """Graded neutral rows: group -> (Full verdict, CF verdict); 1 accept, 0 reject."""
    out = []
    for g, (full, cf) in verdicts.items():
        for variant, v, gold in (("full", full, 1), ("cf", cf, 0)):
            out.append(GradedRow(
                judge=judge, uid=f"{task}.{g}.{variant}.{rep}", task=task, family="keycorridor",
                env_id="E", group_id=g, item_id=f"{g}.{variant}", variant=variant,
                temporal="orig", visual="clean", framing="neutral", representation=rep,
                probe_family="grid", action_condition="", question="", status="ok",
                parse_mode="strict", parsed="success" if v else "failure", gold=gold,
                verdict=v, correct=v == gold, score=None))
    return out


GROUPS = [f"g{i:02d}" for i in range(40)]


def test_a_judge_that_discriminates_every_group_is_told_from_one_that_never_does():
    good = _rows("good", {g: (1, 0) for g in GROUPS})
    yes = _rows("yes", {g: (1, 1) for g in GROUPS})
    assert discrimination(good, "C", "composite") == {g: True for g in GROUPS}
    (p,) = compare_pairs({"good": good, "yes": yes}, n_resamples=500)
    assert (p.a, p.b, p.groups, p.n_a_only, p.n_b_only) == ("good", "yes", 40, 40, 0)
    assert p.difference == 1.0 and p.ci == (1.0, 1.0) and p.distinguishable
    assert p.p_value < 1e-6


def test_a_small_difference_is_not_distinguishable_and_says_what_would_be():
    a = {g: (1, 0) for g in GROUPS}
    b = dict(a)
    for g in GROUPS[:4]:        # b misses four groups a gets, gets two a misses
        b[g] = (1, 1)
    for g in GROUPS[4:6]:
        a[g] = (0, 0)
    (p,) = compare_pairs({"a": _rows("a", a), "b": _rows("b", b)}, n_resamples=2000)
    assert (p.n_a_only, p.n_b_only) == (4, 2)
    assert p.difference == pytest.approx(2 / 40)
    assert p.ci[0] < p.difference < p.ci[1] and p.ci[0] < 0 < p.ci[1]
    assert not p.distinguishable
    assert p.groups_needed == power.paired_n_observed(2 / 40, 6 / 40) > 40


def test_only_shared_groups_count_and_holm_spans_the_pairs():
    a = _rows("a", {g: (1, 0) for g in GROUPS})
    b = _rows("b", {g: (1, 0) for g in GROUPS[:30]})
    c = _rows("c", {g: (0, 0) for g in GROUPS})
    pairs = {(p.a, p.b): p for p in compare_pairs({"a": a, "b": b, "c": c}, n_resamples=200)}
    assert pairs[("a", "b")].groups == 30 and pairs[("a", "b")].difference == 0
    assert pairs[("a", "b")].groups_needed is None
    assert all(p.family_size == 3 for p in pairs.values())
    raw = sorted(p.p_value for p in pairs.values())
    assert min(p.p_holm for p in pairs.values()) == pytest.approx(min(1.0, 3 * raw[0]))


def test_an_invalid_answer_follows_the_tasks_protocol():
    """Task C scores eligible pairs: a group with an unparsed Full answer is not counted."""
    a = _rows("a", {g: (1, 0) for g in GROUPS})
    b_verdicts = {g: (1, 0) for g in GROUPS}
    b_verdicts[GROUPS[0]] = (-1, 0)
    (p,) = compare_pairs({"a": a, "b": _rows("b", b_verdicts)}, n_resamples=200)
    assert p.groups == 39


def test_a_size_the_estimate_calls_enough_but_the_exact_test_does_not_asks_for_more():
    """Ten groups, one judge discriminates all, the other none: the normal-approximation
    estimate says ~10 groups suffice while exact McNemar (p = 0.002, but Holm over several
    pairs) may still not reject; the report must not say 10 are needed when 10 were used."""
    from dataclasses import replace

    from gridwm_judge.report.judge_pairs import verdict

    ten = GROUPS[:10]
    (p,) = compare_pairs({"a": _rows("a", {g: (1, 0) for g in ten}),
                          "b": _rows("b", {g: (1, 1) for g in ten})}, n_resamples=500)
    held = replace(p, p_holm=0.055, ci=(0.0, 1.0))   # as in a family of several pairs
    assert not held.distinguishable and held.groups_needed is not None
    assert held.groups_needed <= held.groups
    said = verdict(held)
    assert f"more than {held.groups} groups needed" in said
    assert f"~{held.groups_needed} groups needed" not in said

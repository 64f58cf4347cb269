"""Paired bootstrap differences: value, paired draws, environment clusters, bad input."""

import numpy as np
import pytest

from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.bootstrap import resample_weights
from gridwm_judge.scoring.paired import paired_difference

GROUPS = ("g0", "g1", "g2", "g3")


def ratio(num, den=(1, 1, 1, 1)):
    return GroupRatio(GROUPS, np.asarray(num, float), np.asarray(den, float))


def test_value_and_ci_match_a_hand_loop_over_the_same_draws():
    a, b = ratio([1, 1, 0, 1]), ratio([0, 1, 0, 0])
    d = paired_difference(a, b, n_resamples=500, seed=7)
    assert d.value == pytest.approx(0.75 - 0.25)
    w = resample_weights(4, 500, 7)
    by_hand = [(wi @ a.num) / wi.sum() - (wi @ b.num) / wi.sum() for wi in w.astype(float)]
    lo, hi = np.quantile(by_hand, [0.025, 0.975])
    assert (d.ci.low, d.ci.high) == (pytest.approx(lo), pytest.approx(hi))
    assert d.ci.n_undefined == 0


def test_identical_arms_have_a_zero_width_interval_because_the_draws_are_paired():
    a = ratio([1, 0, 1, 0])
    d = paired_difference(a, a, n_resamples=300)
    assert d.value == 0.0 and d.ci.low == 0.0 and d.ci.high == 0.0


def test_environment_clusters_resample_whole_environments():
    a, b = ratio([1, 1, 0, 0]), ratio([0, 0, 0, 0])
    # two envs, each internally constant: every draw is 0, 0.5 or 1 exactly
    d = paired_difference(a, b, n_resamples=400, clusters=["e1", "e1", "e2", "e2"])
    assert d.value == 0.5
    assert {d.ci.low, d.ci.high} <= {0.0, 0.5, 1.0}
    with pytest.raises(ValueError, match="clusters has 3 entries"):
        paired_difference(a, b, clusters=["e1", "e1", "e2"])


def test_undefined_draws_are_left_out_and_counted():
    a = ratio([1, 0, 0, 0], den=[1, 0, 0, 0])  # defined only when g0 is drawn
    b = ratio([0, 0, 0, 0])
    d = paired_difference(a, b, n_resamples=1000)
    assert d.value == 1.0
    assert 0 < d.ci.n_undefined < 1000 and d.ci.low == d.ci.high == 1.0


def test_arms_over_other_groups_are_refused():
    other = GroupRatio(("x",), np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="same groups"):
        paired_difference(ratio([1, 1, 1, 1]), other)

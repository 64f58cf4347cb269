"""LES from the mixed-effects logistic model: planted effects, nulls, edge statuses."""

import numpy as np
import pytest

from gridwm_judge.scoring import les
from gridwm_judge.scoring.leakage import LOGIT_SD

LEVELS = ("neutral", "positive", "negative")


def _simulate(effects, n_groups, seed, sigma=1.0, b0=0.0):
    rng = np.random.default_rng(seed)
    y, g, p = [], [], []
    for i in range(n_groups):
        u = rng.normal(0, sigma)
        for lv in LEVELS:
            prob = 1 / (1 + np.exp(-(b0 + effects.get(lv, 0.0) + u)))
            y.append(int(rng.random() < prob))
            g.append(f"g{i}")
            p.append(lv)
    return y, g, p


def test_recovers_a_planted_effect():
    fit = les(*_simulate({"negative": -1.5}, 120, seed=11), "neutral")
    assert fit.status == "ok"
    assert fit.level == "negative"
    assert fit.betas["negative"] == pytest.approx(-1.5, abs=0.5)
    assert abs(fit.betas["positive"]) < 0.6
    assert fit.p_value < 0.01
    assert fit.d_logit == pytest.approx(fit.les / LOGIT_SD)
    assert fit.odds_ratios["negative"] == pytest.approx(np.exp(fit.betas["negative"]))
    assert 0.3 < fit.sigma < 2.0


def test_near_zero_without_an_effect():
    fit = les(*_simulate({}, 120, seed=5), "neutral")
    assert fit.status == "ok"
    assert fit.les < 0.45
    assert fit.p_value > 0.05


def test_one_sided_flips_give_a_nonzero_effect_and_report_separation():
    # Full baseline all Yes; negative framing flips 5 of 18 groups to No, never the reverse
    y = [1] * 18 + [1] * 18 + [0] * 5 + [1] * 13
    g = [f"g{i}" for i in range(18)] * 3
    p = ["neutral"] * 18 + ["positive"] * 18 + ["negative"] * 18
    fit = les(y, g, p, "neutral")
    assert fit.status == "separation" and "neutral" in fit.message
    assert fit.level == "negative" and fit.betas["negative"] < -1.0
    assert set(fit.betas) == {"positive", "negative"}  # every non-baseline level counted


def test_constant_and_insufficient():
    const = les(
        [1] * 6, ["a", "a", "a", "b", "b", "b"], ["neutral", "positive", "negative"] * 2, "neutral"
    )
    assert const.status == "constant" and const.les == 0.0
    none = les([-1, -1], ["a", "a"], ["neutral", "positive"], "neutral")
    assert none.status == "insufficient" and none.les is None
    nobase = les([1, 0], ["a", "b"], ["positive", "positive"], "neutral")
    assert nobase.status == "insufficient" and "baseline" in nobase.message

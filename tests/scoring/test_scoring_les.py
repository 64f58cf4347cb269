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
    assert fit.p_value is not None and fit.p_value < 0.01
    assert fit.les is not None and fit.d_logit == pytest.approx(fit.les / LOGIT_SD)
    assert fit.odds_ratios["negative"] == pytest.approx(np.exp(fit.betas["negative"]))
    assert fit.sigma is not None and 0.3 < fit.sigma < 2.0


def test_near_zero_without_an_effect():
    fit = les(*_simulate({}, 120, seed=5), "neutral")
    assert fit.status == "ok"
    assert fit.les is not None and fit.les < 0.45
    assert fit.p_value is not None and fit.p_value > 0.05


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


def _independent_fit(y, g, p, levels):
    """The same model fitted without Gauss-Hermite or gradients: each group's marginal
    likelihood by Simpson's rule on a fine grid of u ~ N(0, sigma^2), maximised by
    Nelder-Mead. Groups with the same verdict pattern share one integral."""
    from collections import Counter

    from scipy import integrate, optimize
    from scipy.special import expit
    from scipy.stats import norm

    rows: dict[str, list[tuple[int, int]]] = {}
    for yi, gi, pi in zip(y, g, p, strict=True):
        rows.setdefault(gi, []).append((levels.index(pi), yi))
    patterns = Counter(tuple(sorted(r)) for r in rows.values())
    z = np.linspace(-10.0, 10.0, 1001)  # u = sigma * z

    def nll(theta):
        b, sigma = np.concatenate([[0.0], theta[1:-1]]) + theta[0], abs(theta[-1])
        total = 0.0
        for pattern, count in patterns.items():
            lik = norm.pdf(z)
            for k, v in pattern:
                q = expit(b[k] + sigma * z)
                lik = lik * (q if v else 1 - q)
            total -= count * np.log(integrate.simpson(lik, x=z))
        return total

    start = np.r_[0.0, np.zeros(len(levels) - 1), 1.0]
    res = optimize.minimize(nll, start, method="Nelder-Mead",
                            options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 4000})
    return res.x


def test_agrees_with_an_independent_fit_of_the_same_model():
    y, g, p = _simulate({"positive": 0.8, "negative": -1.2}, 40, seed=3, sigma=1.2, b0=0.4)
    fit = les(y, g, p, "neutral")
    assert fit.status == "ok"
    b0, b_neg, b_pos, sigma = _independent_fit(y, g, p, ["neutral", "negative", "positive"])
    assert fit.intercept == pytest.approx(b0, abs=1e-4)
    assert fit.betas["negative"] == pytest.approx(b_neg, abs=1e-4)
    assert fit.betas["positive"] == pytest.approx(b_pos, abs=1e-4)
    assert fit.sigma == pytest.approx(abs(sigma), abs=1e-4)


def test_planted_parameters_lie_in_their_confidence_intervals():
    truth = {"positive": 0.5, "negative": -1.0}
    y, g, p = _simulate(truth, 400, seed=21, sigma=1.5, b0=0.3)
    fit = les(y, g, p, "neutral")
    assert fit.status == "ok"
    for lv, beta in truth.items():
        se = fit.std_errors[lv]
        assert se is not None and 0.05 < se < 0.5
        assert abs(fit.betas[lv] - beta) < 1.96 * se, (lv, fit.betas[lv], se)
    assert fit.intercept == pytest.approx(0.3, abs=0.4)
    assert fit.sigma == pytest.approx(1.5, abs=0.5)


def test_the_hessian_is_the_derivative_of_the_gradient():
    from scipy.optimize import approx_fprime

    from gridwm_judge.scoring.leakage import _Model

    rng = np.random.default_rng(4)
    inv = np.repeat(np.arange(30), 3)
    X = np.zeros((90, 3))
    X[:, 0], X[1::3, 1], X[2::3, 2] = 1.0, 1.0, 1.0
    y = (rng.random(90) < 0.6).astype(int)
    theta = np.array([0.3, -0.5, 0.8, 1.3])
    for prior in (None, [10.0, 2.5, 2.5]):
        model = _Model(y, X, inv, 30, 40, prior)
        value = lambda t, m=model: m.value_and_grad(t)[0]  # noqa: E731
        grad = lambda t, m=model: m.value_and_grad(t)[1]  # noqa: E731
        assert grad(theta) == pytest.approx(approx_fprime(theta, value, 1e-7), abs=1e-5)
        numeric = approx_fprime(theta, grad, 1e-6)  # the Jacobian of the gradient
        assert model.hessian(theta) == pytest.approx(numeric, abs=1e-4)


def test_equal_effects_name_the_first_level():
    # a mirror image: 6 of 20 Yes groups turn No under "negative", 6 of 20 No groups turn Yes
    # under "positive"; swapping Yes/No and the two levels maps the data onto itself
    neutral = [1] * 20 + [0] * 20
    negative = [0] * 6 + [1] * 14 + [0] * 20
    positive = [1] * 20 + [1] * 6 + [0] * 14
    g = [f"g{i}" for i in range(40)] * 3
    p = ["neutral"] * 40 + ["negative"] * 40 + ["positive"] * 40
    fit = les(neutral + negative + positive, g, p, "neutral")
    assert fit.status == "ok" and fit.betas["negative"] < -0.5
    assert fit.betas["negative"] == pytest.approx(-fit.betas["positive"], abs=1e-6)
    assert fit.level == "negative"

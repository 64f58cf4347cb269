"""Group bootstrap, McNemar, Wilcoxon and Holm against reference values."""

import warnings

import numpy as np
import pytest
from scipy import stats

from gridwm_judge.scoring import (
    BOOTSTRAP_SEED,
    DEFAULT_RESAMPLES,
    GroupRatio,
    bootstrap_ratio,
    bootstrap_ratios,
    holm,
    mcnemar,
    mcnemar_paired,
    wilcoxon,
)
from gridwm_judge.scoring.bootstrap import resample_weights


def _ratio(num, den, prefix="g"):
    return GroupRatio(
        tuple(f"{prefix}{i:03d}" for i in range(len(num))),
        np.asarray(num, float),
        np.asarray(den, float),
    )


def test_defaults_match_the_paper():
    assert DEFAULT_RESAMPLES == 20_000 and BOOTSTRAP_SEED == 20261103


def test_vectorised_matches_a_per_resample_loop():
    rng = np.random.default_rng(0)
    den = rng.integers(1, 5, size=12).astype(float)
    num = np.floor(den * rng.random(12))
    r = _ratio(num, den)
    ci = bootstrap_ratio(r, n_resamples=500, seed=7)
    # the same draws, one resample at a time
    idx = np.random.default_rng(7).integers(0, 12, size=(500, 12))
    loop = np.array([num[i].sum() / den[i].sum() for i in idx])
    lo, hi = np.quantile(loop, [0.025, 0.975])
    assert ci.low == pytest.approx(lo) and ci.high == pytest.approx(hi)


def test_reproducible_and_contains_estimate():
    r = _ratio([1, 0, 3, 1, 0, 2, 1, 0, 4, 1], [1, 2, 5, 3, 1, 2, 4, 2, 5, 1])
    a = bootstrap_ratio(r, seed=123)
    b = bootstrap_ratio(r, seed=123)
    c = bootstrap_ratio(r, seed=124)
    assert a == b and a != c
    assert a.low <= r.value <= a.high
    assert resample_weights(10, 100, 1).sum(axis=1).tolist() == [10.0] * 100


def test_group_resampling_differs_from_row_resampling():
    """Ten groups of five identical rows: resampling rows pretends there are 50 independent
    items and gives a narrower interval than resampling whole groups."""
    group_correct = np.array([1, 1, 0, 1, 0, 1, 1, 1, 0, 0], float)
    by_group = _ratio(group_correct * 5, np.full(10, 5.0))
    by_row = _ratio(np.repeat(group_correct, 5), np.ones(50), prefix="row")
    assert by_group.value == by_row.value
    g = bootstrap_ratio(by_group, n_resamples=4000, seed=1)
    w = bootstrap_ratio(by_row, n_resamples=4000, seed=1)
    assert (g.high - g.low) > 1.5 * (w.high - w.low)


def test_environment_level_resampling_moves_whole_environments():
    # two environments with opposite outcomes: env resampling can draw one env twice
    r = _ratio([1, 1, 1, 0, 0, 0], [1] * 6)
    env = {"g000": "a", "g001": "a", "g002": "a", "g003": "b", "g004": "b", "g005": "b"}
    e = bootstrap_ratio(r, n_resamples=2000, seed=3, clusters=env)
    assert e.low == 0.0 and e.high == 1.0
    g = bootstrap_ratio(r, n_resamples=2000, seed=3)
    assert g.low > 0.0 and g.high < 1.0
    with pytest.raises(ValueError, match="one per group"):
        bootstrap_ratio(r, clusters=["a", "b"])


def test_undefined_resamples_are_counted_not_warned():
    r = _ratio([1, 0, 0], [1, 0, 0])  # only one group has a denominator
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = bootstrap_ratio(r, n_resamples=1000, seed=2)
        empty = bootstrap_ratio(_ratio([0, 0], [0, 0]), n_resamples=10)
    assert ci.n_undefined > 0 and ci.low == ci.high == 1.0
    assert empty.low is None and empty.n_undefined == 10
    with pytest.raises(ValueError, match="other groups"):
        bootstrap_ratios({"a": _ratio([1], [1]), "b": _ratio([1], [1], prefix="h")})


def test_mcnemar_exact_and_chi2_against_scipy():
    t = mcnemar(3, 9)
    assert t.method == "exact"
    assert t.p_value == pytest.approx(stats.binomtest(3, 12, 0.5).pvalue)
    t = mcnemar(10, 25)
    assert t.method == "chi2_cc"
    assert t.statistic == pytest.approx((abs(10 - 25) - 1) ** 2 / 35)
    assert t.p_value == pytest.approx(stats.chi2.sf(196 / 35, 1))
    assert mcnemar(0, 0).p_value == 1.0
    assert mcnemar(5, 5).p_value == 1.0
    p = mcnemar_paired([1, 1, 0, 0, 1], [1, 0, 1, 1, 1])
    assert (p.n, p.statistic) == (3, 1.0)
    with pytest.raises(ValueError, match="n01=-1"):
        mcnemar(-1, 2)


def test_wilcoxon_against_scipy():
    x = [0.61, 0.72, 0.55, 0.80, 0.67, 0.59, 0.74]
    y = [0.52, 0.70, 0.58, 0.64, 0.60, 0.50, 0.73]
    ref = stats.wilcoxon(x, y)
    t = wilcoxon(x, y)
    assert t.statistic == pytest.approx(ref.statistic) and t.p_value == pytest.approx(ref.pvalue)
    assert wilcoxon([0.5, 0.6], [0.5, 0.6]).p_value == 1.0
    rng = np.random.default_rng(2)
    for n in (3, 9, 30):  # exact regime, no ties
        a, b = rng.random(n), rng.random(n) + 0.1
        ref = stats.wilcoxon(a, b)
        t = wilcoxon(a, b)
        assert t.method == "exact"
        assert t.statistic == pytest.approx(ref.statistic) and t.p_value == pytest.approx(
            ref.pvalue
        )
    d = np.array([1, 1, -2, 3, 3, 3, -1, 4, 2, 5]) / 8  # tied magnitudes, exact in binary
    ref = stats.wilcoxon(d)
    t = wilcoxon(d, np.zeros(d.size))
    assert t.method == "permutation" and t.p_value == pytest.approx(ref.pvalue)
    d = np.tile(d, 3)[:20]  # ties and n > 13: normal approximation
    ref = stats.wilcoxon(d)
    t = wilcoxon(d, np.zeros(d.size))
    assert t.method == "normal" and t.p_value == pytest.approx(ref.pvalue)
    assert t.statistic == pytest.approx(ref.statistic)


def test_holm_hand_computed():
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> running max .06
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])
    assert holm([]).size == 0
    with pytest.raises(ValueError, match="1.5"):
        holm([0.1, 1.5])


def test_wilcoxon_drops_zeros_before_choosing_the_exact_test():
    nonzero = np.array([0.9, -0.2, 0.5, 0.35, 0.7, 0.15, 0.6, 0.8, -0.45, 0.25])
    d = np.concatenate([nonzero, np.zeros(5)])
    t = wilcoxon(d, np.zeros(d.size))
    assert (t.method, t.n) == ("exact", 10)
    assert t.p_value == pytest.approx(stats.wilcoxon(nonzero, method="exact").pvalue)
    # scipy's own default on the zero-padded sample falls back to the normal approximation
    assert t.p_value != pytest.approx(stats.wilcoxon(d).pvalue)


def test_a_family_figure_is_bootstrapped_from_its_own_groups():
    """A task's figure over 40 groups and one family's over 4 of them (1/4), scored together:
    the family's interval is the one its 4 groups give bootstrapped alone (never padded to the
    task's 40 groups, which lets a resample draw 0 or 9 of the family's groups); figures over
    the same groups still share their draws."""
    from gridwm_judge.results import Results
    from gridwm_judge.scoring.batch import Batch, Settings

    rng = np.random.default_rng(5)
    task = _ratio(rng.integers(0, 2, size=40), np.ones(40))
    fam = _ratio([1, 0, 0, 0], np.ones(4))  # g000..g003, groups of the task
    settings = Settings(n_resamples=4000, seed=11)
    batch = Batch(settings, "C")
    batch.figures({"idr_raw": task, "p_active": task}, {})
    batch.figures({"idr_raw": fam, "p_active": fam}, {"family": "f"})
    out = Results(batch.results())
    alone = bootstrap_ratio(fam, n_resamples=4000, seed=11)
    for name in ("idr_raw", "p_active"):
        assert out.one(name=name, family="f").ci == (alone.low, alone.high) == (0.0, 0.75)
        whole = bootstrap_ratio(task, n_resamples=4000, seed=11)
        assert out.one(name=name).ci == (whole.low, whole.high)

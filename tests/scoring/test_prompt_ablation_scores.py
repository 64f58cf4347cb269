"""The prompt ablation's scores against hand-computed values: per-style causal metrics, paired
differences with paired bootstrap CIs, McNemar on per-group discrimination, Holm."""

from __future__ import annotations

import numpy as np
import pytest

from gridwm_judge.scoring.batch import Settings
from gridwm_judge.scoring.bootstrap import resample_weights
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.prompt_ablation import matched_groups, score_prompt_ablation
from gridwm_judge.task_table import task_spec

GROUPS = tuple(f"g{i}" for i in range(8))
ENV = {g: ("e1" if i < 4 else "e2") for i, g in enumerate(GROUPS)}
VERDICTS = {  # style -> variant -> verdict per group (1 success, 0 failure, -1 invalid)
    "direct": {"full": [1, 1, 1, 1, 1, 1, 1, 1], "cf": [0, 0, 1, 1, 1, 1, 1, 1]},
    "structured_verdict": {"full": [1, 1, 1, 1, 1, 0, -1, 0], "cf": [0, 0, 0, 0, 0, 0, 0, 0]},
    "structured_rationale": {"full": [1, 0, 1, 0, 1, 0, 1, 0], "cf": [0, 0, -1, 0, 0, 0, 1, 0]},
}
# Per-group discrimination (Full accepted and CF rejected), by hand:
#   direct     1 1 0 0 0 0 0 0   IDR_raw 2/8
#   verdict    1 1 1 1 1 0 0 0   IDR_raw 5/8
#   rationale  1 0 0 0 1 0 0 0   IDR_raw 2/8
DISC = {"direct": [1, 1, 0, 0, 0, 0, 0, 0], "structured_verdict": [1, 1, 1, 1, 1, 0, 0, 0],
        "structured_rationale": [1, 0, 0, 0, 1, 0, 0, 0]}
N = 400
SEED = 11


def graded(style: str, group: str, variant: str, verdict: int) -> GradedRow:
    gold = 1 if variant == "full" else 0
    blank = dict.fromkeys(("temporal", "visual", "framing", "representation", "probe_family",
                           "action_condition", "question"), "")
    return GradedRow(
        judge="j", uid=f"PA.{group}.{variant}.{style}", task="PA", family="doorkey",
        env_id=ENV[group], group_id=group, item_id=f"PA.{group}.{variant}", variant=variant,
        **blank, status="ok", parse_mode="invalid" if verdict == -1 else "strict",
        parsed=None, gold=gold, verdict=verdict, correct=verdict == gold, score=None,
        prompt_style=style,
    )


def rows(drop=()):
    return [graded(s, g, v, vs[i]) for s, by in VERDICTS.items() for v, vs in by.items()
            for i, g in enumerate(GROUPS) if (s, g, v) not in drop]


def score(rs):
    return score_prompt_ablation(rs, task_spec("PA"), Settings(n_resamples=N, seed=SEED))


@pytest.fixture(scope="module")
def block():
    return score(rows())


def value(res, style, name):
    return res.value(task="PA", style=style, name=name)


def pair(res, name, a, b):
    return res.one(task="PA", name=name, style=a, baseline=b)


def test_per_style_metrics(block):
    assert set(block.values_of("protocol")) == {"all_groups"}
    expected = {  # acc_full, acc_cf, p_active, idr_raw, idr_cond
        "direct": (1.0, 2 / 8, 1.0, 2 / 8, 2 / 8),
        "structured_verdict": (5 / 8, 1.0, 5 / 8, 5 / 8, 1.0),
        "structured_rationale": (4 / 8, 6 / 8, 4 / 8, 2 / 8, 2 / 4),
    }
    for style, want in expected.items():
        got = tuple(value(block, style, m)
                    for m in ("acc_full", "acc_cf", "p_active", "idr_raw", "idr_cond"))
        assert got == pytest.approx(want), style
        assert value(block, style, "n_pairs") == 8 and value(block, style, "answered") == 16
        idr = block.one(task="PA", style=style, name="idr_raw")
        assert idr.ci is not None and idr.env_level
    assert [value(block, s, "invalid") for s in VERDICTS] == [0, 1, 1]
    idr_cond = block.one(task="PA", style="structured_rationale", name="idr_cond")
    assert idr_cond.status == "descriptive" and idr_cond.ci is None  # 4 active: "unstable"


def test_paired_differences_mcnemar_and_holm_by_hand(block):
    assert block.value(task="PA", name="n_groups") == 8
    assert block.value(task="PA", name="groups_left_out") == 0
    tests = block.select(task="PA", name="mcnemar_idr")
    assert [(t.style, t.baseline) for t in tests] == [
        ("structured_verdict", "direct"), ("structured_rationale", "direct"),
        ("structured_rationale", "structured_verdict")]
    # value, n10 (discriminates under a only), n01, exact McNemar p, Holm p
    # exact p: 2 * sum_{i<=min} C(n, i) / 2^n -> n=3,k=0: 0.25; n=2,k=1: 1
    # Holm over [0.25, 1, 0.25]: sorted 0.25, 0.25, 1 -> 3 x 0.25, max(.75, 2 x .25), 1
    want = {
        ("structured_verdict", "direct"): (3 / 8, 3, 0, 0.25, 0.75),
        ("structured_rationale", "direct"): (0.0, 1, 1, 1.0, 1.0),
        ("structured_rationale", "structured_verdict"): (-3 / 8, 0, 3, 0.25, 0.75),
    }
    for (a, b), (diff, n10, n01, p, p_holm) in want.items():
        m, t = pair(block, "idr_raw", a, b), pair(block, "mcnemar_idr", a, b)
        assert m.value == pytest.approx(diff)
        assert (t.numerator, t.denominator - t.numerator, t.method) == (n10, n01, "exact")
        assert t.p_value == pytest.approx(p)
        assert pair(block, "p_holm", a, b).value == pytest.approx(p_holm)
        # the IDR_raw difference is exactly what the discordant groups count
        assert m.value == pytest.approx((n10 - n01) / 8)
    full = pair(block, "acc_full", "structured_verdict", "direct")
    assert full.value == pytest.approx(5 / 8 - 1) and full.ci_env is None
    cf = pair(block, "acc_cf", "structured_rationale", "direct")
    assert cf.value == pytest.approx(6 / 8 - 2 / 8)


def _quantiles(draws):
    return tuple(pytest.approx(x) for x in np.quantile(draws, [0.025, 0.975]))


def test_paired_cis_match_a_hand_loop_over_the_same_draws(block):
    """Group level: each draw of groups recomputes both styles' IDR_raw; environment level:
    each draw of environments does (every group is complete, so the denominators are counts)."""
    a = np.array(DISC["structured_verdict"], float)
    b = np.array(DISC["direct"], float)
    w = resample_weights(8, N, SEED).astype(float)
    draws = [(wi @ a) / wi.sum() - (wi @ b) / wi.sum() for wi in w]
    m = pair(block, "idr_raw", "structured_verdict", "direct")
    assert m.ci == _quantiles(draws)
    env_a, env_b = np.array([a[:4].sum(), a[4:].sum()]), np.array([b[:4].sum(), b[4:].sum()])
    we = resample_weights(2, N, SEED).astype(float)
    env_draws = [(wi @ env_a) / (4 * wi.sum()) - (wi @ env_b) / (4 * wi.sum()) for wi in we]
    assert m.ci_env == _quantiles(env_draws)


def test_pairs_use_only_groups_answered_in_every_style():
    """A group whose CF errored in one style leaves every paired comparison; each style's
    own block still scores all it answered."""
    rs = rows(drop={("structured_rationale", "g1", "cf")})
    assert matched_groups(rs) == tuple(g for g in GROUPS if g != "g1")
    out = score(rs)
    assert out.value(task="PA", name="n_groups") == 7
    assert out.value(task="PA", name="groups_left_out") == 1
    assert value(out, "direct", "n_pairs") == 8
    assert value(out, "structured_rationale", "n_pairs") == 7
    # without g1 (discriminates under both): verdict 4/7, direct 1/7
    a, b = "structured_verdict", "direct"
    assert pair(out, "idr_raw", a, b).value == pytest.approx(4 / 7 - 1 / 7)
    t = pair(out, "mcnemar_idr", a, b)
    assert (t.numerator, t.denominator) == (3, 3)


def test_no_matched_group_gives_no_pairs():
    rs = [r for r in rows() if r.prompt_style == "direct"]
    out = score(rs)
    assert out.values_of("style", name="g_active") == ("direct",)
    assert out.value(task="PA", name="n_groups") == 0
    assert not out.select(name="mcnemar_idr") and not out.select(baseline="direct")

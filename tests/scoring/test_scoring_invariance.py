"""NS, JCR, Flip, VCC (and conditional forms), VCC_oracle: hand-computed fixtures."""

import pytest

from gridwm_judge.scoring import jcr, ns, vcc, vcc_oracle


def test_ns_counts_pairs_against_the_baseline():
    y = [1, 1, 1, 0, -1, 1, 1, 1, 0]
    g = ["g1", "g1", "g2", "g2", "g3", "g3", "g4", "g4", "g4"]
    p = ["orig", "rev", "orig", "rev", "orig", "rev", "clean", "noisy", "style"]
    # g4 has no 'orig' baseline -> contributes nothing
    r = ns(y, g, p, "orig")
    assert (r.total_num, r.total_den) == (1, 3) and r.value == pytest.approx(1 / 3)
    e = ns(y, g, p, "orig", protocol="eligible_pairs")
    assert (e.total_num, e.total_den) == (1, 2)
    v = ns([1, 1, 0], ["g"] * 3, ["clean", "noisy", "style"], "clean")
    assert v.value == 0.5  # two pairs, one agrees; the baseline is not self-compared


def test_jcr_and_flip():
    y = [1, 1, 0, 1, 1, 1, 0, 0, -1, 1]
    g = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"]
    p = ["neutral", "positive", "negative"] * 3 + ["neutral"]
    j, f = jcr(y, g, p)
    assert (j.total_num, j.total_den) == (1, 3)  # b consistent; a flips; c has an invalid; d alone
    assert f.value == pytest.approx(2 / 3)
    je, fe = jcr(y, g, p, protocol="eligible_pairs")
    assert (je.total_num, je.total_den) == (1, 2)
    assert fe.value == 0.5


def test_vcc_and_conditional_forms():
    y = [1, 1, 1, 0, 0, 0, 0, 1, 1, -1, 1]
    g = ["g1", "g1", "g2", "g2", "g3", "g3", "g4", "g4", "g5", "g6", "g6"]
    r = ["composite", "split"] * 4 + ["composite", "composite", "split"]
    res = vcc(y, g, r)
    assert res.other == "split"
    assert (res.vcc.total_num, res.vcc.total_den) == (2, 5)  # g5 unpaired; g6 invalid disagrees
    assert res.given_success.value == 0.5 and res.given_failure.value == 0.5
    e = vcc(y, g, r, protocol="eligible_pairs")
    assert e.vcc.value == 0.5


def test_vcc_pair_ids_and_oracle():
    y = [1, 1, 0, 1]
    g = ["g", "g", "g", "g"]
    r = ["composite", "split", "composite", "split"]
    res = vcc(y, g, r, pair_ids=["x", "x", "y", "y"])
    assert (res.vcc.total_num, res.vcc.total_den) == (1, 2)
    o = vcc_oracle([1, 0, 1, 1], ["a", "a", "b", "b"], ["pixel", "oracle", "pixel", "oracle"])
    assert o.vcc.value == 0.5 and o.given_success.value == 0.5 and o.given_failure.value is None


def test_empty_and_errors():
    assert ns([], [], [], "orig").value is None
    assert jcr([], [], [])[0].value is None
    assert vcc([], [], []).vcc.value is None
    with pytest.raises(ValueError, match="'rev'"):
        ns([1, 1], ["g", "g"], ["rev", "rev"], "orig")
    with pytest.raises(ValueError, match="two representations"):
        vcc([1, 1, 1], ["g"] * 3, ["composite", "split", "oracle"])
    with pytest.raises(ValueError, match="'composite' not among"):
        vcc([1, 1], ["g", "g"], ["pixel", "split"])

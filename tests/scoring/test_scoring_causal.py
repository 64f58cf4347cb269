"""Correctness anchors, IDR family, protocols, degenerate flags: hand-computed fixtures."""

import warnings

import numpy as np
import pytest

from gridwm_judge.scoring import MIN_ACTIVE, causal_metrics, degenerate_flags, idr_cond_status


def _rows(table):
    """table: group -> {variant: verdict} -> parallel lists."""
    y, g, v = [], [], []
    for gid, cells in table.items():
        for variant, verdict in cells.items():
            y.append(verdict)
            g.append(gid)
            v.append(variant)
    return y, g, v


SMALL = {
    "g1": {"full": 1, "cf": 0, "nocue": 1},
    "g2": {"full": 1, "cf": 1, "nocue": 0},
    "g3": {"full": 0, "cf": 1},
    "g4": {"full": -1, "cf": 0},
}


def test_small_fixture_all_groups():
    r = causal_metrics(*_rows(SMALL), protocol="all_groups")
    assert r.jacc_neu == 2 / 4 and r.acc_full == 2 / 4
    assert r.acc_cf == 2 / 4  # g1 and g4 reject their CF
    assert r.acc_nocue == 1 / 2
    assert r.p_active == 2 / 4 and r.g_active == 2
    assert r.idr_raw == 1 / 4 and r.idr_cond == 1 / 2 and r.idr_rev == 1 / 4
    assert r.succ_c == 5 / 10  # success verdicts over all 10 rows
    assert r.n_groups == 4 and r.n_pairs == 4
    assert r.idr_cond_status == "unstable" and r.degenerate == "low_activation"


def test_small_fixture_eligible_pairs():
    r = causal_metrics(*_rows(SMALL), protocol="eligible_pairs")
    assert r.jacc_neu == 2 / 4  # JAcc still over every group, invalid = incorrect
    assert r.n_pairs == 3  # g4's Full is invalid
    assert r.p_active == 2 / 3 and r.idr_raw == 1 / 3 and r.idr_rev == 1 / 3
    assert r.idr_cond == 1 / 2
    assert r.succ_c == 5 / 9  # the invalid row is left out


def test_paper_worked_example_eligible_pairs():
    """Task C, one judge, composite: JAcc 7/18, activation 7/14, raw IDR 5/14."""
    table = {}
    for i in range(18):
        if i < 5:
            cells = {"full": 1, "cf": 0}  # accepted Full, rejected CF
        elif i < 7:
            cells = {"full": 1, "cf": 1}  # accepted both
        elif i < 14:
            cells = {"full": 0, "cf": i % 2}  # rejected Full, CF parses
        elif i < 16:
            cells = {"full": -1, "cf": 0}  # Full unparseable
        else:
            cells = {"full": 0, "cf": -1}  # CF unparseable
        table[f"g{i:02d}"] = cells
    r = causal_metrics(*_rows(table), protocol="eligible_pairs")
    assert r.jacc_neu == pytest.approx(7 / 18)
    assert r.n_pairs == 14 and r.g_active == 7
    assert r.p_active == pytest.approx(7 / 14)
    assert r.idr_raw == pytest.approx(5 / 14)
    assert r.idr_cond == pytest.approx(5 / 7)
    # the same verdicts under all_groups count every group
    a = causal_metrics(*_rows(table), protocol="all_groups")
    assert a.p_active == pytest.approx(7 / 18) and a.idr_raw == pytest.approx(5 / 18)


def _constant(n, full, cf):
    return _rows({f"g{i}": {"full": full, "cf": cf} for i in range(n)})


def test_always_yes_is_success_biased():
    r = causal_metrics(*_constant(18, 1, 1))
    assert r.p_active == 1.0 and r.acc_cf == 0.0 and r.idr_raw == 0.0
    assert r.degenerate == "success_biased"


def test_always_no_is_all_fail_and_idr_cond_undefined():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = causal_metrics(*_constant(18, 0, 0))
    assert r.degenerate == "all_fail" and r.g_active == 0
    assert r.idr_cond is None and r.idr_cond_status == "undefined"
    assert r.idr_raw == 0.0 and r.acc_cf == 1.0


def test_oracle_has_idr_raw_one_and_no_flag():
    r = causal_metrics(*_constant(12, 1, 0))
    assert r.idr_raw == 1.0 and r.idr_cond == 1.0 and r.idr_rev == 0.0
    assert r.degenerate is None and r.idr_cond_status == "ok"


def test_empty_input_is_none_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = causal_metrics([], [], [])
    assert all(v is None for v in r.values().values())
    assert r.degenerate is None and r.idr_cond_status == "undefined"


def test_reporting_rule_and_flags():
    assert idr_cond_status(0) == "undefined"
    assert idr_cond_status(MIN_ACTIVE - 1) == "unstable"
    assert idr_cond_status(MIN_ACTIVE) == "ok"
    assert degenerate_flags(0.05, 0.0, 1) == ("all_fail", "low_activation")
    assert degenerate_flags(0.95, 0.95, 19) == ("success_biased",)
    assert degenerate_flags(0.95, 0.85, 19) == ()
    assert degenerate_flags(None, None, 0) == ()


def test_bad_inputs_name_the_value():
    with pytest.raises(ValueError, match="'nocues'"):
        causal_metrics([1], ["g"], ["nocues"])
    with pytest.raises(ValueError, match="2"):
        causal_metrics([2], ["g"], ["full"])
    with pytest.raises(ValueError, match="'g'.*'full'"):
        causal_metrics([1, 0], ["g", "g"], ["full", "full"])
    with pytest.raises(ValueError, match="does not match variant 'cf'"):
        causal_metrics([1, 0], ["g", "g"], ["full", "cf"], references=[1, 1])
    with pytest.raises(ValueError, match="protocol"):
        causal_metrics([1], ["g"], ["full"], protocol="some")


def test_references_that_match_are_accepted():
    r = causal_metrics(np.array([1, 0]), ["g", "g"], ["full", "cf"], references=[1, 0])
    assert r.idr_raw == 1.0

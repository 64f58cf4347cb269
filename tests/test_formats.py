"""How numbers are written: one rule per kind (rates 3 decimals, interval ends 2, LES 2,
p-values 3 or "<0.001"), in the report's tables and the scorer's evidence sentences alike."""

from __future__ import annotations

from gridwm_judge.formats import DASH, fcount_of, fles, fnum, fp, fsigned, p_is
from gridwm_judge.scoring import ActionEvidence, FamilyEvidence, diagnose


def test_a_p_value_below_the_last_decimal_is_never_printed_as_zero():
    assert [fp(p) for p in (0.0, 1e-12, 0.0004, 0.00099, 0.001, 0.0321, 0.5, 1.0, None)] == \
        ["<0.001", "<0.001", "<0.001", "<0.001", "0.001", "0.032", "0.500", "1.000", DASH]
    assert (p_is(3e-9), p_is(0.0321)) == ("p < 0.001", "p = 0.032")


def test_rates_have_three_decimals_and_les_two():
    assert (fnum(0.5), fnum(1), fsigned(-0.1349), fles(1.374)) == \
        ("0.500", "1.000", "-0.135", "1.37")


def test_the_scorers_evidence_follows_the_same_rules():
    modes = {m.name: m for m in diagnose(
        families=[FamilyEvidence("C/split", "framing", 0.95, 0.95, 0.05, 1.2345, 2e-7, "ok")],
        action=ActionEvidence(0.9, 0.01, 0.5, 1e-9, 0.2))}
    (les,) = modes["presentation_leakage"].evidence
    assert les == "LES_framing (C/split) = 1.23 (p < 0.001, fit ok)"
    (delta,) = modes["action_ignorant_heuristic"].evidence
    assert delta == "Delta_shuffle = 0.010 < 0.05 with Acc_A1 = 0.900, McNemar p < 0.001"


def test_a_count_names_its_unit_singular_for_one():
    assert [fcount_of(n, "groups") for n in (0, 1, 1.0, 2, 52)] == \
        ["0 groups", "1 group", "1 group", "2 groups", "52 groups"]
    assert fcount_of(1, "paired questions") == "1 paired question"

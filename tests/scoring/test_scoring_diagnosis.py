"""Failure-mode diagnosis: each mode fires on its evidence, and only then."""

from gridwm_judge.scoring import (
    FAILURE_MODES,
    ActionEvidence,
    CausalEvidence,
    FamilyEvidence,
    diagnose,
)


def _by_name(modes):
    assert tuple(m.name for m in modes) == FAILURE_MODES
    return {m.name: m for m in modes}


def test_nothing_available_is_not_assessed():
    assert all(m.flagged is None for m in diagnose())


def test_reliable_judge_is_clean():
    modes = _by_name(
        diagnose(
            families=[FamilyEvidence("C/composite", "framing", 1.0, 1.0, 0.0, 0.0, 0.9, "ok")],
            vcc=[("C", 0.97)],
            action=ActionEvidence(0.9, 0.5, 0.6, 1e-5, 1e-6),
            causal=[CausalEvidence("D", 0.95, 0.95, 19, 0.9, 0.95, "ok", None)],
        )
    )
    assert not any(m.flagged for m in modes.values())


def test_constant_judge_is_a_stability_trap_with_evidence():
    modes = _by_name(
        diagnose(
            families=[
                FamilyEvidence("C/composite", "visual", 1.0, 1.0, 0.0, 0.0, None, "constant")
            ],
            vcc=[("C", 0.8)],
            action=ActionEvidence(0.8, 0.01, 0.2),
            causal=[CausalEvidence("C/composite", 1.0, 1.0, 18, 0.0, 0.0, "ok", "success_biased")],
        )
    )
    assert modes["stability_trap"].flagged
    assert any("success_biased" in e for e in modes["stability_trap"].evidence)
    assert modes["causal_misgrounding"].flagged
    assert any("IDR_raw" in e for e in modes["causal_misgrounding"].evidence)
    assert modes["representation_fragility"].flagged
    assert modes["action_ignorant_heuristic"].flagged
    assert modes["action_ignorant_heuristic"].evidence[0].startswith("Delta_shuffle")
    assert modes["presentation_leakage"].flagged is False


def test_leakage_from_ns_or_les():
    modes = _by_name(
        diagnose(families=[FamilyEvidence("C/split", "framing", 0.95, 0.95, 0.05, 1.2, 0.01, "ok")])
    )
    assert modes["presentation_leakage"].flagged
    assert "LES_framing" in modes["presentation_leakage"].evidence[0]
    modes = _by_name(diagnose(families=[FamilyEvidence("C/split", "temporal", 0.7, 0.6, 0.4)]))
    assert len(modes["presentation_leakage"].evidence) == 2
    chance = _by_name(diagnose(action=ActionEvidence(0.26, 0.0, 0.0)))
    assert chance["action_ignorant_heuristic"].flagged is None


def test_a_mode_resting_only_on_descriptive_figures_is_suggested():
    """Leakage seen only in probe families of too few groups is suggested, not raised; one
    family of enough groups raises it. The stability trap likewise needs a stable family of
    enough groups (its weak side is the whole scope's)."""
    from gridwm_judge.scoring.diagnosis import CausalEvidence, FamilyEvidence, diagnose

    few = FamilyEvidence("C/composite", "visual", 0.5, 0.4, 0.6, groups=12, descriptive=True)
    many = FamilyEvidence("C/split", "visual", 0.5, 0.4, 0.6, groups=40)
    weak = CausalEvidence("C/composite", 0.2, 0.2, 2, 0.1, None, "unstable", None)
    leak = diagnose(families=[few])[0]
    assert (leak.flagged, leak.suggested) == (False, True)
    assert all("(descriptive: 12 groups)" in e for e in leak.evidence) and leak.evidence
    leak = diagnose(families=[few, many])[0]
    assert (leak.flagged, leak.suggested) == (True, False)
    stable_few = FamilyEvidence("C/composite", "framing", 1.0, 1.0, 0.0, groups=12,
                                descriptive=True)
    trap = diagnose(families=[stable_few], causal=[weak])[4]
    assert (trap.name, trap.flagged, trap.suggested) == ("stability_trap", False, True)
    stable_many = FamilyEvidence("C/split", "framing", 1.0, 1.0, 0.0, groups=40)
    trap = diagnose(families=[stable_few, stable_many], causal=[weak])[4]
    assert (trap.flagged, trap.suggested) == (True, False)
    clear = diagnose(families=[stable_few], causal=[])[4]
    assert clear.flagged is None and not clear.suggested

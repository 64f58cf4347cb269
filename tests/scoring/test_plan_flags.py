"""``gridwm-judge plan``'s statistical and cost flags by what they change: a stricter
``--alpha`` or a higher ``--power`` needs more groups, a larger ``--discordance`` more shared
groups (and a coarser paired MDE for a profile), a ``--base-rate`` away from 1/2 fewer groups
(and a narrower CI), a larger ``--patch`` fewer image tokens; a value out of its range is one
line (exit 2). The formulas themselves are checked in tests/scoring/test_power.py."""

from __future__ import annotations

import json

import pytest

from gridwm_judge.cli import main

# one config to cost (a second or so to measure); task_c rows: 6 per group at neutral
UNPAIRED = ("--metric", "idr_raw", "--configs", "task_c")
PAIRED = (*UNPAIRED, "--paired")
PROFILE = ("--metric", "idr_raw", "--configs", "task_c_hard", "--profile", "standard")


def _plan(capsys, *args: str) -> dict:
    code = main(["plan", "--json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _text(capsys, *args: str) -> str:
    code = main(["plan", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _all(result: dict) -> dict:
    """The profile's resolution over all of task_c_hard's groups."""
    [row] = [r for r in result["resolution"]
             if (r["config"], r["family"]) == ("task_c_hard", "all")]
    return row


def test_alpha_stricter_needs_more_groups_and_widens_the_ci(capsys):
    base = _plan(capsys, *UNPAIRED)
    strict = _plan(capsys, *UNPAIRED, "--alpha", "0.01")
    assert (base["alpha"], strict["alpha"]) == (0.05, 0.01)
    assert strict["groups_needed"] > base["groups_needed"] == 388
    # the cost follows the size: 6 requests per group either way
    assert strict["costs"][0]["rows"] == 6 * strict["groups_needed"]
    paired = [_plan(capsys, *PAIRED, "--alpha", a)["groups_needed"] for a in ("0.1", "0.01")]
    assert paired[1] > paired[0]
    wide, narrow = (_all(_plan(capsys, *PROFILE, "--alpha", a)) for a in ("0.01", "0.2"))
    assert wide["ci_half_width"] > narrow["ci_half_width"]
    assert wide["mde"] > narrow["mde"]
    assert "at alpha 0.01 " in _text(capsys, *UNPAIRED, "--alpha", "0.01")
    assert "profile standard: what it resolves (99% CI half-width" in _text(
        capsys, *PROFILE, "--alpha", "0.01")


def test_power_higher_needs_more_groups(capsys):
    low, mid, high = (_plan(capsys, *UNPAIRED, "--power", p) for p in ("0.5", "0.8", "0.95"))
    assert low["groups_needed"] < mid["groups_needed"] < high["groups_needed"]
    assert high["power"] == 0.95 and high["costs"][0]["rows"] == 6 * high["groups_needed"]
    paired = [_plan(capsys, *PAIRED, "--power", p)["groups_needed"] for p in ("0.5", "0.95")]
    assert paired[0] < paired[1]
    # a profile of a fixed size resolves a coarser difference at a higher power
    assert _all(_plan(capsys, *PROFILE, "--power", "0.95"))["mde"] > _all(
        _plan(capsys, *PROFILE, "--power", "0.5"))["mde"]
    assert "with power 0.95" in _text(capsys, *UNPAIRED, "--power", "0.95")


def test_discordance_sizes_the_paired_design_and_the_profile_mde(capsys):
    few, many = (_plan(capsys, *PAIRED, "--discordance", d) for d in ("0.15", "0.4"))
    assert few["discordance"] == 0.15 and many["discordance"] == 0.4
    assert few["groups_needed"] < many["groups_needed"]  # more discordance, more noise
    assert "two judges on the same groups (McNemar, 40% discordant groups)" in _text(
        capsys, *PAIRED, "--discordance", "0.4")
    # the profile's paired MDE grows with it; its CI half-width does not depend on it
    low, high = (_all(_plan(capsys, *PROFILE, "--discordance", d)) for d in ("0.2", "0.6"))
    assert low["mde"] < high["mde"]
    assert low["ci_half_width"] == high["ci_half_width"]


def test_base_rate_away_from_a_half_needs_fewer_groups_and_narrows_the_ci(capsys):
    half, tenth = (_plan(capsys, *UNPAIRED, "--base-rate", p) for p in ("0.5", "0.1"))
    assert tenth["base_rate"] == 0.1
    assert tenth["groups_needed"] < half["groups_needed"]
    assert "(independent sets, base rate 0.1)" in _text(capsys, *UNPAIRED, "--base-rate", "0.1")
    at_half, at_tenth = (_all(_plan(capsys, *PROFILE, "--base-rate", p)) for p in ("0.5", "0.1"))
    assert at_tenth["ci_half_width"] < at_half["ci_half_width"]


def test_patch_larger_means_fewer_image_tokens_per_request(capsys):
    fine, coarse = (_plan(capsys, *UNPAIRED, "--patch", p) for p in ("14", "56"))
    assert fine["groups_needed"] == coarse["groups_needed"]  # the size is not the cost
    f, c = fine["costs"][0], coarse["costs"][0]
    assert f["per_request"]["image_tokens"] > 3.5 * c["per_request"]["image_tokens"]
    assert f["per_request"]["prompt_tokens"] == c["per_request"]["prompt_tokens"]
    assert f["tokens_per_judge"] > c["tokens_per_judge"] and f["rows"] == c["rows"]
    # the default is Qwen2-VL's merged 28-pixel patch
    default = _plan(capsys, *UNPAIRED)["costs"][0]["per_request"]["image_tokens"]
    assert c["per_request"]["image_tokens"] < default < f["per_request"]["image_tokens"]


@pytest.mark.parametrize(("args", "message"), [
    (("--alpha", "0"), "alpha must lie in (0, 1), got 0.0"),
    (("--alpha", "1.5"), "alpha must lie in (0, 1), got 1.5"),
    (("--alpha", "x"), "argument --alpha: invalid float value: 'x'"),
    (("--power", "1"), "power must lie in (0, 1), got 1.0"),
    (("--paired", "--discordance", "0"), "the discordance must lie in (0, 1], got 0.0"),
    (("--paired", "--discordance", "1.5"), "the discordance must lie in (0, 1], got 1.5"),
    (("--paired", "--discordance", "0.05"), "needs at least that share of discordant groups"),
    (("--base-rate", "-0.1"), "the base rate must lie in [0, 1], got -0.1"),
    (("--base-rate", "1.2"), "the base rate must lie in [0, 1], got 1.2"),
    (("--patch", "0"), "--patch must be a positive number of pixels, got 0"),
    (("--patch", "2.5"), "argument --patch: invalid int value: '2.5'"),
    (("--paired", "--profile", "base", "--base-rate", "1.2"), "base rate"),
    (("--profile", "base", "--discordance", "7"), "discordance"),
])
def test_a_value_out_of_range_is_one_line(args, message, capsys):
    code = _code(["plan", "--metric", "idr_raw", "--configs", "task_c_hard", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and message in err, err


def test_a_patch_below_one_is_refused_before_any_plan_is_printed(capsys):
    assert _code(["plan", *UNPAIRED, "--patch", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1] == (
        "gridwm-judge plan: error: --patch must be a positive number of pixels, got 0")


def _code(argv: list[str]) -> int:
    """main's exit status, a parse error's (argparse exits) included."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

"""``gridwm-judge plan`` as a user runs it: the groups needed, a measured cost per config, a
profile's resolution per family, JSON with ``groups_needed``, and one line for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.scoring import plan as planning


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gridwm_judge", "plan", *args],
                          capture_output=True, text=True, timeout=300,
                          env=None if env is None else {**os.environ, **env})


def test_paired_plan_with_a_profile_as_json():
    res = _run("--metric", "idr_raw", "--mde", "0.1", "--paired", "--profile", "base",
               "--configs", "task_c_hard", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["groups_needed"] == 155 and out["design"] == "paired"
    (cost,) = out["costs"]
    # six rows per group at the neutral presentation (Full / NoCue / CF x composite / split)
    assert cost["rows"] == 155 * 6 == cost["requests_per_judge"]
    per = cost["per_request"]
    assert 1 < per["images"] < 8  # composite rows carry one image, split rows one per frame
    assert per["image_tokens"] > 0 and per["budget"] == 256
    assert cost["tokens_per_judge"] == pytest.approx(cost["rows"] * per["tokens"], rel=0.01)
    fam = {r["family"]: r for r in out["resolution"] if r["config"] == "task_c_hard"}
    plan = get_profile("base").plan("task_c_hard")
    assert {f: r["units"] for f, r in fam.items() if f != "all"} == dict(plan.families)
    assert fam["all"]["units"] == 18
    assert fam["all"]["ci_half_width"] == pytest.approx(0.231, abs=1e-3)


def test_text_plan_names_the_size_and_the_cost():
    res = _run("--metric", "acc_a1", "--configs", "task_a")
    assert res.returncode == 0, res.stderr
    assert "acc_a1: 388 questions" in res.stdout
    assert "task_a: 388 questions -> 1164 requests (3 per question)" in res.stdout
    # the seconds of measuring are not silent: a line on stderr (a bar on a terminal)
    assert res.stderr.startswith("plan: measuring the cost of 1 config(s) on a smoke-sized")


def test_text_plan_writes_a_half_width_as_plus_minus_like_the_report():
    """The resolution's CI half-width reads ``±0.231`` (the report's own non-ASCII signs),
    never ``+-``."""
    result = {"unit": "groups", "units_needed": 155, "design": "paired", "discordance": 0.2,
              "metric": "idr_raw", "mde": 0.1, "alpha": 0.05, "power": 0.8, "costs": [],
              "profile": "base", "base_rate": 0.5,
              "resolution": [{"config": "task_c_hard", "family": "all", "units": 18,
                              "ci_half_width": 0.23098, "mde_design": "paired", "mde": 0.4}]}
    text = planning.text(result)
    assert "18 groups  ±0.231  paired MDE 0.400" in text and "+-" not in text


def test_a_terminal_without_the_plus_minus_sign_gets_an_escape_not_an_error():
    res = _run("--metric", "idr_raw", "--profile", "base", "--configs", "task_c_hard",
               env={"PYTHONIOENCODING": "ascii"})
    assert res.returncode == 0, res.stderr
    assert "18 groups  \\xb10.231" in res.stdout


def test_token_estimate_follows_the_patch():
    spec = next(s for s in planning.configs_of("idr_raw") if s.config == "task_c")
    coarse, fine = planning.row_cost(spec, patch=56), planning.row_cost(spec, patch=14)
    assert fine.image_tokens > 3.5 * coarse.image_tokens
    assert fine.prompt_tokens == coarse.prompt_tokens


@pytest.mark.parametrize(("args", "message"), [
    (("--mde", "0"), "must lie in (0, 1)"),
    (("--metric", "idr"), "unknown metric 'idr'"),
    (("--profile", "nope"), "unknown profile 'nope'"),
    (("--metric", "acc_a1", "--paired"), "per-group discrimination indicator"),
    (("--configs", "task_a"), "not scored by idr_raw"),
])
def test_bad_input_is_one_line(args, message):
    res = _run(*args)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and message in res.stderr


def test_the_metric_s_configs_are_the_ones_a_build_can_size():
    """The paper's imported exams score idr_raw too, but their size is the release's: the
    plan costs the built configs only (it once tried to sample paper_task_c from smoke)."""
    names = [s.config for s in planning.configs_of("idr_raw")]
    assert names == ["task_c", "task_c_hard", "miniworld_c", "miniworld_c_hard"]
    res = _run("--metric", "acc_a1", "--json")
    assert res.returncode == 0, res.stderr
    assert [c["config"] for c in json.loads(res.stdout)["costs"]] == ["task_a", "miniworld_a"]

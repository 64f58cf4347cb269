"""Hard counterfactuals: each family's CF keeps Full's objects at t=0, keeps the target
in the world and fails for its intended reason; the audit records replay with plain minigrid."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest
from test_replay_plain_minigrid import replay  # same folder: pytest puts it on sys.path

from gridwm_judge.worlds.core.draw import HARD_SUFFIX
from gridwm_judge.worlds.minigrid.cards import HARD_CF_FAMILIES, hard_cf_of
from gridwm_judge.worlds.minigrid.generate import build_group, try_seed
from gridwm_judge.worlds.minigrid.hard_counterfactual import hard_cf1_reason

ENVS = {"keycorridor": "MiniGrid-KeyCorridorS4R3-v0",
        "multiroom": "MiniGrid-MultiRoom-N2-S4-v0",
        "redbluedoor": "MiniGrid-RedBlueDoors-8x8-v0"}


def _kinds(state):
    return Counter((o["type"], o["color"]) for o in state["objects"])


@pytest.mark.parametrize("family", HARD_CF_FAMILIES)
def test_hard_cf_keeps_first_frame_objects_and_fails_for_its_reason(family):
    g = build_group(family, ENVS[family], 830000, "hard")
    assert g.valid, g.reasons
    assert g.group_id.endswith(HARD_SUFFIX)
    assert g.cf.actions == g.full.actions
    assert _kinds(g.cf.states[0]) == _kinds(g.full.states[0])
    assert not g.cf.success and not g.cf.truncated
    assert [op["op"] for op in g.cf.intervention] == list(hard_cf_of(family).ops)
    if family == "redbluedoor":   # the blue door opened first ends the episode, reward 0
        assert g.cf.terminated and g.cf.reward == 0
        assert [e["obj"]["color"] for e in g.cf.events if e["type"] == "open"][0] == "blue"
    else:                          # the target stays in the world, never reached
        assert not g.cf.terminated
        moved = g.cf.intervention[0]["to"]
        assert any(o["pos"] == moved for o in g.cf.states[-1]["objects"])


def test_paper_cf_fails_the_hard_cf1_rule():
    g = build_group("redbluedoor", ENVS["redbluedoor"], 830000, "paper")
    why = hard_cf1_reason(hard_cf_of("redbluedoor"), g.full, g.cf)
    assert why is not None and "not one op of the declared kind" in why


def test_hard_cf_that_succeeds_is_rejected():
    g = build_group("multiroom", ENVS["multiroom"], 830000, "hard")
    assert hard_cf1_reason(hard_cf_of("multiroom"), g.full,
                           replace(g.cf, success=True)) == "CF succeeded"


def test_unknown_cf_kind_is_named():
    with pytest.raises(ValueError, match="unknown CF kind 'soft'"):
        try_seed("multiroom", ENVS["multiroom"], 830000, "soft")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit") / "hard.jsonl"
    subprocess.run([sys.executable, "-m", "gridwm_judge", "groups", "--family", "all", "--n", "2",
                    "--seed", "830000", "--cf", "hard", "--out", str(out)],
                   check=True, capture_output=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("family", HARD_CF_FAMILIES)
def test_hard_cf_replays_with_plain_minigrid(records, family):
    recs = [r for r in records if r["family"] == family]
    assert len(recs) == 2
    for rec in recs:
        v = rec["variants"]
        assert replay(rec)["success"], rec["group_id"]
        cf = replay(rec, v["cf"]["intervention"])
        assert not cf["success"] and not cf["truncated"], rec["group_id"]
        assert cf["terminated"] == (family == "redbluedoor"), rec["group_id"]
        assert cf["steps"] == v["cf"]["steps"]
        assert cf["pos"] == v["cf"]["states"][-1]["agent_pos"]
        assert cf["steps"] <= len(rec["actions"])

"""Each validator gate rejects the corruption it exists for (and passes the real group)."""

from dataclasses import replace

import pytest

from gridwm_judge.worlds.minigrid import ENV_CARDS, generate_groups
from gridwm_judge.worlds.minigrid.gates import run_gates
from gridwm_judge.worlds.minigrid.generate import _reset_env
from gridwm_judge.worlds.minigrid.rollout import rollout


@pytest.fixture(scope="module")
def doorkey():
    g = generate_groups("doorkey", 1, 830000).groups[0]
    u = _reset_env(g.env_id, g.seed)
    return g, ENV_CARDS["doorkey"].target_specs(u), (u.grid.width, u.grid.height)


def gates(g, specs, size, **changes):
    variants = {"full": g.full, "nocue": g.nocue, "cf": g.cf, **changes}
    return run_gates(ENV_CARDS[g.family], variants["full"], variants["nocue"], variants["cf"],
                     specs, *size)


def test_real_group_passes(doorkey):
    ok, reasons = gates(*doorkey)
    assert all(ok.values()) and not reasons


def test_d1_d2_catch_action_and_state_count_mismatch(doorkey):
    g, specs, size = doorkey
    ok, _ = gates(g, specs, size, cf=replace(g.cf, actions=g.cf.actions[:-1] + (6,)))
    assert not ok["D1"]
    ok, _ = gates(g, specs, size, full=replace(g.full, states=g.full.states[:-1]))
    assert not ok["D2"]


def test_d4_catches_successful_cf(doorkey):
    g, specs, size = doorkey
    ok, _ = gates(g, specs, size, cf=replace(g.cf, success=True))
    assert not ok["D4"]


def test_d5_catches_mask_on_the_interaction_frame(doorkey):
    g, specs, size = doorkey
    t_pick = next(e["t"] for e in g.full.events if e["type"] == "pickup")
    mask = g.nocue.mask + ({"t": t_pick - 1, "tiles": [specs[0]["pos"]]},)  # facing the key
    ok, reasons = gates(g, specs, size, nocue=replace(g.nocue, mask=mask))
    assert not ok["D5"] and "faces" in reasons["D5"]


def test_d6_catches_nocue_state_drift(doorkey):
    g, specs, size = doorkey
    s = dict(g.full.states[3], agent_dir=(g.full.states[3]["agent_dir"] + 2) % 4)
    states = g.nocue.states[:3] + (s,) + g.nocue.states[4:]
    ok, _ = gates(g, specs, size, nocue=replace(g.nocue, states=states))
    assert not ok["D6"]


def test_e1_catches_missing_chain_event(doorkey):
    g, specs, size = doorkey
    events = tuple(e for e in g.full.events if e["type"] != "unlock")
    ok, _ = gates(g, specs, size, full=replace(g.full, events=events))
    assert not ok["E1"]


def test_e2_catches_teleport(doorkey):
    g, specs, size = doorkey
    s = g.full.states[2]
    far = dict(s, agent_pos=[s["agent_pos"][0], size[1] - 2] if s["agent_pos"][1] < 3 else [1, 1])
    states = g.full.states[:2] + (far,) + g.full.states[3:]
    ok, _ = gates(g, specs, size, full=replace(g.full, states=states),
                  nocue=replace(g.nocue, states=states))
    assert not ok["E2"]


def test_n1_catches_misaligned_and_over_budget_masks(doorkey):
    g, specs, size = doorkey
    shifted = tuple({"t": m["t"], "tiles": [[p[0] + 1, p[1]] for p in m["tiles"]]}
                    for m in g.nocue.mask)
    ok, _ = gates(g, specs, size, nocue=replace(g.nocue, mask=shifted))
    assert not ok["N1"]
    budget = ENV_CARDS["doorkey"].nocue_budget
    long = tuple({"t": 0, "tiles": [specs[0]["pos"]]} for _ in range(budget + 1))
    ok, _ = gates(g, specs, size, nocue=replace(g.nocue, mask=long))
    assert not ok["N1"]


def test_cf1_catches_an_intervention_that_does_not_explain_failure(doorkey):
    g, specs, size = doorkey
    key = specs[0]["pos"]
    cf = rollout(g.env_id, g.seed, g.actions, intervention=[{"op": "remove", "pos": key}])
    ok, reasons = gates(g, specs, size, cf=cf)
    assert not ok["CF1"] and "goal" in reasons["CF1"]
    cf = rollout(g.env_id, g.seed, g.actions, intervention=[{"op": "swap", "a": key, "b": key}])
    ok, _ = gates(g, specs, size, cf=cf)
    assert not ok["CF1"] and not ok["D4"]  # a no-op swap leaves CF successful

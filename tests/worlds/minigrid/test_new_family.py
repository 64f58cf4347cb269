"""A new MiniGrid family is one card: defined here, registered for the test, drawn and gated.

The family is a variant of an existing env: DoorKey on a 7x7 grid (an env id MiniGrid does not
register), reusing DoorKey's planner legs and NoCue target, with another CF (the goal removed
instead of relocated). Nothing outside this file changes: the draw, the gates, the audit record
and its plain-minigrid replay read the card alone.
"""

from dataclasses import replace

import gymnasium as gym
import pytest
from gymnasium.envs.registration import EnvSpec
from test_replay_plain_minigrid import replay  # same folder: pytest puts it on sys.path

from gridwm_judge.dataset.card import columns_table
from gridwm_judge.worlds.minigrid import counterfactual as cf
from gridwm_judge.worlds.minigrid.cards import ENV_CARDS, EnvCard, family_of, get_card
from gridwm_judge.worlds.minigrid.gates import GATES
from gridwm_judge.worlds.minigrid.generate import generate_groups, try_seed

ENV_ID = "MiniGrid-DoorKey-7x7-v0"
CARD = EnvCard(
    "doorkey7", (ENV_ID,), ENV_ID,
    "use the key to open the door and then get to the goal",
    "pick up key -> unlock door -> reach goal",
    (("pickup", "key"), ("unlock", "door"), ("reach_goal", "goal")),
    "key", 5, "remove the goal", ("remove",),
    legs=get_card("doorkey").legs, make_cf=cf.remove_goal, check_cf=cf.goal_missing,
    nocue_cells=get_card("doorkey").nocue_cells,
)


@pytest.fixture
def doorkey7(monkeypatch):
    assert ENV_ID not in gym.registry  # a new env id, not one of MiniGrid's
    monkeypatch.setitem(gym.registry, ENV_ID, EnvSpec(
        ENV_ID, entry_point="minigrid.envs:DoorKeyEnv", kwargs={"size": 7}))
    monkeypatch.setitem(ENV_CARDS, CARD.family, CARD)
    return CARD


def test_a_new_card_draws_valid_groups_that_replay_with_plain_minigrid(doorkey7):
    assert family_of(ENV_ID) == "doorkey7"
    res = generate_groups("doorkey7", 2, 830000)
    assert len(res.groups) == 2
    for g in res.groups:
        assert g.valid and set(g.validators) == set(GATES), g.reasons
        assert g.family == "doorkey7" and g.group_id.startswith("doorkey7.DoorKey-7x7.s")
        assert [op["op"] for op in g.cf.intervention] == ["remove"]
        assert not any(o["type"] == "goal" for o in g.cf.states[0]["objects"])
        assert g.nocue.mask and all(m["tiles"] for m in g.nocue.mask)
        rec = g.to_record()
        assert replay(rec)["success"]
        assert not replay(rec, g.cf.intervention)["success"]


def test_the_new_card_is_gated_by_its_own_rules(doorkey7):
    """Its CF check is its card's: a CF of another kind fails CF1, and without a hard CF the
    hard draw rejects by name."""
    group, failed, _ = try_seed("doorkey7", ENV_ID, 830000)
    assert group is not None and not failed
    bad = replace(doorkey7, cf_ops=("move",))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(ENV_CARDS, "doorkey7", bad)
        group, failed, why = try_seed("doorkey7", ENV_ID, 830000)
    assert group is None and failed == ("CF1",) and "not of the declared kind" in why["CF1"]
    with pytest.raises(ValueError, match="no hard CF for family 'doorkey7'"):
        try_seed("doorkey7", ENV_ID, 830000, "hard")


def test_the_dataset_card_names_the_new_family(doorkey7):
    assert "blockedunlockpickup, doorkey7; MiniWorld" in columns_table()


def test_a_new_card_leaves_oracle_states_task_types_alone():
    """Oracle-State asks for one of the paper's six task types; a card joins them only when it
    says so (``oracle_state=True``), so a new family changes no Oracle-State prompt."""
    assert CARD.os_task_type is None
    assert replace(CARD, oracle_state=True).os_task_type == CARD.causal_chain
    six = [f for f, c in ENV_CARDS.items() if c.os_task_type]
    assert six == ["doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom"]

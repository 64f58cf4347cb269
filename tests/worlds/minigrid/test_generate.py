"""Generation: valid groups from consecutive seeds, reject accounting, Task E statuses."""

from concurrent.futures import Future

import pytest

from gridwm_judge.schema import E_STATUSES as STATUSES
from gridwm_judge.worlds.minigrid import (
    CORE_FAMILIES,
    ENV_CARDS,
    FAMILIES,
    GATES,
    TrajectoryGroup,
    build_group,
    generate_groups,
)
from gridwm_judge.worlds.minigrid.generate import _seed_results
from gridwm_judge.worlds.minigrid.holding import identity_label, status_at


@pytest.mark.parametrize("family", FAMILIES)
def test_groups_are_valid_and_consistent(family):
    res = generate_groups(family, 3, 830000)
    assert len(res.groups) == 3
    assert res.n_drawn == 3 + sum(1 for _ in res.rejected_seeds)
    seeds = [g.seed for g in res.groups] + [s for s, _ in res.rejected_seeds]
    assert sorted(seeds) == list(range(830000, 830000 + res.n_drawn))
    card = ENV_CARDS[family]
    for g in res.groups:
        assert g.env_id == card.default_env_id
        assert set(g.validators) == set(GATES) and all(g.validators.values())
        assert g.full.success and g.nocue.success and not g.cf.success
        assert not (g.full.truncated or g.cf.truncated)
        assert len(g.full.states) == len(g.actions) + 1
        assert g.nocue.states == g.full.states
        assert g.cf.actions == g.full.actions == g.actions
        assert g.cf.intervention and {op["op"] for op in g.cf.intervention} <= set(card.cf_ops)
        assert g.full.events[-1]["type"] == "terminal"
        if family in CORE_FAMILIES:
            assert 1 <= len(g.nocue.mask) <= card.nocue_budget
        assert TrajectoryGroup.from_record(g.to_record()).to_record() == g.to_record()
    assert len({g.group_id for g in res.groups}) == 3


def test_same_arguments_same_groups():
    a = generate_groups("keycorridor", 2, 5)
    b = generate_groups("keycorridor", 2, 5)
    assert [g.to_record() for g in a.groups] == [g.to_record() for g in b.groups]


def test_rejects_are_counted_per_gate_and_reproducible():
    res = generate_groups("lavagap", 8, 830000)  # LavaGap rejects seeds whose agent faces lava
    assert res.rejected_seeds, "expected at least one rejected LavaGap seed in this range"
    assert sum(res.rejects.values()) >= len(res.rejected_seeds)
    for seed, failed in res.rejected_seeds:
        g = build_group("lavagap", res.env_id, seed)
        assert not g.valid
        assert tuple(k for k in GATES if not g.validators[k]) == failed
        assert all(k in g.reasons for k in failed)
    assert [s for s, _ in res.reject_reasons] == [s for s, _ in res.rejected_seeds]


@pytest.mark.parametrize("family", ["unlockpickup", "blockedunlockpickup"])
def test_task_e_trajectories_produce_all_statuses(family):
    res = generate_groups(family, 6, 830000)
    statuses = set()
    for g in res.groups:
        types = [e["type"] for e in g.full.events]
        assert "pickup" in types and "drop" in types
        first = next(e for e in g.full.events if e["type"] == "pickup")
        assert identity_label(first["obj"]) == identity_label(g.first_pickup)
        statuses |= {status_at(g.full, t) for t in range(len(g.full.states) - 1)}
    assert set(STATUSES) <= statuses
    assert {g.plan for g in res.groups} == {"direct", "regrab"}


def test_memory_cf_swaps_the_end_objects_themselves():
    g = generate_groups("memory", 1, 830000).groups[0]
    cols = {op["a"][0] for op in g.cf.intervention if op["op"] == "swap"}
    (col,) = cols
    ends_full = [(o["type"], o["pos"]) for o in g.full.states[0]["objects"] if o["pos"][0] == col]
    ends_cf = [(o["type"], o["pos"]) for o in g.cf.states[0]["objects"] if o["pos"][0] == col]
    assert ends_full != ends_cf and sorted(t for t, _ in ends_full) == sorted(t for t, _ in ends_cf)
    assert g.cf.terminated and g.cf.reward == 0
    assert g.cf.states[-1]["agent_pos"] == g.full.states[-1]["agent_pos"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"family": "doorkeyy", "n": 1, "seed": 0}, "doorkey, keycorridor"),
        ({"family": "doorkey", "n": 0, "seed": 0}, "positive"),
        ({"family": "doorkey", "n": 1, "seed": -3}, "non-negative"),
        ({"family": "doorkey", "n": 1, "seed": 0, "env_id": "MiniGrid-Nope-v0"},
         "MiniGrid-DoorKey-8x8-v0"),
        ({"family": "doorkey", "n": 1, "seed": 0, "env_id": "MiniGrid-LavaGapS5-v0"},
         "belongs to family 'lavagap'"),
    ],
)
def test_bad_arguments_name_the_valid_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        generate_groups(**kwargs)


def test_non_default_env_id():
    g = generate_groups("doorkey", 1, 7, env_id="MiniGrid-DoorKey-5x5-v0").groups[0]
    assert g.group_id == "doorkey.DoorKey-5x5.s7" and g.valid


def test_status_at_follows_the_first_objects_pickups_and_drops():
    g = next(g for g in generate_groups("unlockpickup", 6, 830000).groups if g.plan == "regrab")
    first = g.first_pickup
    picks = [e["t"] for e in g.full.events if e["type"] == "pickup" and e["obj"] == first]
    drops = [e["t"] for e in g.full.events if e["type"] == "drop" and e["obj"] == first]
    assert len(picks) >= 2 and drops and picks[0] < drops[0] < picks[1]
    assert status_at(g.full, picks[0] - 1) is None
    assert status_at(g.full, picks[0]) == "holding"
    assert status_at(g.full, drops[0]) == status_at(g.full, picks[1] - 1) == "dropped"
    assert status_at(g.full, picks[1]) == "reacquired_and_holding"


@pytest.mark.slow
def test_fifty_valid_groups_per_family_from_consecutive_seeds():
    for family in FAMILIES:
        res = generate_groups(family, 50, 830000)
        assert len(res.groups) == 50 and all(g.valid for g in res.groups)
        assert res.reject_rate < 0.5, (family, res.rejects)


def _fake_outcomes(valid_every: int):
    """Seeds divisible by ``valid_every`` are valid (the group is the seed), others fail D1."""
    def outcomes(seeds):
        for s in seeds:
            yield s, ((s, (), {}) if s % valid_every == 0 else (None, ("D1",), {"D1": "x"}))
    return outcomes


@pytest.mark.parametrize("min_batch", [0, 3, 64])
def test_draw_loop_keeps_first_valid_in_seed_order_whatever_the_batch(min_batch):
    from gridwm_judge.worlds.core.draw import draw_groups

    res = draw_groups("f", "E-v0", 3, 10, _fake_outcomes(4), min_batch=min_batch)
    assert res.groups == (12, 16, 20) and res.n_drawn == 11
    assert res.rejects == {"D1": 8} and [s for s, _ in res.rejected_seeds][:2] == [10, 11]


@pytest.mark.parametrize("min_batch", [0, 7, 500])
def test_draw_loop_stops_at_the_draw_limit_whatever_the_batch(min_batch):
    from gridwm_judge.worlds.core.draw import MAX_DRAWS_FACTOR, draw_groups

    limit = MAX_DRAWS_FACTOR * 2 + 50
    with pytest.raises(RuntimeError, match=rf"only 1/2 valid groups in {limit} seeds from 0"):
        draw_groups("f", "E-v0", 2, 0, _fake_outcomes(10**6), min_batch=min_batch)


class _InterruptedPool:
    """An executor whose third submit is interrupted (Ctrl-C while a batch is submitted)."""

    def __init__(self):
        self.futures = []

    def submit(self, fn, *args):
        if len(self.futures) == 2:
            raise KeyboardInterrupt
        fut = Future()
        self.futures.append(fut)
        return fut


def test_ctrl_c_while_a_batch_is_submitted_cancels_what_was_submitted():
    """Pool workers ignore Ctrl-C under the CLI: a future left pending would be run by the
    pool's shutdown, so the whole batch would be computed before the command exits."""
    pool = _InterruptedPool()
    with pytest.raises(KeyboardInterrupt):
        next(_seed_results("doorkey", ENV_CARDS["doorkey"].default_env_id, range(10), pool=pool))
    assert len(pool.futures) == 2 and all(f.cancelled() for f in pool.futures)

"""Profiles reproduce the paper's counts and name the valid choices on bad input."""

import pytest

from gridwm_judge.dataset.generation import env_tables
from gridwm_judge.dataset.profiles import PROFILES, check_configs, get_profile
from gridwm_judge.tasks import task_c


def _groups(plan):
    env_ids, default_env = env_tables()
    return plan.requests(env_ids, default_env)


def test_base_counts_match_the_paper():
    base = get_profile("base")
    assert {p.config: p.expected_rows for p in base.plans} == {
        "task_a": 309, "task_b": 144, "task_c": 972, "task_d": 144, "task_e": 325,
        "task_c_hard": 108,  # 18 hard-CF groups x Full/NoCue/CF x composite/split
        "prompt_ablation": 588,  # the controlled analyses: 98 groups x Full/CF x 3 styles
        "oracle_state": 882}  # 98 groups x Full/NoCue/CF x 3 evidence arms
    assert base.plan("task_a").n_items == 103 and base.plan("task_e").n_items == 325
    c = base.plan("task_c")
    n_groups = sum(n for _, _, n in _groups(c))
    assert n_groups == 18
    assert n_groups * task_c.rows_per_group(**dict(c.options)) == 972
    d = _groups(base.plan("task_d"))
    assert len(d) == 6 and all(n == 3 for _, _, n in d)  # 1 reference + 2 queries per env
    assert sum(n for _, _, n in _groups(base.plan("task_a"))) == 18
    assert sum(n for _, _, n in _groups(base.plan("task_e"))) == 48
    # oracle_state: the 98 control groups over nine envs, plus one reference per env
    os_ = _groups(base.plan("oracle_state"))
    assert len({e for _, e, _ in os_}) == 9 and sum(n - 1 for _, _, n in os_) == 98
    assert 98 * 3 * 3 == base.plan("oracle_state").expected_rows


def test_scale2_counts():
    s2 = get_profile("scale2")
    c = s2.plan("task_c")
    assert sum(n for _, _, n in _groups(c)) == 442
    assert 442 * task_c.rows_per_group(**dict(c.options)) == c.expected_rows == 2 * 1326
    d = _groups(s2.plan("task_d"))
    assert sum(n - 1 for _, _, n in d) == 432  # query groups; one reference per env on top
    assert s2.plan("task_d").expected_rows == 432 * 3
    assert s2.plan("task_a").n_items == 1030
    assert len({env for _, env, _ in _groups(c)}) > 3  # spread over the registered envs


def test_bad_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="base, scale2, smoke"):
        get_profile("huge")
    with pytest.raises(ValueError, match="task_a, task_b, task_c, task_d, task_e"):
        check_configs(PROFILES["smoke"], ["task_z"])
    assert check_configs(PROFILES["smoke"], ["task_d", "task_c"]) == ("task_c", "task_d")


def test_profiles_name_their_families():
    """A profile draws the families it names, each a card of its world; base draws the
    paper's eight MiniGrid families, however many cards there are."""
    from gridwm_judge.task_table import world_of
    from gridwm_judge.worlds.minigrid.cards import ENV_CARDS
    from gridwm_judge.worlds.miniworld.cards import FAMILIES as MINIWORLD_FAMILIES

    for profile in PROFILES.values():
        for plan in profile.plans:
            known = MINIWORLD_FAMILIES if world_of(plan.config) == "miniworld" else ENV_CARDS
            assert {f for f, _ in plan.families} <= set(known), (profile.name, plan.config)
    base = get_profile("base")
    assert {f for p in base.plans for f, _ in p.families} == {
        "doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom",
        "unlockpickup", "blockedunlockpickup"}

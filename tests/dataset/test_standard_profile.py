"""The ``standard`` profile: its sizes give what it states (paired MDE <= 0.1 on
IDR_raw for task_c and task_c_hard, CI half-width <= 0.05 for A and E), it probes base's
groups and shows the others at the neutral presentation only."""

from __future__ import annotations

from types import SimpleNamespace

from gridwm_judge.dataset.builder import probed_option
from gridwm_judge.dataset.profiles import PROFILES
from gridwm_judge.scoring import power
from gridwm_judge.tasks import task_c
from gridwm_judge.worlds.minigrid.generate import generate_groups


def test_standard_sizes_give_the_stated_resolution():
    std, base, mw = PROFILES["standard"], PROFILES["base"], PROFILES["miniworld_standard"]
    for prof, config in ((std, "task_c"), (std, "task_c_hard"), (mw, "miniworld_c"),
                         (mw, "miniworld_c_hard")):
        plan = prof.plan(config)
        n = sum(k for _, k in plan.families)
        assert power.paired_mde(n) <= 0.1, (config, n)
        assert len({k for _, k in plan.families}) == 1  # families balanced
    for prof, config in ((std, "task_a"), (std, "task_e"), (mw, "miniworld_a")):
        assert power.ci_half_width(prof.plan(config).n_items) <= 0.05
    # B and the controls as in base
    for config in ("task_b", "oracle_state", "prompt_ablation"):
        assert std.plan(config) == base.plan(config)


def test_standard_task_c_probes_base_groups_and_rows_add_up():
    plan = PROFILES["standard"].plan("task_c")
    n = sum(k for _, k in plan.families)
    probed = 6 * len(plan.families)
    assert plan.expected_rows == (probed * task_c.rows_per_group(("grid", "framing"))
                                  + (n - probed) * task_c.rows_per_group(("baseline",)))


def test_only_the_probed_groups_get_the_probe_sets():
    groups = generate_groups("redbluedoor", 3, 830000).groups
    plan = SimpleNamespace(probed_per_env=1)
    option = probed_option(plan, groups)
    assert option == {"probed": (groups[0].group_id,)}
    rows = task_c.build_rows(groups, probe_sets=("grid", "framing"), **option)
    by_group = {g.group_id: [r for r in rows if r["group_id"] == g.group_id] for g in groups}
    assert len(by_group[groups[0].group_id]) == task_c.rows_per_group(("grid", "framing"))
    for g in groups[1:]:
        assert {r["probe_family"] for r in by_group[g.group_id]} == {"baseline"}
        assert {(r["temporal"], r["visual"], r["framing"]) for r in by_group[g.group_id]} == {
            ("orig", "clean", "neutral")}
        assert len(by_group[g.group_id]) == task_c.rows_per_group(("baseline",))
    assert probed_option(SimpleNamespace(probed_per_env=None), groups) == {}

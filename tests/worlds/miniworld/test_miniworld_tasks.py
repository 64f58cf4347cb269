"""MiniWorld configs miniworld_c / miniworld_d: real MiniWorld groups rendered headless, rows
through the task table, the baseline judges."""

import json

import numpy as np
import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")
from gridwm_judge.worlds.miniworld.backend import require_miniworld  # noqa: E402

require_miniworld()

from gridwm_judge.judges import make_judge  # noqa: E402
from gridwm_judge.judges.base import JudgeRequest  # noqa: E402
from gridwm_judge.schema import COLUMNS  # noqa: E402
from gridwm_judge.task_table import BUILT_CONFIGS, CONFIGS, parse_task_list, task_spec  # noqa: E402
from gridwm_judge.tasks import TASK_MODULES, build_rows  # noqa: E402
from gridwm_judge.tasks.miniworld_c import default_world  # noqa: E402
from gridwm_judge.tasks.miniworld_d import mission_batches  # noqa: E402
from gridwm_judge.tasks.task_c import Storyboards  # noqa: E402
from gridwm_judge.worlds.miniworld.variants import build_group, generate_groups  # noqa: E402

SEED = 830000


@pytest.fixture(scope="module")
def groups():
    # Both Sign missions, two valid groups each (box: 830000, 830004; key: 830009, 830014).
    sign = [build_group("sign", s) for s in (830000, 830004, 830009, 830014)]
    assert all(all(g.validators.values()) for g in sign)
    return list(generate_groups("tmaze", 2, SEED).groups) + sign


@pytest.fixture(scope="module")
def c_rows(groups):
    return build_rows("miniworld_c", [groups[0], groups[2]], seed=0,
                      probe_sets=("grid", "framing"))


def test_configs_in_the_task_table():
    assert {"miniworld_a", "miniworld_c", "miniworld_d"} <= set(BUILT_CONFIGS) == set(TASK_MODULES)
    assert parse_task_list("miniworld_c,miniworld_d,miniworld_a") == ("MC", "MD", "MA")
    assert task_spec("MA").recipe == "next_state"
    # "all" stays the MiniGrid benchmark: MiniWorld is never pooled with it
    assert parse_task_list("all") == ("A", "B", "C", "D", "E") and "miniworld_c" not in CONFIGS
    c, d = task_spec("miniworld_c"), task_spec("MD")
    assert (c.name, c.recipe, c.protocol) == ("MC", "presentation_invariance", "eligible_pairs")
    assert (d.config, d.recipe, d.protocol) == ("miniworld_d", "reference_aided", "all_groups")


def test_c_rows_are_task_c_rows_of_their_own_task(c_rows):
    assert len(c_rows) == 2 * 3 * 2 * 9   # groups x variants x representations x presentations
    assert len({r["uid"] for r in c_rows}) == len(c_rows)
    for r in c_rows:
        assert set(r) == set(COLUMNS)
        assert r["task"] == "MC" and r["uid"].startswith("MC.") and r["item_id"].startswith("MC.")
        assert r["answer"] == {"full": "Yes", "nocue": "Yes", "cf": "No"}[r["variant"]]
        assert r["label"] == (r["variant"] != "cf")
        assert "first-person 3D views" in r["prompt"] and "MiniGrid" not in r["prompt"]
        assert ("reverse chronological" in r["prompt"]) == (r["temporal"] == "rev")
        assert len(r["images"]) == (1 if r["representation"] == "composite" else 8)
    # D3: the variants of one group and presentation have one prompt
    prompts = {}
    for r in c_rows:
        key = (r["group_id"], r["probe_family"], r["temporal"], r["visual"], r["framing"],
               r["representation"])
        prompts.setdefault(key, set()).add(r["prompt"])
    assert len(prompts) == 2 * 2 * 9 and all(len(p) == 1 for p in prompts.values())
    sign = next(r for r in c_rows if r["family"] == "sign")
    assert "read the colour on the sign" in sign["prompt"]
    framed = next(r for r in c_rows if r["framing"] == "negative")
    assert "may contain a failure" in framed["prompt"]


def test_d_batches_by_mission(groups):
    assert [len(b) for b in mission_batches(groups)] == [2, 2, 2]
    rows = build_rows("miniworld_d", groups, seed=0)
    assert len(rows) == (1 + 1 + 1) * 3 * 4   # query groups x variants x conditions
    by_id = {g.group_id: g for g in groups}
    for r in rows:
        assert set(r) == set(COLUMNS) and r["task"] == "MD" and r["uid"].startswith("MD.")
        ref, query = by_id[r["reference_group_id"]], by_id[r["group_id"]]
        assert ref.mission == query.mission and ref.group_id != query.group_id
        assert f"Task goal: {query.mission}" in r["prompt"] and len(r["images"]) == 2
        assert r["answer"] == ("Fail" if r["variant"] == "cf" else "Success")
    assert len({r["uid"] for r in rows}) == len(rows)
    with pytest.raises(ValueError, match="no query group"):
        build_rows("miniworld_d", groups[:1], seed=0)


def test_nocue_storyboards_show_what_is_hidden(groups):
    # Sign's glimpses of the sign are not events: without a masked keyframe, seeds 830000
    # and 830004 showed NoCue storyboards pixel-identical to Full's.
    for g in groups:
        boards = Storyboards(g, world=default_world())
        assert {m["t"] for m in g.nocue.mask} & set(boards.indices("nocue")), g.group_id
        assert any(not np.array_equal(a, b) for a, b in
                   zip(boards.frames("full"), boards.frames("nocue"), strict=True)), g.group_id


def test_minigrid_groups_are_refused(groups):
    from gridwm_judge.worlds.minigrid import generate_groups as minigrid_groups

    g = minigrid_groups("redbluedoor", 1, 0).groups[0]
    with pytest.raises(ValueError, match="no family .redbluedoor.; expected one of tmaze"):
        build_rows("miniworld_c", [g], seed=0)


@pytest.mark.parametrize("name", ["always-yes", "always-no", "random", "pixel-heuristic"])
def test_baseline_judges_answer_the_new_configs(c_rows, groups, name):
    d_rows = build_rows("miniworld_d", groups[:2], seed=0, conditions=("clean-neutral",))
    judge = make_judge(f"baseline:{name}")
    reqs = [JudgeRequest(r["uid"], r["task"], r["prompt"], r["images"], 256)
            for r in c_rows[:30:7] + d_rows[:3]]
    out = list(judge.judge(reqs))
    assert [o.status for o in out] == ["ok"] * len(reqs)
    for req, o in zip(reqs, out, strict=True):
        assert o.raw in task_spec(req.task).answer.options, (name, req.uid, o.raw)
    if name == "always-yes":
        assert {o.raw for o in out} == {"Yes", "Success"}
    json.dumps([o.raw for o in out])


def test_lazy_view_draws_the_world_views_pixels(groups):
    """StoryboardView renders only what is read, and exactly MiniWorldView's frames."""
    from gridwm_judge.tasks.miniworld_view import StoryboardView
    from gridwm_judge.worlds.miniworld.render import MiniWorldView

    g = groups[2]   # a Sign group: NoCue hides the sign (a static entity) in masked frames
    eager, lazy = MiniWorldView(size=(96, 72)), StoryboardView(size=(96, 72))
    for variant in ("full", "nocue", "cf"):
        want = eager.frames(g, variant)
        frames = lazy.frames(g, variant)
        assert len(frames) == len(want)
        mask_ts = [m["t"] for m in getattr(g, variant).mask]
        for t in sorted({0, len(want) - 1, *mask_ts, len(want) // 2}, reverse=True):
            assert (frames[t] == want[t]).all() and not frames[t].flags.writeable, (variant, t)
    t0 = g.nocue.mask[0]["t"]
    assert not (eager.frames(g, "full")[t0] == lazy.frames(g, "nocue")[t0]).all()
    with pytest.raises(IndexError):
        lazy.frames(g, "full")[len(g.full.states)]


def test_a_rows_ask_macro_actions_with_distinct_candidates(groups):
    from gridwm_judge.tasks.miniworld_c import VIEW_SIZE
    from gridwm_judge.worlds.miniworld.macros import macros

    rows = build_rows("miniworld_a", [groups[0], groups[2]], n_items=8, seed=3)
    assert len(rows) == 24 and len({r["uid"] for r in rows}) == 24
    texts = {m.text for g in (groups[0], groups[2]) for m in macros(_env(g))}
    assert len(texts) == 12   # six macros per env, TMaze's and Sign's step sizes differ
    for r in rows:
        assert set(r) == set(COLUMNS) and r["task"] == "MA" and r["uid"].startswith("MA.")
        assert "top-down map" in r["prompt"] and "first-person" in r["prompt"]
        first = r["prompt"].split("\n")[0]
        assert r["action"] in texts
        if r["action_condition"] == "orig":
            assert first == f"Action: {r['action']}."
        elif r["action_condition"] == "mask":
            assert first == "Action: unknown."
        else:
            assert first != f"Action: {r['action']}." and first[len("Action: "):-1] in texts
        order = json.loads(r["candidate_order"])
        assert len({c["macro"] for c in order}) == 4   # four different actions' views
        gold = next(c for c in order if c["gold"])
        assert gold["letter"] == r["answer"] and gold["macro"] == r["action"]
        assert all(c["t"] == r["checkpoint"] and c["group_id"] == r["group_id"] for c in order)
        assert r["images"][0].height > 2 * VIEW_SIZE[1]   # current view + map, stacked
    assert {r["answer"] for r in rows if r["action_condition"] == "orig"} == set("ABCD")


def _env(g):
    from gridwm_judge.worlds.miniworld.backend import shared_env

    return shared_env(g.env_id, g.env_kwargs, g.max_episode_steps).unwrapped


def test_macro_views_are_the_simulators(groups):
    """Each macro's view is what a fresh env shows after the recorded actions up to t and
    the macro's primitive actions; the paper's 30/60 degrees and 5/10 steps at 15 deg/0.15 m."""
    from gridwm_judge.worlds.miniworld.backend import make_env
    from gridwm_judge.worlds.miniworld.macros import macros, views_at
    from gridwm_judge.worlds.miniworld.render import first_person

    tm = [(m.action, m.repeats) for m in macros(_env(groups[0]))]
    assert sorted(tm) == [(0, 2), (0, 4), (1, 2), (1, 4), (2, 5), (2, 10)]
    assert sorted((m.action, m.repeats) for m in macros(_env(groups[2]))) == [
        (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]   # Sign: 45 degrees, 0.7 m steps
    g, t = groups[0], 7
    (views,) = views_at(g, [t])
    for m, frame, pose in views.after[:3:2]:
        env = make_env(g.env_id, g.env_kwargs, g.max_episode_steps)
        env.reset(seed=g.seed)
        for a in list(g.actions[:t]) + list(m.primitives):
            env.step(a)
        u = env.unwrapped
        assert (first_person(u, frame.shape[1::-1]) == frame).all(), m.text
        assert pose[:2] == (float(u.agent.pos[0]), float(u.agent.pos[2]))
        env.close()


def test_map_marks_the_agent_where_miniworld_draws_it(groups):
    """The map's orange arrow sits on MiniWorld's own (small, red) agent triangle and points the
    agent's way: its tip lies ahead of its centre along the agent's heading."""
    from gridwm_judge.worlds.miniworld.backend import make_env
    from gridwm_judge.worlds.miniworld.render import AGENT_MARKER, _fb, top_down

    g = groups[2]
    env = make_env(g.env_id, g.env_kwargs, g.max_episode_steps)
    env.reset(seed=g.seed)
    for a in g.actions[:5]:
        env.step(a)
    u = env.unwrapped
    plain = np.array(u.render_top_view(_fb(u, (160, 160)), render_agent=False), copy=True)
    theirs = np.array(u.render_top_view(_fb(u, (160, 160))), copy=True)
    ours = top_down(u, (160, 160))
    env.close()
    ty, tx = np.nonzero(np.any(theirs != plain, axis=2))
    oy, ox = np.nonzero(np.all(ours == AGENT_MARKER, axis=2))
    assert len(ox) >= 40 and not np.all(plain == AGENT_MARKER, axis=2).any()
    assert abs(ox.mean() - tx.mean()) < 2.5 and abs(oy.mean() - ty.mean()) < 2.5
    along = (ox - ox.mean()) * np.cos(u.agent.dir) - (oy - oy.mean()) * np.sin(u.agent.dir)
    assert along.max() > 1.5 * -along.min()   # the tip reaches twice as far as the base


def test_lazy_frames_replay_again_after_another_user_of_the_env(groups):
    from gridwm_judge.tasks.miniworld_view import StoryboardView
    from gridwm_judge.worlds.miniworld.macros import views_at
    from gridwm_judge.worlds.miniworld.render import MiniWorldView

    g = groups[1]
    lazy = StoryboardView(size=(64, 48)).frames(g, "full")
    want = MiniWorldView(size=(64, 48)).frames(g, "full")
    assert (lazy[5] == want[5]).all()
    views_at(g, [20])        # steps the same shared env elsewhere
    assert (lazy[6] == want[6]).all()

"""Gate V1: a group's outcome is visible in the last frame a storyboard shows (real MiniWorld
groups, rendered at the storyboard size by the storyboard's own renderer)."""

import dataclasses

import pytest

pytest.importorskip("pyglet", reason="needs the 3d extra")
from gridwm_judge.worlds.miniworld.backend import require_miniworld  # noqa: E402

require_miniworld()

from gridwm_judge.tasks.miniworld_view import StoryboardView  # noqa: E402
from gridwm_judge.worlds.miniworld.cards import get_card  # noqa: E402
from gridwm_judge.worlds.miniworld.gates import GATES, run_gates  # noqa: E402
from gridwm_judge.worlds.miniworld.outcome import OUTCOME_AREA, outcome_views  # noqa: E402
from gridwm_judge.worlds.miniworld.render import VIEW_SIZE  # noqa: E402
from gridwm_judge.worlds.miniworld.variants import build_group, generate_groups, try_seed  # noqa: E402

SEED = 830000
HIDDEN_RED = 830001   # its red box (0.61 m) lies wholly below the view once dropped


def colour_shares(frame) -> tuple[float, float]:
    """Shares of the frame's pixels that are box red and box yellow (lit or shaded faces)."""
    r, g, b = (frame[..., k].astype(int) for k in range(3))
    red = (r > 150) & (g < 60) & (b < 60)
    yellow = (r > 150) & (g > 150) & (b < 80)
    return float(red.mean()), float(yellow.mean())


def last_frame(group, variant: str):
    return StoryboardView(size=VIEW_SIZE).frames(group, variant)[-1]


@pytest.fixture(scope="module")
def putnext():
    # 13: every PutNext group the ``miniworld`` profile draws (Task D's 12 queries + reference)
    return generate_groups("putnext", 13, SEED)


def test_putnext_last_frames_show_the_outcome(putnext):
    """Full's last frame shows the red box by the yellow one; CF's shows the red box."""
    card = get_card("putnext")
    assert len(putnext.groups) == 13 and "V1" in GATES
    for g in putnext.groups:
        red, yellow = colour_shares(last_frame(g, "full"))
        assert red >= OUTCOME_AREA and yellow >= OUTCOME_AREA, (g.seed, red, yellow)
        red, _ = colour_shares(last_frame(g, "cf"))
        assert red >= OUTCOME_AREA, (g.seed, red)
        views = outcome_views(card, g.roles, g.env_kwargs, g.seed, g.full, g.cf)
        assert min(views["full"]["carry"], views["full"]["target"],
                   views["cf"]["carry"]) >= OUTCOME_AREA, (g.seed, views)


def test_v1_rejects_a_seed_whose_success_is_out_of_view(putnext):
    g = build_group("putnext", HIDDEN_RED)
    red, yellow = colour_shares(last_frame(g, "full"))
    assert g.full.success and red == 0.0 and yellow > OUTCOME_AREA   # what a judge would see
    assert [k for k, ok in g.validators.items() if not ok] == ["V1"]
    assert g.reasons["V1"].startswith("Full's last frame shows the red box (carry) on 0.00% "
                                      "of the view (< 1%); CF's last frame shows the red box")
    assert try_seed("putnext", HIDDEN_RED)[1] == ("V1",)
    assert HIDDEN_RED not in {k.seed for k in putnext.groups}
    assert dict(putnext.reject_reasons)[HIDDEN_RED] == {"V1": g.reasons["V1"]}


def test_v1_reads_the_card_roles_and_the_measured_areas(putnext):
    g = putnext.groups[0]
    card = get_card("putnext")
    views = outcome_views(card, g.roles, g.env_kwargs, g.seed, g.full, g.cf)
    assert set(views["full"]) == {"carry", "target"} and set(views["cf"]) == {"carry"}
    hidden = {**views, "cf": {"carry": OUTCOME_AREA / 2}}
    ok, why = run_gates(card, g.roles, g.full, g.nocue, g.cf, hidden)
    assert not ok["V1"] and why["V1"].startswith("CF's last frame shows the red box (carry)")
    bare = dataclasses.replace(card, full_shows=(), cf_shows=())   # nothing to show: passes
    assert run_gates(bare, g.roles, g.full, g.nocue, g.cf, {"full": {}, "cf": {}})[0]["V1"]


def test_sign_last_frames_show_the_touched_object():
    """Sign's outcome is the object touched: the sign's colour in Full, the swapped-in wrong
    colour in CF (no role names it); the controller touches it facing it."""
    card = get_card("sign")
    for seed in (830000, 830009):   # a box mission, a key mission
        g = build_group("sign", seed)
        assert all(g.validators.values()), g.reasons
        views = outcome_views(card, g.roles, g.env_kwargs, g.seed, g.full, g.cf)
        assert min(views["full"]["touched"], views["cf"]["touched"]) >= OUTCOME_AREA, views
    g = build_group("sign", 830008)   # a key touched from close by lies below the view
    assert g.full.success and [k for k, ok in g.validators.items() if not ok] == ["V1"]
    assert g.reasons["V1"].startswith("Full's last frame shows the red key (touched)")
    assert "CF's last frame shows the blue key (touched)" in g.reasons["V1"]


def test_v1_needs_exactly_one_touched_object():
    g = build_group("sign", 830000)
    card = get_card("sign")
    views = outcome_views(card, g.roles, g.env_kwargs, g.seed, g.full, g.cf)
    last = len(g.full.states) - 1
    (hit,) = [e for e in g.full.events if e["type"] == "reach" and e["t"] == last]
    two = dataclasses.replace(g.full, events=(*g.full.events, {**hit, "entity": hit["entity"] + 1}))
    ok, why = run_gates(card, g.roles, two, g.nocue, g.cf, views)
    assert not ok["V1"] and why["V1"] == "Full's last step touches 2 objects (one expected)"
    none = dataclasses.replace(g.cf, events=tuple(e for e in g.cf.events if e["t"] != last))
    ok, why = run_gates(card, g.roles, g.full, g.nocue, none, views)
    assert not ok["V1"] and "CF's last step touches 0 objects" in why["V1"]

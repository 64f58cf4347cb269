"""Task A accuracy and ablation drops, Task B component score, Task E: hand-computed."""

import json

import pytest

from gridwm_judge.scoring import (
    B_WEIGHTS,
    b_components,
    b_score,
    e_score,
    task_a_metrics,
    task_b_metrics,
    task_e_metrics,
)


def test_task_a_paired_by_item():
    # item: (orig, shuffle, mask) predictions; gold is "B" everywhere
    answers = {
        "i1": ("B", "B", "A"),
        "i2": ("B", "C", "C"),
        "i3": ("A", "B", None),
        "i4": ("C", "D", "D"),
    }
    pred, ref, items, cond, groups = [], [], [], [], []
    for it, triple in answers.items():
        for c, p in zip(("orig", "shuffle", "mask"), triple, strict=True):
            pred.append(p)
            ref.append("B")
            items.append(it)
            cond.append(c)
            groups.append("gA" if it in ("i1", "i2") else "gB")
    # an orig-only item counts in Acc_A1 but not in the paired drops
    pred.append("b")
    ref.append("B")
    items.append("i5")
    cond.append("orig")
    groups.append("gB")
    r = task_a_metrics(pred, ref, items, cond, groups)
    assert r.acc_a1 == pytest.approx(3 / 5)  # i1, i2, i5 (lower-case accepted)
    assert r.acc["shuffle"].value == 0.5 and r.acc["mask"].value == 0.0
    assert r.delta["shuffle"].value == pytest.approx((2 - 2) / 4)
    assert r.delta["mask"].value == pytest.approx((2 - 0) / 4)
    assert r.discordant["shuffle"] == (1, 1)  # i3 wrong->right, i2 right->wrong
    assert r.discordant["mask"] == (0, 2)
    with pytest.raises(ValueError, match="'reverse'"):
        task_a_metrics(["A"], ["A"], ["i"], ["reverse"], ["g"])


GOLD_B = {
    "agent": {"pos": [3, 2], "dir": "right", "carrying": None},
    "front_cell": {"type": "door", "color": "yellow", "state": "locked"},
    "visible_objects": [
        {"type": "key", "color": "yellow", "pos": [1, 1]},
        {"type": "goal", "color": "green", "pos": [5, 5]},
    ],
}


def test_b_component_score():
    assert sum(B_WEIGHTS.values()) == pytest.approx(1.0)
    assert b_score(json.loads(json.dumps(GOLD_B)), GOLD_B) == pytest.approx(1.0)
    assert b_score(None, GOLD_B) == 0.0
    wrong_dir = json.loads(json.dumps(GOLD_B))
    wrong_dir["agent"]["dir"] = "left"
    assert b_score(wrong_dir, GOLD_B) == pytest.approx(0.90)
    partial = json.loads(json.dumps(GOLD_B))
    partial["front_cell"]["state"] = "open"  # 2 of 3 front-cell fields
    partial["visible_objects"] = [
        GOLD_B["visible_objects"][0],
        {"type": "ball", "color": "red", "pos": [2, 2]},
    ]
    comp = b_components(partial, GOLD_B)
    assert comp["front_cell"] == pytest.approx(2 / 3) and comp["objects"] == pytest.approx(1 / 3)
    assert b_score(partial, GOLD_B) == pytest.approx(0.30 + 0.10 + 0.15 + 0.25 * 2 / 3 + 0.20 / 3)
    carrying = json.loads(json.dumps(GOLD_B))
    carrying["agent"]["carrying"] = {"type": "key", "color": "yellow"}
    assert b_components(carrying, GOLD_B)["carrying"] == 0.0
    assert b_components({"agent": "x"}, GOLD_B)["position"] == 0.0
    m = task_b_metrics([1.0, 0.9, 0.5, 0.0], ["g1", "g1", "g2", "g2"])
    assert m["b_mean_score"].value == pytest.approx(0.6) and m["b_acc_090"].value == 0.5


def test_task_e():
    assert e_score("key_yellow", "key_yellow", "identity") == 1.0
    assert e_score("key_red", "key_yellow", "identity") == 0.5
    assert e_score("ball_red", "key_yellow", "identity") == 0.0
    assert e_score("dropped", "holding", "status") == 0.0
    assert e_score(None, "holding", "status") == 0.0
    m = task_e_metrics(
        ["key_red", "holding", None, "Dropped"],
        ["key_yellow", "holding", "dropped", "dropped"],
        ["identity", "status", "status", "status"],
        ["a", "a", "b", "b"],
    )
    assert m["e_acc"].value == 0.5 and m["e_mean_score"].value == pytest.approx(2.5 / 4)


def test_empty_controls_are_none_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = task_b_metrics([], [])
        e = task_e_metrics([], [], [], [])
        a = task_a_metrics(["A"], ["A"], ["i1"], ["shuffle"], ["g"])
    assert b["b_mean_score"].value is None and b["b_acc_090"].value is None
    assert e["e_acc"].value is None
    assert a.acc_a1 is None and a.delta["shuffle"].value is None  # no orig row: nothing paired

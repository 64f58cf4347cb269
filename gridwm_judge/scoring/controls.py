"""Local controls: Task A action-conditioned accuracy and ablation drops, Task B structured
perception score, Task E state-tracking accuracy (paper Appendix A.3, eqs. 36-39).

Invalid or missing answers are ``None`` and count as incorrect / score 0 everywhere here
(all-items protocol). Every metric is a :class:`GroupRatio` so CIs resample groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridwm_judge.schema import ACTION_CONDITIONS
from gridwm_judge.scoring._arrays import GroupRatio, group_index, per_group_sum, strings

# Task B component weights: the one place they are defined (sum to 1).
B_WEIGHTS: dict[str, float] = {
    "position": 0.30,
    "direction": 0.10,
    "carrying": 0.15,
    "front_cell": 0.25,
    "objects": 0.20,
}
B_THRESHOLD = 0.90


def _ratio_by_group(group_ids: np.ndarray, num: np.ndarray, den: np.ndarray) -> GroupRatio:
    groups, inv = group_index(group_ids)
    return GroupRatio(
        groups, per_group_sum(inv, len(groups), num), per_group_sum(inv, len(groups), den)
    )


# ---------------------------------------------------------------- Task A


@dataclass(frozen=True)
class TaskAResult:
    """Acc per action condition, the paired drops and their discordant counts.

    ``delta[c]`` = Acc_orig - Acc_c over items answered in both conditions (paired by
    item id); ``discordant[c]`` = (n01, n10): orig wrong & c right, orig right & c wrong.
    """

    acc: dict[str, GroupRatio]
    delta: dict[str, GroupRatio]
    discordant: dict[str, tuple[int, int]]

    @property
    def acc_a1(self) -> float | None:
        return self.acc["orig"].value if "orig" in self.acc else None


def task_a_metrics(
    predictions: Sequence[str | None],
    references: Sequence[str],
    item_ids: Sequence[str],
    conditions: Sequence[str],
    group_ids: Sequence[str],
) -> TaskAResult:
    """Acc_A1 (orig rows), Acc per ablation, Delta_shuffle / Delta_mask paired by item."""
    n = len(references)
    pred = np.array(
        [("" if p is None else str(p)).strip().upper() for p in predictions], dtype=object
    )
    if pred.shape != (n,):
        raise ValueError(f"predictions has {pred.shape[0]} entries; expected {n}")
    ref = strings(references, "references", n)
    items = strings(item_ids, "item_ids", n)
    cond = strings(conditions, "conditions", n)
    g = strings(group_ids, "group_ids", n)
    unknown = sorted(set(cond.tolist()) - set(ACTION_CONDITIONS))
    if unknown:
        raise ValueError(
            f"unknown action condition {unknown[0]!r}; expected one of "
            f"{', '.join(ACTION_CONDITIONS)}"
        )
    correct = (pred == np.char.upper(ref.astype(str))).astype(float)
    acc, delta, disc = {}, {}, {}
    groups_all, _ = group_index(g)
    cell: dict[tuple[str, str], int] = {}
    for i, (it, c) in enumerate(zip(items.tolist(), cond.tolist(), strict=True)):
        if (it, c) in cell:
            raise ValueError(f"item {it!r} has more than one {c!r} row")
        cell[(it, c)] = i
    gpos = {gid: k for k, gid in enumerate(groups_all)}
    for c in ACTION_CONDITIONS:
        rows = cond == c
        if not rows.any():
            continue
        r = _ratio_by_group(g[rows], correct[rows], np.ones(int(rows.sum())))
        acc[c] = _align(r, groups_all, gpos)
        if c == "orig":
            continue
        num, den = np.zeros(len(groups_all)), np.zeros(len(groups_all))
        n01 = n10 = 0
        for (it, cc), j in cell.items():
            if cc != c or (it, "orig") not in cell:
                continue
            o = cell[(it, "orig")]
            k = gpos[g[o]]
            num[k] += correct[o] - correct[j]
            den[k] += 1
            n01 += int(correct[o] == 0 and correct[j] == 1)
            n10 += int(correct[o] == 1 and correct[j] == 0)
        delta[c] = GroupRatio(groups_all, num, den)
        disc[c] = (n01, n10)
    return TaskAResult(acc, delta, disc)


def _align(r: GroupRatio, groups: tuple[str, ...], pos: dict[str, int]) -> GroupRatio:
    num, den = np.zeros(len(groups)), np.zeros(len(groups))
    idx = np.array([pos[x] for x in r.groups], dtype=int)
    num[idx], den[idx] = r.num, r.den
    return GroupRatio(groups, num, den)


# ---------------------------------------------------------------- Task B


def _norm(x: Any) -> Any:
    return x.strip().lower() if isinstance(x, str) else x


def _pos(x: Any) -> tuple[int, int] | None:
    if isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(v, (int, float)) for v in x):
        return int(x[0]), int(x[1])
    return None


def _carrying(x: Any) -> str | None:
    if isinstance(x, dict):
        return f"{_norm(x.get('type'))}_{_norm(x.get('color'))}"
    if x in (None, "", "none", "null", "nothing"):
        return None
    return _norm(x)


def _objects(x: Any) -> set[tuple]:
    out = set()
    if isinstance(x, list):
        for o in x:
            if isinstance(o, dict):
                out.add((_norm(o.get("type")), _norm(o.get("color")), _pos(o.get("pos"))))
    return out


def b_components(pred: dict | None, gold: dict) -> dict[str, float]:
    """Per-component scores in [0, 1] (see :data:`B_WEIGHTS`).

    position / direction / carrying: exact match of the agent field; front_cell: share of
    its fields (type, color, state) that match; objects: Jaccard of the (type, color, pos)
    sets of visible objects (1 when both are empty). A missing or malformed field scores 0.
    """
    if not isinstance(pred, dict):
        return dict.fromkeys(B_WEIGHTS, 0.0)
    agent = pred.get("agent")
    pa: dict[str, Any] = agent if isinstance(agent, dict) else {}
    ga = gold["agent"]
    pf = pred.get("front_cell") if isinstance(pred.get("front_cell"), dict) else None
    gf = gold["front_cell"]
    front = 0.0
    if pf is not None:
        front = sum(_norm(pf.get(k)) == _norm(gf.get(k)) for k in ("type", "color", "state")) / 3
    po, go = _objects(pred.get("visible_objects")), _objects(gold["visible_objects"])
    union = po | go
    return {
        "position": float(
            _pos(pa.get("pos")) is not None and _pos(pa.get("pos")) == _pos(ga["pos"])
        ),
        "direction": float("dir" in pa and _norm(pa.get("dir")) == _norm(ga["dir"])),
        "carrying": float(
            "carrying" in pa and _carrying(pa.get("carrying")) == _carrying(ga["carrying"])
        ),
        "front_cell": float(front),
        "objects": 1.0 if not union else len(po & go) / len(union),
    }


def b_score(pred: dict | None, gold: dict) -> float:
    """S_B: the weighted component score in [0, 1]; invalid output (None) scores 0."""
    comp = b_components(pred, gold)
    return float(sum(B_WEIGHTS[k] * comp[k] for k in B_WEIGHTS))


def task_b_metrics(scores: Sequence[float], group_ids: Sequence[str]) -> dict[str, GroupRatio]:
    """B_MeanScore and B_Acc@0.90 from per-item S_B scores."""
    s = np.asarray(scores, dtype=float)
    g = strings(group_ids, "group_ids", s.size)
    ones = np.ones(s.size)
    return {
        "b_mean_score": _ratio_by_group(g, s, ones),
        "b_acc_090": _ratio_by_group(g, (s >= B_THRESHOLD).astype(float), ones),
    }


# ---------------------------------------------------------------- Task E


def e_score(pred: str | None, gold: str, question: str) -> float:
    """S_E in [0, 1]: identity labels ``<type>_<color>`` earn 0.5 per matching part;
    status labels are exact (1 or 0); invalid (None) scores 0."""
    if pred is None:
        return 0.0
    p, t = _norm(str(pred)), _norm(gold)
    if p == t:
        return 1.0
    if question == "identity":
        pp, tt = p.split("_", 1), t.split("_", 1)
        if len(pp) == 2 and len(tt) == 2:
            return 0.5 * (pp[0] == tt[0]) + 0.5 * (pp[1] == tt[1])
    return 0.0


def task_e_metrics(
    predictions: Sequence[str | None],
    references: Sequence[str],
    questions: Sequence[str],
    group_ids: Sequence[str],
) -> dict[str, GroupRatio]:
    """E_Acc (exact label match) and E_MeanScore (mean S_E)."""
    n = len(references)
    if len(predictions) != n:
        raise ValueError(f"predictions has {len(predictions)} entries; expected {n}")
    g = strings(group_ids, "group_ids", n)
    q = strings(questions, "questions", n)
    exact = np.array(
        [
            p is not None and _norm(str(p)) == _norm(r)
            for p, r in zip(predictions, references, strict=True)
        ],
        dtype=float,
    )
    score = np.array(
        [e_score(p, r, qq) for p, r, qq in zip(predictions, references, q, strict=True)]
    )
    ones = np.ones(n)
    return {
        "e_acc": _ratio_by_group(g, exact, ones),
        "e_mean_score": _ratio_by_group(g, score, ones),
    }

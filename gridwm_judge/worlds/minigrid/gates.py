"""Validator gates of a trajectory group (paper Table 8), as named checks with reasons.

D1 identical action ids across variants; D2 |states| = |actions| + 1 (CF: steps + 1, fewer
only when it terminated); D4 Full succeeds, NoCue keeps Full's outcome, CF fails; D5 NoCue
never masks a frame where the agent faces / stands on / acts on the target, nor any later
frame; D6 NoCue re-rolled gives Full's exact states, CF starts from Full's initial state
changed only at the intervened cells; E1 the card's critical events occur in order (and none
of its forbidden ones); E2 symbolic states are valid and consecutive states differ by at most
one action's effect; N1 (tile level) every masked frame's tiles have IoU >= 0.70 with the
target tiles in that frame, and 1 <= masked frames <= budget; CF1 the intervention is of the
declared kind and explains the failure. D3 (model-facing inputs) lives with the task builder.
"""

from __future__ import annotations

from gridwm_judge.worlds.core.gates import d2_reason
from gridwm_judge.worlds.core.records import Rollout
from gridwm_judge.worlds.minigrid.cards import EnvCard, hard_cf_of, subsequence
from gridwm_judge.worlds.minigrid.counterfactual import cf1_reason
from gridwm_judge.worlds.minigrid.grid import DIRS
from gridwm_judge.worlds.minigrid.hard_counterfactual import hard_cf1_reason
from gridwm_judge.worlds.minigrid.nocue import tiles_at, touches

GATES: tuple[str, ...] = ("D1", "D2", "D4", "D5", "D6", "E1", "E2", "N1", "CF1")
IOU_MIN = 0.70
_SOLID = ("key", "ball", "box", "wall")


def _d1(full, nocue, cf, **_):
    ok = full.actions == nocue.actions == cf.actions
    return None if ok else "action ids differ across variants"


def _d2(full, nocue, cf, **_):
    return d2_reason(full, nocue, cf, truncation_ends=True)


def _d4(full, nocue, cf, **_):
    if not full.success:
        return "Full does not succeed"
    if nocue.success != full.success or nocue.reward != full.reward:
        return "NoCue outcome differs from Full"
    if cf.success:
        return "CF succeeds"
    return None


def _d5(full, nocue, specs, **_):
    cells = {tuple(s["pos"]) for s in specs}
    first_act = min((e["t"] for e in full.events if e["pos"] is not None
                     and tuple(e["pos"]) in cells and e["type"] not in ("see", "goal_visible",
                                                                          "terminal")),
                    default=len(full.states))
    for m in nocue.mask:
        t = m["t"]
        if t >= first_act:
            return f"frame {t} is masked at or after the first interaction (t={first_act})"
        if touches(full.states[t], cells):
            return f"frame {t} is masked while the agent faces the target"
    return None


def _d6(full, nocue, cf, **_):
    if nocue.states != full.states:
        return "NoCue states differ from Full"
    touched = set()
    for op in cf.intervention:
        for k in ("pos", "from", "to", "a", "b"):
            if k in op:
                touched.add(tuple(op[k]))
    s0, c0 = full.states[0], cf.states[0]
    if (s0["agent_pos"], s0["agent_dir"], s0["carrying"]) != (
            c0["agent_pos"], c0["agent_dir"], c0["carrying"]):
        return "CF starts from a different agent pose"
    a = {tuple(o["pos"]): o for o in s0["objects"] if tuple(o["pos"]) not in touched}
    b = {tuple(o["pos"]): o for o in c0["objects"] if tuple(o["pos"]) not in touched}
    if a != b:
        return "CF initial state differs outside the intervened cells"
    return None


def _e1(full, card: EnvCard, specs, **_):
    why = card.e1_check(full.events, specs, card.chain_events) if card.e1_check else None
    if why:
        return why
    if not subsequence(full.events, card.chain_events):
        return f"events miss the chain {card.chain_events}"
    bad = [e["type"] for e in full.events if e["type"] in card.forbidden_events]
    if bad:
        return f"forbidden events {bad}"
    return None


def _state_ok(s: dict, w: int, h: int) -> str | None:
    x, y = s["agent_pos"]
    if not (0 < x < w - 1 and 0 < y < h - 1) or s["agent_dir"] not in (0, 1, 2, 3):
        return f"agent pose {s['agent_pos']} dir {s['agent_dir']} invalid"
    cells = [tuple(o["pos"]) for o in s["objects"]]
    if len(cells) != len(set(cells)):
        return "two objects share a cell"
    under = next((o for o in s["objects"] if tuple(o["pos"]) == (x, y)), None)
    if under is not None and (under["type"] in _SOLID or under["state"] in ("closed", "locked")):
        return f"agent stands on a {under['type']}"
    return None


def _e2(full, nocue, cf, width: int, height: int, **_):
    for name, r in (("full", full), ("cf", cf)):
        prev = None
        for t, s in enumerate(r.states):
            why = _state_ok(s, width, height)
            if why:
                return f"{name} state {t}: {why}"
            if prev is not None:
                a = r.actions[t - 1]
                moved = (s["agent_pos"][0] - prev["agent_pos"][0],
                         s["agent_pos"][1] - prev["agent_pos"][1])
                turned = (s["agent_dir"] - prev["agent_dir"]) % 4
                expect_turn = {0: 3, 1: 1}.get(a, 0)
                if turned != expect_turn or moved not in ((0, 0), DIRS[prev["agent_dir"]]):
                    return f"{name} step {t}: pose change inconsistent with action {a}"
                if moved != (0, 0) and a != 2:
                    return f"{name} step {t}: moved without a forward action"
            prev = s
    return None


def _n1(full, nocue, card: EnvCard, specs, **_):
    if not nocue.mask:
        return "empty NoCue mask (the agent faces or meets the target at t=0)"
    if len(nocue.mask) > card.nocue_budget:
        return f"{len(nocue.mask)} masked frames > budget {card.nocue_budget}"
    for m in nocue.mask:
        target = {tuple(p) for p in tiles_at(full.states[m["t"]], specs)}
        mask = {tuple(p) for p in m["tiles"]}
        union = target | mask
        iou = len(target & mask) / len(union) if union else 0.0
        if iou < IOU_MIN:
            return f"frame {m['t']}: mask IoU {iou:.2f} < {IOU_MIN}"
    return None


def _cf1(full, cf, card: EnvCard, cf_kind: str = "paper", **_):
    if cf_kind == "hard":
        return hard_cf1_reason(hard_cf_of(card.family), full, cf)
    return cf1_reason(full, cf, card.cf_ops, card.settable_attrs, card.check_cf)


_CHECKS = {"D1": _d1, "D2": _d2, "D4": _d4, "D5": _d5, "D6": _d6, "E1": _e1, "E2": _e2,
           "N1": _n1, "CF1": _cf1}


def run_gates(card: EnvCard, full: Rollout, nocue: Rollout, cf: Rollout, specs,
              width: int, height: int, cf_kind: str = "paper"
              ) -> tuple[dict[str, bool], dict[str, str]]:
    """(gate -> passed, gate -> reason for each failed gate). Task E cards skip N1/D5.
    ``cf_kind`` ("paper" or "hard") picks CF1's rule (``hard_counterfactual``)."""
    results, reasons = {}, {}
    for name, fn in _CHECKS.items():
        if card.task_e and name in ("N1", "D5"):
            why = None if not nocue.mask else "Task E cards have no NoCue mask"
        else:
            why = fn(full=full, nocue=nocue, cf=cf, card=card, specs=specs,
                     width=width, height=height, cf_kind=cf_kind)
        results[name] = why is None
        if why is not None:
            reasons[name] = why
    return results, reasons

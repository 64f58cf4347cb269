"""MiniWorld Task A (config ``miniworld_a``, task ``MA``): action-conditioned next view, with
the paper's macro actions.

One MiniWorld step (a 15 degree turn, a 0.15 m step) barely changes a first-person view, and
the controller's walk alternates turns and steps, so questions ask about macro actions as the
paper's MiniWorld items do (:mod:`gridwm_judge.worlds.miniworld.macros`: turn left / right 30 and 60
degrees, forward 5 and 10 steps, in the env's own step sizes). A question is a state ``t`` of
a group's Full rollout and one macro; the candidates are the views after that macro (gold) and
after three other macros, every one run from state ``t`` in the simulator and all four
distinct from each other and from the current view. The asked macro starts at a seeded place
in the macro list (so the six spread evenly), the negatives are a seeded pick. The current
state is the first-person view with the top-down map below it; candidates are first-person
views only (a map would give the answer away by the agent's drawn pose). Gold letters are
balanced overall and within each family (as Task A's); states are drawn round-robin over the
groups, each group's in a seeded order.

Each question gives three rows sharing the panel: ``orig`` (the asked macro), ``shuffle`` (a
different macro, seeded by the question) and ``mask`` (``Action: unknown``). uid
``MA.{group_id}.q{t:03d}.{action_condition}``; the prompt is
:data:`gridwm_judge.prompts.MINIWORLD_A`; ``candidate_order`` names each candidate's macro.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from gridwm_judge.prompts import MINIWORLD_A, TASK_A_MASKED_ACTION
from gridwm_judge.render import choice_panel, rng_from_key
from gridwm_judge.schema import ACTION_CONDITIONS
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.tasks.miniworld_c import VIEW_SIZE
from gridwm_judge.tasks.rows import base_row
from gridwm_judge.tasks.task_a import (
    LETTERS,
    balanced_gold_slots,
    check_action_conditions,
    frame_digest,
)
from gridwm_judge.world import Group
from gridwm_judge.worlds.miniworld.macros import views_at
from gridwm_judge.worlds.miniworld.render import MAP_SIZE

TASK = "MA"


def _question(views, key: str):
    """(gold macro, gold view, three (macro, view) negatives) at one state, or None. The gold
    macro is the first, from a seeded place in the macro list, whose view differs from now
    and leaves three other macros with views distinct from now, the gold and each other."""
    now = views.current[:VIEW_SIZE[1]]
    after = [(m, f) for m, f, _ in views.after]
    start = int(rng_from_key(key, "macro").integers(len(after)))
    for m, f in after[start:] + after[:start]:
        if np.array_equal(f, now):
            continue
        taken, others = {frame_digest(now), frame_digest(f)}, []
        for m2, f2 in after:
            d = frame_digest(f2)
            if m2 != m and d not in taken:
                taken.add(d)
                others.append((m2, f2))
        if len(others) >= 3:
            picks = sorted(rng_from_key(key, "negatives").choice(len(others), size=3,
                                                                  replace=False).tolist())
            return m, f, [others[k] for k in picks]
    return None


def _select(groups, n_items: int | None, seed: int):
    """Questions ``(group index, t, macro, gold view, negatives, views)``: states picked
    round-robin over the groups (each group's states in a seeded order), rendered with one
    replay per group and pass; a state without a usable macro is replaced by the next."""
    queues = [[int(t) for t in rng_from_key(f"{seed}|{TASK}|{g.group_id}", "order")
               .permutation(len(g.full.states) - 1)] for g in groups]
    cursor, chosen = [0] * len(groups), []
    want = sum(len(q) for q in queues) if n_items is None else n_items

    def left() -> bool:
        return any(c < len(q) for c, q in zip(cursor, queues, strict=True))

    while len(chosen) < want and left():
        picks: list[tuple[int, int]] = []
        while len(chosen) + len(picks) < want and left():
            for gi, q in enumerate(queues):
                if cursor[gi] < len(q) and len(chosen) + len(picks) < want:
                    picks.append((gi, q[cursor[gi]]))
                    cursor[gi] += 1
        views = {}
        for gi in sorted({gi for gi, _ in picks}):
            ts = [t for g_i, t in picks if g_i == gi]
            views.update({(gi, v.t): v for v in views_at(groups[gi], ts, VIEW_SIZE, MAP_SIZE)})
        for gi, t in picks:
            q = _question(views[(gi, t)], f"{seed}|{TASK}|{groups[gi].group_id}|{t}")
            if q is not None:
                chosen.append((gi, t, *q, views[(gi, t)]))
    if n_items is not None and len(chosen) < n_items:
        raise ValueError(f"{TASK}: {len(groups)} groups offer {len(chosen)} states with "
                         f"four distinct macro views; cannot make n_items={n_items}")
    return chosen


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = SAMPLING_SEED,
    action_conditions: Sequence[str] = ACTION_CONDITIONS,
) -> list[dict]:
    """3 rows (one per action condition) for each of ``n_items`` questions (all when None)."""
    check_action_conditions(action_conditions)
    groups = list(groups)
    if not groups:
        raise ValueError(f"{TASK} needs at least one trajectory group")
    for g in groups:
        if getattr(g, "world", None) != "miniworld":
            raise ValueError(f"group {g.group_id} is a {getattr(g, 'world', None)!r} group; "
                             f"{TASK} needs MiniWorld groups")
    chosen = _select(groups, n_items, seed)
    slots = balanced_gold_slots([groups[c[0]].family for c in chosen], seed)
    rows: list[dict] = []
    for (gi, t, macro, gold, negs, views), slot in zip(chosen, slots.tolist(), strict=True):
        g = groups[gi]
        cands = [(m, f, False) for m, f in negs]
        cands.insert(slot, (macro, gold, True))
        panel = choice_panel(views.current, [f for _, f, _ in cands])
        others = [m.text for m, _, _ in views.after if m != macro]
        key = f"{seed}|{TASK}|{g.group_id}|{t}"
        shuffled = others[int(rng_from_key(key, "shuffle").integers(len(others)))]
        shown = {"orig": macro.text, "shuffle": shuffled, "mask": TASK_A_MASKED_ACTION}
        order = [{"letter": LETTERS[k], "group_id": g.group_id, "t": t, "macro": m.text,
                  "source": "gold" if is_gold else "other_macro", "gold": is_gold}
                 for k, (m, _, is_gold) in enumerate(cands)]
        item_id = f"{TASK}.{g.group_id}.q{t:03d}"
        for cond in action_conditions:
            row = base_row(g)
            row.update(
                uid=f"{item_id}.{cond}", task=TASK, item_id=item_id,
                prompt=MINIWORLD_A.format(action=shown[cond]), images=[panel],
                answer=LETTERS[slot], visual="clean", action_condition=cond,
                action=macro.text, candidate_order=json.dumps(order, sort_keys=True),
                frame_indices=json.dumps([t]), checkpoint=int(t),
            )
            rows.append(row)
    return rows

"""Validator gates of a MiniWorld trajectory group, as named checks with reasons.

D1 identical action ids; D2 |states| = |actions| + 1 (CF: steps + 1, fewer only when it
terminated); D4 Full succeeds, NoCue keeps Full's outcome, CF fails; D5 NoCue masks only
frames before the first interaction with the hidden entity (approach, reach or pickup; for a
sign, the frame where its word is legible) and never the last frame; D6 NoCue re-rolled
gives Full's exact states, CF starts from Full's initial state changed only in the
intervened entities; E1 the card's chain events occur in
order; N1 (3D) 1 <= masked frames <= budget and the hidden entity covers at least
``MIN_AREA`` of every masked first-person frame (so hiding it hides something); CF1 the
intervention is of the declared kind and explains the failure; V1 (3D) the outcome is visible
in the last frame, which every storyboard shows: the roles the card names (``full_shows``,
``cf_shows``) cover at least ``OUTCOME_AREA`` of Full's / CF's last frame at the storyboard size
(``outcome.py``; ``views`` holds the areas measured by ``outcome.outcome_views``).
"""

from __future__ import annotations

from gridwm_judge.worlds.core.gates import d2_reason
from gridwm_judge.worlds.miniworld.cards import WorldCard
from gridwm_judge.worlds.miniworld.counterfactual import cf1_reason
from gridwm_judge.worlds.miniworld.interventions import touched
from gridwm_judge.worlds.miniworld.outcome import v1_reason
from gridwm_judge.worlds.miniworld.states import MIN_AREA

GATES: tuple[str, ...] = ("D1", "D2", "D4", "D5", "D6", "E1", "N1", "CF1", "V1")


def first_interaction(run, entity: int, card: WorldCard) -> int:
    """First frame in which the agent approaches, touches or picks up ``entity``, or (a card
    whose cue counts as seen when legible) reads it."""
    kinds = ("approach", "reach", "pickup") + (("see",) if card.see_by == "legible" else ())
    return min((e["t"] for e in run.events if e["entity"] == entity and e["type"] in kinds),
               default=len(run.states) - 1)


def _d1(full, nocue, cf, **_):
    return None if full.actions == nocue.actions == cf.actions else "action ids differ"


def _d2(full, nocue, cf, **_):
    return d2_reason(full, nocue, cf, truncation_ends=False)


def _d4(full, nocue, cf, **_):
    if not full.success:
        return "Full does not succeed"
    if (nocue.success, nocue.reward, nocue.terminated) != (full.success, full.reward,
                                                           full.terminated):
        return "NoCue outcome differs from Full"
    if cf.success:
        return "CF succeeds"
    return None


def _d5(full, nocue, card, roles, **_):
    entity = roles[card.nocue_role]
    limit = min(first_interaction(full, entity, card), len(full.states) - 1)
    for m in nocue.mask:
        if m["entity"] != entity:
            return f"frame {m['t']} hides entity {m['entity']}, not the cue {entity}"
        if m["t"] >= limit:
            return f"frame {m['t']} is masked at or after the first interaction (t={limit})"
    return None


def _d6(full, nocue, cf, **_):
    if nocue.states != full.states:
        return "NoCue states differ from Full"
    s0, c0 = full.states[0], cf.states[0]
    if s0["agent"] != c0["agent"] or s0["carrying"] != c0["carrying"]:
        return "CF starts from a different agent pose"
    moved = touched(cf.intervention)
    for i, (a, b) in enumerate(zip(s0["entities"], c0["entities"], strict=True)):
        if i not in moved and a != b:
            return f"CF initial state differs at entity {i}, which no op touches"
    return None


def _e1(full, card, roles, **_):
    i = 0
    for e in full.events:
        if i < len(card.chain_events):
            kind, role = card.chain_events[i]
            if e["type"] == kind and e["entity"] == roles[role]:
                i += 1
    if i < len(card.chain_events):
        return f"events miss the chain {card.chain_events} after step {i}"
    return None


def _n1(nocue, card, **_):
    if not nocue.mask:
        return "empty NoCue mask (the hidden entity is never seen before the interaction)"
    if len(nocue.mask) > card.nocue_budget:
        return f"{len(nocue.mask)} masked frames > budget {card.nocue_budget}"
    small = [m["t"] for m in nocue.mask if m["area"] < MIN_AREA]
    if small:
        return f"frames {small}: hidden entity covers < {MIN_AREA:.2%} of the view"
    return None


def _cf1(full, cf, card, roles, **_):
    return cf1_reason(card, roles, full, cf)


def _v1(full, cf, card, roles, views, **_):
    return v1_reason(card, roles, full, cf, views)


_CHECKS = {"D1": _d1, "D2": _d2, "D4": _d4, "D5": _d5, "D6": _d6, "E1": _e1, "N1": _n1,
           "CF1": _cf1, "V1": _v1}


def run_gates(card: WorldCard, roles: dict[str, int], full, nocue, cf,
              views: dict[str, dict[str, float]]) -> tuple[dict[str, bool], dict[str, str]]:
    """(gate -> passed, gate -> reason for each failed gate); ``views``: the last-frame areas
    of ``outcome.outcome_views`` (gate V1)."""
    results, reasons = {}, {}
    for name, fn in _CHECKS.items():
        why = fn(full=full, nocue=nocue, cf=cf, card=card, roles=roles, views=views)
        results[name] = why is None
        if why is not None:
            reasons[name] = why
    return results, reasons

"""What the dataset card says of MiniWorld, from MiniWorld's own constants.

Why here: the card's text (:mod:`gridwm_judge.dataset.card_text`) fills its MiniWorld
fragments from these facts, so the world that owns a constant also says how it reads on the
card, and the card writer imports one function instead of the world's internals. Nothing here
starts a MiniWorld env.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.worlds.miniworld.cards import FAMILIES, get_card
from gridwm_judge.worlds.miniworld.hard import HARD_CF
from gridwm_judge.worlds.miniworld.macros import FORWARD_METRES, TURN_DEGREES
from gridwm_judge.worlds.miniworld.outcome import OUTCOME_AREA
from gridwm_judge.worlds.miniworld.render import AREA_SIZE, MAP_SIZE, VIEW_SIZE
from gridwm_judge.worlds.miniworld.states import APPROACH, MIN_AREA

HARD_FAMILIES: tuple[str, ...] = tuple(f for f in FAMILIES if f in HARD_CF)
"""The families with a hard counterfactual, in card order."""


def card_facts(families: Sequence[str] = ()) -> dict[str, str]:
    """The card's MiniWorld placeholders: sizes, thresholds, the macro actions' steps, the
    hard counterfactuals, and one line per family of ``families`` (those the build drew)."""
    return {
        "families": family_lines(families),
        "min_area": f"{MIN_AREA:.1%}", "outcome_area": f"{OUTCOME_AREA:.0%}",
        "approach": f"{APPROACH:g} m",
        "area_size": "x".join(map(str, AREA_SIZE)), "view": "x".join(map(str, VIEW_SIZE)),
        "map": "x".join(map(str, MAP_SIZE)),
        "turn": f"{TURN_DEGREES:g}", "turn2": f"{2 * TURN_DEGREES:g}",
        "forward": f"{FORWARD_METRES:g}", "forward2": f"{2 * FORWARD_METRES:g}",
        "mw_hard_cfs": "; ".join(f"{f}: {HARD_CF[f]}" for f in HARD_FAMILIES),
        "mw_hard_left_out": _left_out(),
    }


def family_lines(families: Sequence[str]) -> str:
    """One bullet per family, from its card."""
    lines = []
    for f in families:
        card = get_card(f)
        mission = card.mission.format(shape="box or key")
        ops = ", ".join(f"`{op}`" for op in card.cf_ops)
        lines.append(
            f"- **`{f}`** (`{card.env_id}`, mission \"{mission}\"). Chain: {card.causal_chain}. "
            f"Why: {card.why}. CF: {card.cf_kind} ({ops}). NoCue hides {card.nocue_target} "
            f"(at most {card.nocue_budget} frames; see **NoCue** below).")
    return "\n".join(lines)


def in_card_order(used: set[str]) -> tuple[str, ...]:
    """The families of ``used``, in card order."""
    return tuple(f for f in FAMILIES if f in used)


def _left_out() -> str:
    """Families without a hard CF (none today)."""
    out = [f for f in FAMILIES if f not in HARD_FAMILIES]
    if not out:
        return "Every MiniWorld family has one."
    return "Left out (no hard CF under the same actions): " + ", ".join(out) + "."

"""Build the Full / NoCue / CF group of one (family, seed) and draw seeds until n are valid.

Full: the controller's actions replayed from reset. NoCue: an independent re-roll of the same
actions (gate D6 compares its states with Full's) whose mask hides the card's NoCue entity in
the earliest frames where it covers at least ``MIN_AREA`` of the view, before the agent first
interacts with it, up to the card's budget (Sign: the glimpses of the sign before the frame
where its word is legible, which stays visible). CF: the card's op applied right after reset, the
same actions. A seed where the controller or the CF choice fails is rejected under the
pseudo-gate "control" / "cf_op" with its reason, otherwise every gate runs (V1 on the
last-frame areas measured here by ``outcome.outcome_views``). ``build_group``'s hooks (the CF
choice, extra gates) let ``hard.py`` build the hard CF on the same Full and NoCue.
"""

from __future__ import annotations

import dataclasses
import functools

from gridwm_judge.workers import owned_pool
from gridwm_judge.worlds.core.draw import (
    SeedOutcome,
    check_draw,
    draw_groups,
    gate_outcome,
    seed_outcomes,
)
from gridwm_judge.worlds.core.records import GenerationResult, Rollout
from gridwm_judge.worlds.miniworld.backend import reset_env, worker_pool
from gridwm_judge.worlds.miniworld.cards import env_short, get_card, mission_text, roles
from gridwm_judge.worlds.miniworld.controller import ControlError, drive
from gridwm_judge.worlds.miniworld.counterfactual import NoCounterfactual, cf_ops
from gridwm_judge.worlds.miniworld.gates import GATES, first_interaction, run_gates
from gridwm_judge.worlds.miniworld.outcome import outcome_views
from gridwm_judge.worlds.miniworld.records import MiniWorldGroup
from gridwm_judge.worlds.miniworld.rollout import rollout
from gridwm_judge.worlds.miniworld.states import MIN_AREA


class SeedRejected(RuntimeError):
    """The seed yields no group; ``gate`` names the pseudo-gate, the message the reason."""

    def __init__(self, gate: str, reason: str):
        super().__init__(reason)
        self.gate = gate


def nocue_mask(full, areas: dict[int, float], entity: int, card) -> tuple[dict, ...]:
    limit = min(first_interaction(full, entity, card), len(full.states) - 1)
    ts = [t for t in sorted(areas) if t < limit and areas[t] >= MIN_AREA][:card.nocue_budget]
    return tuple({"t": t, "entity": entity, "area": round(areas[t], 6)} for t in ts)


def build_group(family: str, seed: int, choose_cf=None, extra_gates=None) -> MiniWorldGroup:
    """The group with its gate report; raises SeedRejected when no group can be built.

    ``choose_cf(card, u, draft) -> ops`` picks the CF intervention from the freshly reset env
    ``u`` and ``draft``, the group with Full and NoCue built and Full standing in for the CF
    (default: the card's op, ``counterfactual.cf_ops``; NoCounterfactual rejects the seed
    under "cf_op"). ``extra_gates(card, group) -> (validators, reasons)`` adds gates to the
    report (``hard.py``'s H1 / H2). Full and NoCue depend on neither."""
    card = get_card(family)
    kwargs = card.env_kwargs(seed)
    env, u = reset_env(card.env_id, kwargs, seed, step_limit=card.step_limit)
    role_idx = roles(family, u)
    mission = mission_text(family, u)
    try:
        actions = drive(family, env, role_idx, seed)
    except ControlError as exc:
        raise SeedRejected("control", str(exc)) from exc
    see = {"see_area": card.see_area, "see_by": card.see_by, "step_limit": card.step_limit}
    full, areas = rollout(card.env_id, kwargs, seed, actions, role_idx, card.nocue_role,
                          card.nocue_budget, **see)
    re_roll, _ = rollout(card.env_id, kwargs, seed, actions, role_idx, card.nocue_role, 0,
                         step_limit=card.step_limit)
    mask = nocue_mask(full, areas, role_idx[card.nocue_role], card)
    nocue = Rollout(actions=actions, states=re_roll.states,
                    events=full.events if re_roll.states == full.states else (),
                    reward=re_roll.reward, terminated=re_roll.terminated,
                    truncated=re_roll.truncated, success=re_roll.success, steps=re_roll.steps,
                    mask=mask)
    draft = MiniWorldGroup(
        group_id=f"{family}.{env_short(card.env_id)}.s{seed}", family=family,
        env_id=card.env_id, seed=int(seed), mission=mission, actions=actions, full=full,
        nocue=nocue, cf=full, env_kwargs=kwargs, roles=role_idx,
        max_episode_steps=card.step_limit)
    _, u = reset_env(card.env_id, kwargs, seed, step_limit=card.step_limit)
    try:
        ops = cf_ops(card, u, role_idx, full) if choose_cf is None else choose_cf(card, u, draft)
    except NoCounterfactual as exc:
        raise SeedRejected("cf_op", str(exc)) from exc
    cf, _ = rollout(card.env_id, kwargs, seed, actions, role_idx, card.nocue_role, 1, ops=ops,
                    settable=card.settable_attrs, **see)
    views = outcome_views(card, role_idx, kwargs, seed, full, cf)
    validators, reasons = run_gates(card, role_idx, full, nocue, cf, views)
    group = dataclasses.replace(draft, cf=cf, validators=validators, reasons=reasons)
    if extra_gates is not None:
        more, why = extra_gates(card, group)
        group = dataclasses.replace(group, validators={**validators, **more},
                                    reasons={**reasons, **why})
    return group


def try_seed(family: str, seed: int) -> SeedOutcome:
    """(group, (), {}) when every gate passes, else (None, failed gates, gate -> reason)."""
    try:
        group = build_group(family, seed)
    except SeedRejected as exc:
        return None, (exc.gate,), {exc.gate: str(exc)}
    return gate_outcome(group, GATES)


def pooled_draw(family: str, n: int, seed: int, try_one, num_proc: int = 1, executor=None
                ) -> GenerationResult:
    """:func:`draw_groups` over ``try_one(seed) -> SeedOutcome`` (picklable), here or in
    ``num_proc`` workers: ``executor`` (from :func:`backend.worker_pool`, which the caller
    owns) or a pool made for this draw. A parallel draw evaluates a batch of the seeds still
    needed, at least ``num_proc`` (a MiniWorld seed costs about a second: few are computed
    past the n-th valid group), and keeps the first ``n`` valid in seed order, so the groups,
    seeds drawn and rejects are the serial draw's."""
    card = get_card(family)
    check_draw(n, seed)
    if executor is None and num_proc > 1:
        with owned_pool(worker_pool(num_proc)) as pool:
            return pooled_draw(family, n, seed, try_one, num_proc, pool)
    return draw_groups(family, card.env_id, n, seed,
                       functools.partial(seed_outcomes, try_one, executor=executor),
                       min_batch=0 if executor is None else num_proc)


def generate_groups(family: str, n: int, seed: int, num_proc: int = 1, executor=None
                    ) -> GenerationResult:
    """Exactly ``n`` valid groups from consecutive seeds ``seed, seed + 1, ...``; the same
    groups whether drawn here or in ``num_proc`` workers (see :func:`pooled_draw`)."""
    return pooled_draw(family, n, seed, functools.partial(try_seed, family), num_proc,
                       executor)

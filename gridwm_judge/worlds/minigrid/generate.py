"""Build one trajectory group per (env id, seed) and draw consecutive seeds until n are valid.

A group whose planner finds no successful plan is rejected under the pseudo-gate "plan";
otherwise every gate runs and a group failing any of them is rejected with its reasons.
With ``num_proc > 1`` seeds are evaluated in parallel batches but the kept groups are still
the first n valid ones in seed order, so the output does not depend on the worker count.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from gridwm_judge.worlds.core.draw import (
    HARD_SUFFIX,
    ExtraGate,
    check_cf_kind,
    check_draw,
    draw_groups,
    extra_outcome,
    gate_outcome,
)
from gridwm_judge.worlds.core.records import GenerationResult
from gridwm_judge.worlds.minigrid.cards import (
    check_env_id,
    check_family_env_id,
    env_short,
    get_card,
    hard_cf_of,
)
from gridwm_judge.worlds.minigrid.envs import make_env
from gridwm_judge.worlds.minigrid.gates import GATES, run_gates
from gridwm_judge.worlds.minigrid.hard_counterfactual import NoHardCounterfactual
from gridwm_judge.worlds.minigrid.holding import first_pickup
from gridwm_judge.worlds.minigrid.nocue import build_mask
from gridwm_judge.worlds.minigrid.planner import PlanError, plan_actions
from gridwm_judge.worlds.minigrid.records import TrajectoryGroup
from gridwm_judge.worlds.minigrid.rollout import reroll, rollout


def _reset_env(env_id: str, seed: int):
    """The reset env, for reading the grid only (a private instance nobody steps)."""
    env = make_env(env_id, role="inspect")
    env.reset(seed=int(seed))
    return env.unwrapped


def build_group(family: str, env_id: str, seed: int, cf_kind: str = "paper") -> TrajectoryGroup:
    """The Full / NoCue / CF group for (env id, seed), with its gate report; ``cf_kind``
    "hard" gives it a hard CF (group id suffixed ``HARD_SUFFIX``).

    Raises PlanError when no plan reaches success, NoHardCounterfactual when a hard CF has no
    cell to move its object to.
    """
    check_cf_kind(cf_kind)
    card = get_card(family)
    check_family_env_id(family, env_id)
    make_cf = hard_cf_of(family).make if cf_kind == "hard" else card.make_cf
    variant = card.plan_variant(seed)
    u = _reset_env(env_id, seed)
    legs = card.legs(u, variant)
    mission = str(u.mission)
    actions = plan_actions(env_id, seed, legs)

    full = rollout(env_id, seed, actions)
    specs = card.target_specs(u)
    width, height = u.grid.width, u.grid.height
    ops = make_cf(u, full, seed)
    mask = build_mask(full.states, full.events, specs, card.nocue_budget)
    # NoCue is re-rolled independently (gate D6 compares its states with Full's); its events
    # are a function of its states, so they equal Full's exactly when the states do.
    nocue = reroll(env_id, seed, actions, mask=mask)
    if nocue.states == full.states:
        nocue = replace(nocue, events=full.events)
    cf = rollout(env_id, seed, actions, intervention=ops)
    validators, reasons = run_gates(card, full, nocue, cf, specs, width, height, cf_kind)
    first = first_pickup(full)
    return TrajectoryGroup(
        group_id=f"{family}.{env_short(env_id)}.s{seed}" + (HARD_SUFFIX if cf_kind == "hard"
                                                            else ""),
        family=family,
        env_id=env_id,
        seed=int(seed),
        mission=mission,
        actions=actions,
        full=full,
        nocue=nocue,
        cf=cf,
        validators=validators,
        reasons=reasons,
        plan=variant,
        first_pickup=None if first is None else dict(first["obj"]),
    )


def try_seed(family: str, env_id: str, seed: int, cf_kind: str = "paper",
             extra_gate: ExtraGate | None = None):
    """(group, (), {}) when every gate passes, else (None, failed gates, gate -> reason);
    a seed with no plan is rejected as pseudo-gate "plan", one with no hard CF as "cf_op";
    ``extra_gate`` runs on a group that passed every simulator gate."""
    try:
        group = build_group(family, env_id, seed, cf_kind)
    except PlanError as exc:
        return None, ("plan",), {"plan": str(exc)}
    except NoHardCounterfactual as exc:
        return None, ("cf_op",), {"cf_op": str(exc)}
    return extra_outcome(gate_outcome(group, GATES), extra_gate)


def check_args(family: str, n: int, seed: int, env_id: str | None) -> str:
    """``env_id`` or the card's default, after checking every argument of a draw."""
    card = get_card(family)
    check_draw(n, seed)
    env_id = env_id or card.default_env_id
    check_family_env_id(family, env_id)
    check_env_id(env_id)
    return env_id


def _seed_results(family: str, env_id: str, seeds: Iterable[int], pool=None,
                  cf_kind: str = "paper", extra_gate: ExtraGate | None = None):
    if pool is None:
        for s in seeds:
            yield s, try_seed(family, env_id, s, cf_kind, extra_gate)
        return
    seeds = list(seeds)
    futures = []
    # Submitted inside the try: a Ctrl-C during submission cancels what was submitted (the
    # workers ignore Ctrl-C, and the pool's shutdown would otherwise run the whole batch).
    try:
        for s in seeds:
            futures.append(pool.submit(try_seed, family, env_id, s, cf_kind, extra_gate))
        for s, fut in zip(seeds, futures, strict=True):
            yield s, fut.result()
    finally:
        for fut in futures:
            fut.cancel()


def generate_groups(family: str, n: int, seed: int, env_id: str | None = None,
                    num_proc: int = 1, executor=None, *, cf_kind: str = "paper",
                    extra_gate: ExtraGate | None = None) -> GenerationResult:
    """Exactly ``n`` valid groups from consecutive seeds ``seed, seed+1, ...``.

    ``cf_kind`` "hard" gives the groups hard CFs; ``extra_gate`` (see :data:`ExtraGate`)
    rejects valid groups for reasons the simulator cannot see.

    ``num_proc > 1`` evaluates seeds in a process pool (or in ``executor``, a
    ``concurrent.futures`` executor the caller owns); the result is the same either way.
    Raises ValueError for bad arguments and RuntimeError if more than
    ``MAX_DRAWS_FACTOR * n + 50`` seeds are drawn without reaching n.
    """
    env_id = check_args(family, n, seed, env_id)
    check_cf_kind(cf_kind)
    if executor is None and num_proc > 1:
        with ProcessPoolExecutor(max_workers=num_proc) as pool:
            return generate_groups(family, n, seed, env_id, num_proc, executor=pool,
                                   cf_kind=cf_kind, extra_gate=extra_gate)
    return draw_groups(family, env_id, n, seed,
                       functools.partial(_seed_results, family, env_id, pool=executor,
                                         cf_kind=cf_kind, extra_gate=extra_gate),
                       min_batch=0 if executor is None else num_proc * 4)



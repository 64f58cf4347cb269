"""Build one trajectory group per (env id, seed) and draw consecutive seeds until n are valid.

A group whose planner finds no successful plan is rejected under the pseudo-gate "plan";
otherwise every gate runs and a group failing any of them is rejected with its reasons.
With ``num_proc > 1`` seeds are evaluated in parallel batches but the kept groups are still
the first n valid ones in seed order, so the output does not depend on the worker count.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from gridwm_judge.sim.cards import check_env_id, check_family_env_id, env_short, get_card
from gridwm_judge.sim.counterfactual import cf_ops
from gridwm_judge.sim.envs import make_env
from gridwm_judge.sim.gates import GATES, run_gates
from gridwm_judge.sim.hard_counterfactual import NoHardCounterfactual, hard_cf_ops
from gridwm_judge.sim.holding import first_pickup
from gridwm_judge.sim.nocue import build_mask, target_specs
from gridwm_judge.sim.planner import PlanError, plan_actions
from gridwm_judge.sim.plans import legs_for, plan_variant
from gridwm_judge.sim.records import GenerationResult, TrajectoryGroup
from gridwm_judge.sim.rollout import reroll, rollout
from gridwm_judge.world import Group

MAX_DRAWS_FACTOR = 20
CF_KINDS: tuple[str, ...] = ("paper", "hard")
"""The CF a group carries: the paper's (``counterfactual``) or a hard one
(``hard_counterfactual``: Full's objects at t=0, the failure from where things are)."""
HARD_SUFFIX = ".hard"
"""Group ids of hard-CF groups end with this (their CF differs from the paper group's)."""
SeedOutcome = tuple[Group | None, tuple[str, ...], dict[str, str]]
"""(group, (), {}) for a valid seed, else (None, failed gates, gate -> reason)."""


def _reset_env(env_id: str, seed: int):
    """The reset env, for reading the grid only (a private instance nobody steps)."""
    env = make_env(env_id, role="inspect")
    env.reset(seed=int(seed))
    return env.unwrapped


def check_cf_kind(cf_kind: str) -> str:
    if cf_kind not in CF_KINDS:
        raise ValueError(f"unknown CF kind {cf_kind!r}; expected one of {', '.join(CF_KINDS)}")
    return cf_kind


def build_group(family: str, env_id: str, seed: int, cf_kind: str = "paper") -> TrajectoryGroup:
    """The Full / NoCue / CF group for (env id, seed), with its gate report; ``cf_kind``
    "hard" gives it a hard CF (group id suffixed ``HARD_SUFFIX``).

    Raises PlanError when no plan reaches success, NoHardCounterfactual when a hard CF has no
    cell to move its object to.
    """
    check_cf_kind(cf_kind)
    card = get_card(family)
    check_family_env_id(family, env_id)
    variant = plan_variant(family, seed)
    u = _reset_env(env_id, seed)
    legs = legs_for(family, u, variant)
    mission = str(u.mission)
    actions = plan_actions(env_id, seed, legs)

    full = rollout(env_id, seed, actions)
    specs = target_specs(family, u) if not card.task_e else ()
    width, height = u.grid.width, u.grid.height
    ops = (hard_cf_ops if cf_kind == "hard" else cf_ops)(family, u, full, seed)
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


ExtraGate = Callable[[Group], dict[str, str]]
"""A gate that runs above the simulator (e.g. the dataset layer's static-cue gate, which
renders): gate name -> reason for each check the group fails, {} when it passes. It must be
picklable (a module-level function or a ``functools.partial`` of one) for process pools."""


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


def extra_outcome(outcome: SeedOutcome, extra_gate: ExtraGate | None) -> SeedOutcome:
    """``outcome``, or a reject by ``extra_gate`` when its group is valid but fails it (any
    world's groups: MiniWorld's draw wraps its outcomes the same way)."""
    group = outcome[0]
    if group is None or extra_gate is None:
        return outcome
    why = extra_gate(group)
    return outcome if not why else (None, tuple(why), dict(why))


def gate_outcome(group, gates: tuple[str, ...]) -> SeedOutcome:
    """(group, (), {}) when every gate passes, else (None, failed gates in ``gates`` order,
    gate -> reason); any world's group (it has ``valid``, ``validators`` and ``reasons``)."""
    if group.valid:
        return group, (), {}
    failed = tuple(g for g in gates if not group.validators.get(g, False))
    return None, failed, {g: group.reasons.get(g, "") for g in failed}


def check_draw(n: int, seed: int) -> None:
    """A ValueError naming the bad value unless ``n`` > 0 and ``seed`` >= 0 are plain ints."""
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


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


def draw_groups(family: str, env_id: str, n: int, seed: int,
                outcomes: Callable[[range], Iterable[tuple[int, SeedOutcome]]],
                min_batch: int = 0) -> GenerationResult:
    """The first ``n`` valid groups in seed order from ``seed, seed + 1, ...``, with the
    rejects; the draw loop of every world. ``outcomes(seeds)`` yields (seed, its
    ``gate_outcome``) for a batch of seeds in order; a parallel caller asks for batches of at
    least ``min_batch`` (what is computed past the n-th valid group is dropped), so the result
    does not depend on the batch size. Raises RuntimeError once ``MAX_DRAWS_FACTOR * n + 50``
    seeds are drawn without reaching n.
    """
    kept: list = []
    rejects: Counter = Counter()
    rejected: list[tuple[int, tuple[str, ...]]] = []
    reasons: list[tuple[int, dict[str, str]]] = []
    limit = MAX_DRAWS_FACTOR * n + 50
    drawn, next_seed = 0, seed
    while len(kept) < n:
        if drawn >= limit:
            raise RuntimeError(f"{family}: only {len(kept)}/{n} valid groups in {drawn} seeds "
                               f"from {seed}; rejects {dict(rejects)}")
        batch = min(max(min_batch, n - len(kept)), limit - drawn)
        seeds = range(next_seed, next_seed + batch)
        next_seed += batch
        for s, (group, failed, why) in outcomes(seeds):
            if len(kept) == n:
                break
            drawn += 1
            if group is not None:
                kept.append(group)
            else:
                rejects.update(failed)
                rejected.append((s, failed))
                reasons.append((s, why))
    return GenerationResult(family=family, env_id=env_id, seed=seed, groups=tuple(kept),
                            n_drawn=drawn, rejects=dict(sorted(rejects.items())),
                            rejected_seeds=tuple(rejected), reject_reasons=tuple(reasons))

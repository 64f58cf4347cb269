"""The draw loop of every world: consecutive seeds until n groups pass every gate.

A world supplies, per batch of seeds, each seed's outcome: its valid group, or the gates it
failed and why (``gate_outcome``). The kept groups are the first n valid ones in seed order, so
the result does not depend on how many workers computed the outcomes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from gridwm_judge.world import Group
from gridwm_judge.worlds.core.records import GenerationResult

MAX_DRAWS_FACTOR = 20
"""A draw gives up after ``MAX_DRAWS_FACTOR * n + 50`` seeds without n valid groups."""
CF_KINDS: tuple[str, ...] = ("paper", "hard")
"""The CF a group carries: the paper's (``counterfactual``) or a hard one
(``hard_counterfactual``: Full's objects at t=0, the failure from where things are)."""
HARD_SUFFIX = ".hard"
"""Group ids of hard-CF groups end with this (their CF differs from the paper group's)."""
SeedOutcome = tuple[Group | None, tuple[str, ...], dict[str, str]]
"""(group, (), {}) for a valid seed, else (None, failed gates, gate -> reason)."""
ExtraGate = Callable[[Group], dict[str, str]]
"""A gate that runs above the simulator (e.g. the dataset layer's static-cue gate, which
renders): gate name -> reason for each check the group fails, {} when it passes. It must be
picklable (a module-level function or a ``functools.partial`` of one) for process pools."""


def check_cf_kind(cf_kind: str) -> str:
    if cf_kind not in CF_KINDS:
        raise ValueError(f"unknown CF kind {cf_kind!r}; expected one of {', '.join(CF_KINDS)}")
    return cf_kind


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


def seed_outcomes(try_seed: Callable[[int], SeedOutcome], seeds: Iterable[int], executor=None
                  ) -> Iterator[tuple[int, SeedOutcome]]:
    """(seed, ``try_seed(seed)``) for each seed in order: computed here, or, with ``executor``
    (a ``concurrent.futures`` executor; ``try_seed`` then picklable), every seed submitted at
    once and read back in seed order, so :func:`draw_groups` keeps what a serial draw keeps.
    Seeds not read when the caller stops early are cancelled where they have not started; on
    an error or Ctrl-C the pool's owner stops it (``workers.stop_pool``: cancelling here would
    race the pool marking them broken)."""
    if executor is None:
        for s in seeds:
            yield s, try_seed(s)
        return
    seeds = list(seeds)
    futures = []
    for s in seeds:
        futures.append(executor.submit(try_seed, s))
    try:
        for s, fut in zip(seeds, futures, strict=True):
            yield s, fut.result()
    except GeneratorExit:  # the draw has its n groups: the rest is not needed
        for fut in futures:
            fut.cancel()
        raise


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

"""One pool of validated trajectory groups per (family, env, seed), shared by every config of a
build so each group is generated once.

``generate_groups(family, n, seed)`` draws from consecutive seeds, so the first k groups of a
larger draw are exactly the groups of a draw of k: a task that needs fewer groups takes a
prefix. The pool also keeps what validation.json reports: seeds drawn, rejects by gate and the
validator results of the groups used. Worker processes die with the build (see
:mod:`gridwm_judge.workers`).
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from gridwm_judge.dataset.profiles import TaskPlan
from gridwm_judge.dataset.static_cue import static_cue_reasons
from gridwm_judge.render.keyframes import keyframes
from gridwm_judge.workers import init_worker, owned_pool
from gridwm_judge.worlds.core.records import GenerationResult
from gridwm_judge.worlds.minigrid import ENV_CARDS, generate_groups
from gridwm_judge.worlds.miniworld.backend import renderer_info, worker_pool
from gridwm_judge.worlds.miniworld.cards import CARDS
from gridwm_judge.worlds.miniworld.hard import generate_hard_groups as miniworld_hard_groups
from gridwm_judge.worlds.miniworld.variants import generate_groups as miniworld_groups

Key = tuple[str, str, str]
"""A draw's key: (family, env_id, cf_kind); hard-CF groups are drawn apart from the paper's."""
CF_SHOWN = functools.partial(keyframes, variant="cf")
"""The CF frames a MiniWorld hard group's storyboard shows (``miniworld_c``'s keyframes):
gate H2 asks its target to be seen in one of them (the world layer cannot import render)."""


def _generate(family: str, env_id: str, n: int, seed: int, cf_kind: str = "paper",
              config: str = "", num_proc: int = 1, executor=None) -> GenerationResult:
    """``n`` valid groups; a hard draw (``cf_kind`` "hard") also passes the static-cue gate on
    ``config``'s canonical items (MiniGrid: ``worlds.minigrid.generate_groups`` with ``cf_kind`` and
    ``extra_gate``; MiniWorld: ``worlds.miniworld.hard.generate_hard_groups``, gate H2 on the
    storyboard's frames, :data:`CF_SHOWN`). A MiniWorld draw evaluates its seeds in
    ``executor``'s ``num_proc`` spawned workers when given (the same groups)."""
    hard = {} if cf_kind == "paper" else {
        "cf_kind": cf_kind, "extra_gate": functools.partial(static_cue_reasons, config=config)}
    if is_miniworld(family):   # one env id per MiniWorld family
        pooled = {"num_proc": num_proc, "executor": executor}
        res = (miniworld_groups(family, n, seed, **pooled) if not hard else
               miniworld_hard_groups(family, n, seed, shown=CF_SHOWN,
                                     extra_gate=hard["extra_gate"], **pooled))
    else:
        res = generate_groups(family, n, seed, env_id=env_id, **hard)
    if len(res.groups) != n:
        raise RuntimeError(
            f"generate_groups({family!r}, {n}, {seed}) gave {len(res.groups)} groups"
        )
    return res


def is_miniworld(family: str) -> bool:
    """A MiniWorld family: its seeds are evaluated in spawned workers
    (``worlds.miniworld.backend.worker_pool``) or in this process, never in a forked worker
    (an OpenGL context belongs to one process)."""
    return family in CARDS


def env_tables() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """Each family's registered env ids and its default env id, from the simulators' cards
    (MiniGrid's and MiniWorld's; their family names do not overlap)."""
    return ({**{f: tuple(c.env_ids) for f, c in ENV_CARDS.items()},
             **{f: (c.env_id,) for f, c in CARDS.items()}},
            {**{f: c.default_env_id for f, c in ENV_CARDS.items()},
             **{f: c.env_id for f, c in CARDS.items()}})


def _counted(draw: GenerationResult, shown: Any) -> GenerationResult:
    """``draw``, one more counted on the progress bar ``shown``."""
    shown.update()
    return draw


@dataclass
class GroupPool:
    """Validated groups per (family, env_id) from consecutive seeds starting at ``seed``."""

    seed: int
    draws: dict[Key, GenerationResult] = field(default_factory=dict)
    used: dict[Key, int] = field(default_factory=dict)
    configs: dict[Key, str] = field(default_factory=dict)
    """A hard draw's key -> the config whose canonical items its static-cue gate reads."""

    def requests(self, plan: TaskPlan) -> list[tuple[str, str, int]]:
        env_ids, default_env = env_tables()
        missing = [f for f, _ in plan.families if f not in env_ids]
        if missing:
            raise ValueError(f"unknown family {missing[0]!r}; expected one of {', '.join(env_ids)}")
        return plan.requests(env_ids, default_env)

    def prefetch(self, plans: list[TaskPlan], num_proc: int = 1, bar: bool = False) -> None:
        """Generate, once, the largest draw every (family, env) needs over ``plans``;
        ``bar``: a progress bar of the draws on stderr when it is a terminal."""
        need: dict[Key, int] = {}
        for plan in plans:
            for family, env_id, n in self.requests(plan):
                key = self._key(plan, family, env_id)
                need[key] = max(need.get(key, 0), n)
        todo = [(k, n) for k, n in need.items()
                if k not in self.draws or len(self.draws[k].groups) < n]
        spawned = [t for t in todo if is_miniworld(t[0][0])]
        todo = [t for t in todo if not is_miniworld(t[0][0])]
        shown = tqdm(total=len(spawned) + len(todo), desc="generating groups", unit="draw",
                     file=sys.stderr, disable=not (bar and sys.stderr.isatty()),
                     dynamic_ncols=True)
        if num_proc > 1 and spawned:   # one key after another, each key's seeds in parallel
            with owned_pool(worker_pool(num_proc)) as ex:
                for k, n in spawned:
                    self.draws[k] = self._draw(k, n, num_proc, ex)
                    shown.update()
        else:
            for k, n in spawned:
                self.draws[k] = self._draw(k, n)
                shown.update()
        if num_proc > 1 and len(todo) > 1:
            # Ctrl-C or a failed draw: do not wait for the others
            with owned_pool(ProcessPoolExecutor(max_workers=num_proc,
                                                initializer=init_worker)) as ex:
                # submit, not map: map cancels its futures on Ctrl-C, which races the pool;
                # hard draws first: gated by the static-cue check, they take longest, and
                # started last they would leave one worker alone at the end
                futures = {k: ex.submit(_generate, *k[:2], n, self.seed, k[2],
                                        self.configs.get(k, ""))
                           for k, n in sorted(todo, key=lambda t: t[0][2] == "paper")}
                draws = [_counted(futures[k].result(), shown) for k, _ in todo]
        else:
            draws = [_counted(self._draw(k, n), shown) for k, n in todo]
        shown.close()
        for (k, _), d in zip(todo, draws, strict=True):
            self.draws[k] = d

    def _key(self, plan: TaskPlan, family: str, env_id: str) -> Key:
        key = (family, env_id, plan.cf_kind)
        if plan.cf_kind != "paper":
            known = self.configs.setdefault(key, plan.config)
            if known != plan.config:
                raise ValueError(f"{family} {plan.cf_kind} groups are gated on {known}'s items;"
                                 f" {plan.config} cannot share them")
        return key

    def _draw(self, key: Key, n: int, num_proc: int = 1, executor=None) -> GenerationResult:
        return _generate(key[0], key[1], n, self.seed, key[2], self.configs.get(key, ""),
                         num_proc, executor)

    def groups(self, plan: TaskPlan) -> list[Any]:
        """The plan's groups, in request order (family order, then env order, then seed)."""
        out: list[Any] = []
        for family, env_id, n in self.requests(plan):
            key = self._key(plan, family, env_id)
            if key not in self.draws or len(self.draws[key].groups) < n:
                self.draws[key] = self._draw(key, n)
            self.used[key] = max(self.used.get(key, 0), n)
            out.extend(self.draws[key].groups[:n])
        return out

    def reset_usage(self) -> None:
        """Forget which groups were used (call at the start of a build)."""
        self.used.clear()

    def report(self) -> dict[str, Any]:
        """Seeds drawn, rejects by gate and validator results of the groups used since the last
        :meth:`reset_usage`, for validation.json."""
        rejects: Counter[str] = Counter()
        by_kind: dict[str, Counter[str]] = {}
        gates: dict[str, Counter[str]] = {}
        envs = []
        for (family, env_id, cf_kind), n_used in sorted(self.used.items()):
            d = self.draws[(family, env_id, cf_kind)]
            rejects.update(d.rejects)
            by_kind.setdefault(cf_kind, Counter()).update(d.rejects)
            for g in d.groups[:n_used]:
                for gate, ok in dict(g.validators).items():
                    gates.setdefault(str(gate), Counter())["pass" if ok else "fail"] += 1
            envs.append({"family": family, "env_id": env_id, "cf_kind": cf_kind,
                         "groups_valid": len(d.groups),
                         "groups_used": n_used, "seeds_drawn": d.n_drawn,
                         "first_seed": d.seed, "rejects": dict(sorted(d.rejects.items()))})
        out: dict[str, Any] = {
            "generation_seed": self.seed,
            "envs": envs,
            "rejects_by_reason": dict(sorted(rejects.items())),
            "rejects_by_cf_kind": {k: dict(sorted(c.items())) for k, c in sorted(by_kind.items())},
            "gates": {g: {"pass": c["pass"], "fail": c["fail"]} for g, c in sorted(gates.items())},
        }
        if any(is_miniworld(f) for f, *_ in self.used):
            out["miniworld_renderer"] = renderer_info()   # frames depend on the Mesa version
        return out

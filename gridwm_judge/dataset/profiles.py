"""Build profiles: how many groups each task draws per family and how many rows it must give.

``base`` reproduces the paper's counts exactly (A 103 questions x 3 action conditions = 309
rows, B 144, C 486 per representation = 972 rows, D 144, E 325). ``scale2`` is the paper's
scale-2 expansion (A 1,030 questions, C 442 groups x full/nocue/cf at the neutral presentation
per representation, D 432 query groups x 3 variants at clean-neutral; B and E as in base), its
groups spread over every registered env of a family. ``smoke`` is a few items per task for
tests and demos. ``quickstart`` is the smallest size at which the baseline judges' table makes
the benchmark's point (see :func:`quickstart_profile`).

All tasks draw from one pool per (family, env): the first n valid groups from consecutive
seeds starting at the generation seed, so a task needing fewer groups uses a prefix of the
same pool and one build generates every group once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gridwm_judge.task_table import BUILT_CONFIGS, is_task, task_spec
from gridwm_judge.tasks import miniworld_c_hard, task_c_hard, task_module
from gridwm_judge.tasks.task_c import TASK_C_FAMILIES, rows_per_group
from gridwm_judge.worlds.core.draw import CF_KINDS
from gridwm_judge.worlds.minigrid.cards import family_of
from gridwm_judge.worlds.miniworld.cards import FAMILIES as MINIWORLD_WORLD_FAMILIES

SHARD_BY = ("group", "env", "part", "task")
CORE: tuple[str, ...] = ("doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom")
"""The paper's six core MiniGrid families (Tasks A, B, D and the controlled analyses), named
here so that a new card joins a profile only where a line of it names the family."""
TASK_E_FAMILIES: tuple[str, ...] = ("unlockpickup", "blockedunlockpickup")
"""The paper's two Task E families."""


@dataclass(frozen=True)
class TaskPlan:
    """What one config needs: groups per family, the task options and the row count to expect.

    ``shard_by`` says how the builder may split the work without changing the rows: per group
    (C), per env batch (D: a reference and its queries), in parts (A, E: each worker makes the
    selection across all the groups and renders its slice of the rows, ``tasks.rows.part_of``)
    or not at all (B, MiniWorld's A). ``extra_per_env`` adds groups per env batch (D: the
    reference).
    ``envs``, when given, names the envs exactly as ``((family, env_id, n_groups), ...)``
    (``families`` then lists the families with their totals) instead of each family's default
    env or a spread over all of its envs. ``cf_kind`` "hard" draws groups with hard CFs that
    pass the static-cue gate (``dataset.static_cue``, run on this config's canonical items)
    from their own pool: the same seeds as the paper's, its own rejects. ``probed_per_env``
    (Task C-style configs): only the first n groups of each env are shown under the plan's
    probe sets, the others at the neutral presentation only (the builder passes their ids as
    the row builder's ``probed``).
    """

    config: str
    families: tuple[tuple[str, int], ...]
    expected_rows: int
    n_items: int | None = None
    spread_envs: bool = False
    extra_per_env: int = 0
    shard_by: str = "task"
    options: tuple[tuple[str, Any], ...] = ()
    envs: tuple[tuple[str, str, int], ...] = ()
    cf_kind: str = "paper"
    probed_per_env: int | None = None

    def __post_init__(self) -> None:
        if self.cf_kind not in CF_KINDS:
            raise ValueError(f"{self.config}: unknown cf_kind {self.cf_kind!r}; expected one "
                             f"of {', '.join(CF_KINDS)}")
        if self.envs and family_totals(self.envs) != tuple(self.families):
            raise ValueError(f"{self.config}: families {self.families} do not sum the "
                             f"explicit envs {self.envs}")
        if self.config not in BUILT_CONFIGS:
            raise ValueError(
                f"unknown config {self.config!r}; expected one of {', '.join(BUILT_CONFIGS)}"
            )
        if self.shard_by not in SHARD_BY:
            raise ValueError(
                f"unknown shard_by {self.shard_by!r}; expected one of {', '.join(SHARD_BY)}"
            )

    def requests(self, env_ids: dict[str, tuple[str, ...]], default_env: dict[str, str]
                 ) -> list[tuple[str, str, int]]:
        """``[(family, env_id, n_groups), ...]`` given each family's env ids and default env."""
        if self.envs:
            return [(f, e, n + self.extra_per_env) for f, e, n in self.envs]
        out = []
        for family, n in self.families:
            envs = env_ids[family] if self.spread_envs else (default_env[family],)
            for env_id, share in zip(envs, even_split(n, len(envs)), strict=True):
                if share:
                    out.append((family, env_id, share + self.extra_per_env))
        return out


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    plans: tuple[TaskPlan, ...]

    def plan(self, config: str) -> TaskPlan:
        for p in self.plans:
            if p.config == config:
                return p
        raise ValueError(
            f"profile {self.name!r} has no config {config!r}; expected one of "
            f"{', '.join(p.config for p in self.plans)}"
        )

    @property
    def configs(self) -> tuple[str, ...]:
        return tuple(p.config for p in self.plans)


def _each(families: tuple[str, ...], n: int) -> tuple[tuple[str, int], ...]:
    return tuple((f, n) for f in families)


def even_split(total: int, k: int) -> tuple[int, ...]:
    """``total`` split into ``k`` shares that differ by at most one, larger ones first."""
    return tuple(total // k + (1 if i < total % k else 0) for i in range(k))


def _spread(families: tuple[str, ...], total: int) -> tuple[tuple[str, int], ...]:
    return tuple(zip(families, even_split(total, len(families)), strict=True))


def env_plan(env_ids: Sequence[str], total: int) -> tuple[tuple[str, str, int], ...]:
    """``total`` groups spread evenly over ``env_ids`` as ``((family, env_id, n), ...)``."""
    return tuple((family_of(e), e, n)
                 for e, n in zip(env_ids, even_split(total, len(env_ids)), strict=True))


def family_totals(envs: tuple[tuple[str, str, int], ...]) -> tuple[tuple[str, int], ...]:
    """The ``families`` field matching explicit ``envs`` (families in order of first use)."""
    totals: dict[str, int] = {}
    for family, _, n in envs:
        totals[family] = totals.get(family, 0) + n
    return tuple(totals.items())


CONTROL_ENV_IDS = (
    "MiniGrid-DoorKey-8x8-v0",
    "MiniGrid-DoorKey-6x6-v0",
    "MiniGrid-KeyCorridorS4R3-v0",
    "MiniGrid-RedBlueDoors-8x8-v0",
    "MiniGrid-LavaGapS7-v0",
    "MiniGrid-LavaGapS6-v0",
    "MiniGrid-MemoryS9-v0",
    "MiniGrid-MemoryS7-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
)
"""The nine env configs of the controlled analyses (the paper's count; it does not name them):
every core family's default env plus a second size of the three families whose size changes
the evidence most (door/key distance, gap position, corridor length)."""
CONTROL_GROUPS = env_plan(CONTROL_ENV_IDS, 98)
"""The controlled analyses' query groups: the paper's 98 over the nine envs (11 x 8 + 10), each
env batch plus one reference group; ``oracle_state`` and ``prompt_ablation`` share them."""
CONTROL_GROUPS_SMOKE = env_plan(("MiniGrid-DoorKey-8x8-v0", "MiniGrid-LavaGapS7-v0"), 2)


def _prompt_ablation(envs: tuple[tuple[str, str, int], ...]) -> TaskPlan:
    """The prompt ablation over ``envs``' query groups: Full and CF x three prompt styles."""
    n_queries = sum(n for _, _, n in envs)
    return TaskPlan("prompt_ablation", family_totals(envs), n_queries * 2 * 3, extra_per_env=1,
                    shard_by="env", envs=envs)


_C_FULL = (("probe_sets", ("grid", "framing")),)
_OS_ROWS_PER_GROUP = 3 * 3  # full / nocue / cf x pixel / state / pixel_state


def _oracle_state(envs: tuple[tuple[str, str, int], ...]) -> TaskPlan:
    """Oracle-State over the controlled analyses' groups: a reference per env batch."""
    return TaskPlan("oracle_state", family_totals(envs), sum(n for *_, n in envs)
                    * _OS_ROWS_PER_GROUP, extra_per_env=1, shard_by="env", envs=envs)

def _c_hard(families: tuple[tuple[str, int], ...], config: str = "task_c_hard") -> TaskPlan:
    """``task_c_hard`` (or ``miniworld_c_hard``) over ``families``: Full / NoCue / CF at the
    neutral presentation, composite and split (6 rows per group), hard-CF groups."""
    rows = task_module(config).rows_per_group()
    return TaskPlan(config, families, sum(n for _, n in families) * rows,
                    shard_by="group", cf_kind="hard")


_B = TaskPlan("task_b", _each(CORE, 12), 144, n_items=144)
_E = TaskPlan("task_e", _each(TASK_E_FAMILIES, 24), 325, n_items=325, shard_by="part")

PROFILES: dict[str, Profile] = {
    "base": Profile(
        "base",
        "the paper's base release; A 309 rows = 103 questions x 3 action conditions, B 144, "
        "C 972 = 486 per representation, D 144, E 325; task_c_hard 108 = 18 hard-CF groups x "
        "Full/NoCue/CF x composite/split at the neutral presentation; controlled analyses "
        "over 98 query groups: prompt_ablation 588 = Full/CF x 3 prompt styles, oracle_state "
        "882 = 3 variants x 3 evidence arms",
        (
            TaskPlan("task_a", _each(CORE, 3), 309, n_items=103, shard_by="part"),
            _B,
            TaskPlan("task_c", _each(TASK_C_FAMILIES, 6), 972, shard_by="group", options=_C_FULL),
            TaskPlan("task_d", _each(CORE, 2), 144, extra_per_env=1, shard_by="env"),
            _E,
            _c_hard(_each(task_c_hard.FAMILIES, 6)),
            _prompt_ablation(CONTROL_GROUPS),
            _oracle_state(CONTROL_GROUPS),
        ),
    ),
    "scale2": Profile(
        "scale2",
        "the paper's scale-2 expansion; A 1,030 questions, C 442 groups x 3 variants at the "
        "neutral presentation = 1,326 per representation, D 1,296 = 432 query groups x 3 "
        "variants at clean-neutral, B and E as in base, groups spread over every registered env",
        (
            TaskPlan("task_a", _spread(CORE, 76), 3090, n_items=1030, spread_envs=True,
                     shard_by="part"),
            _B,
            TaskPlan("task_c", _spread(TASK_C_FAMILIES, 442), 2652, spread_envs=True,
                     shard_by="group", options=(("probe_sets", ("baseline",)),)),
            TaskPlan("task_d", _spread(CORE, 432), 1296, spread_envs=True, extra_per_env=1,
                     shard_by="env", options=(("conditions", ("clean-neutral",)),)),
            _E,
        ),
    ),
    "smoke": Profile(
        "smoke",
        "a few items per task, for tests and demos",
        (
            TaskPlan("task_a", _each(("doorkey", "lavagap"), 2), 12, n_items=4, shard_by="part"),
            TaskPlan("task_b", _each(("doorkey", "redbluedoor"), 1), 4, n_items=4),
            TaskPlan("task_c", (("redbluedoor", 2),), 48, shard_by="group",
                     options=(("probe_sets", ("baseline", "framing")),
                              ("representations", ("composite", "split")))),
            TaskPlan("task_d", _each(("lavagap", "redbluedoor"), 1), 24, extra_per_env=1,
                     shard_by="env"),
            TaskPlan("task_e", (("unlockpickup", 2),), 4, n_items=4, shard_by="part"),
            _c_hard(_each(task_c_hard.FAMILIES, 1)),
            _prompt_ablation(CONTROL_GROUPS_SMOKE),
            _oracle_state(CONTROL_GROUPS_SMOKE),
        ),
    ),
}


def quickstart_profile(
    n_c_groups: int = 10,
    n_d_per_env: int = 2,
    *,
    c_probe_sets: Sequence[str] = ("grid",),
    d_conditions: Sequence[str] = (
        "clean-neutral",
        "clean-positive",
        "clean-negative",
        "style-neutral",
    ),
    n_controls: int = 12,
    n_hard_per_family: int = 4,
):
    """The quickstart build profile (see the module docstring); sizes adjustable for tests.

    Task C: ``n_c_groups`` groups spread over its three families, Full and CF under
    ``c_probe_sets``, composite and split. Task D: ``n_d_per_env`` query groups per core env
    (plus one reference each), Full and CF under ``d_conditions``. A, B, E: ``n_controls``
    questions / frames each. task_c_hard: ``n_hard_per_family`` hard-CF groups per family
    (0: none), where every shortcut's IDR_raw falls to 0.
    """
    variants = ("full", "cf")
    c_opts = (("probe_sets", tuple(c_probe_sets)), ("variants", variants))
    c_fams = _spread(TASK_C_FAMILIES, n_c_groups)
    c_rows = n_c_groups * rows_per_group(tuple(c_probe_sets), variants=variants)
    n_d = n_d_per_env * len(CORE)
    d_opts = (("conditions", tuple(d_conditions)), ("variants", variants))
    per_env_a = max(1, -(-n_controls // (2 * len(CORE))))
    return Profile(
        "quickstart",
        f"quickstart demo: A {n_controls} questions x 3, B {n_controls}, C {n_c_groups} "
        f"groups (Full/CF under {'+'.join(c_probe_sets)} probes, composite+split), D {n_d} "
        f"query groups (Full/CF under {len(d_conditions)} conditions), E {n_controls}, "
        f"task_c_hard {n_hard_per_family} groups per family",
        (
            TaskPlan(
                "task_a", tuple((f, per_env_a) for f in CORE), 3 * n_controls, n_items=n_controls,
                shard_by="part",
            ),
            TaskPlan("task_b", tuple((f, per_env_a) for f in CORE), n_controls, n_items=n_controls),
            TaskPlan("task_c", c_fams, c_rows, shard_by="group", options=c_opts),
            TaskPlan(
                "task_d",
                tuple((f, n_d_per_env) for f in CORE),
                n_d * len(variants) * len(d_conditions),
                extra_per_env=1,
                shard_by="env",
                options=d_opts,
            ),
            TaskPlan(
                "task_e", tuple((f, 3) for f in TASK_E_FAMILIES), n_controls, n_items=n_controls,
                shard_by="part",
            ),
            *((_c_hard(_each(task_c_hard.FAMILIES, n_hard_per_family)),)
              if n_hard_per_family else ()),
        ),
    )


PROFILES["quickstart"] = quickstart_profile()

# --- standard: sized to compare judges --------------------------------------------
STANDARD_GROUPS = 52
"""Groups per Task C family in ``standard``: 156 in all, a paired MDE of 0.1 on IDR_raw at 20%
discordant groups (155 needed: ``gridwm-judge plan --paired``)."""
STANDARD_ITEMS = 385
"""Questions / items for a 95% CI half-width <= 0.05 on an accuracy near 0.5 (385 needed)."""
_STANDARD_PROBED = 6
"""Groups per env shown under the presentation probes: base's, so standard probes what base
probes and adds groups at the neutral presentation only."""


def _c_probed(config: str, families: tuple[tuple[str, int], ...], probed: int,
              probe_sets: tuple[str, ...] = ("grid", "framing")) -> TaskPlan:
    """A Task C-style config whose first ``probed`` groups per family are shown under
    ``probe_sets`` and the rest at the neutral presentation (one env per family)."""
    rows = task_module(config).rows_per_group
    n = sum(k for _, k in families)
    n_probed = sum(min(k, probed) for _, k in families)
    expected = n_probed * rows(probe_sets) + (n - n_probed) * rows(("baseline",))
    return TaskPlan(config, families, expected, shard_by="group",
                    options=(("probe_sets", probe_sets),), probed_per_env=probed)


PROFILES["standard"] = Profile(
    "standard",
    f"sized to compare judges: task_c and task_c_hard {3 * STANDARD_GROUPS} groups "
    f"each ({STANDARD_GROUPS} per family; paired MDE 0.1 on IDR_raw at 20% discordance), "
    f"task_c's first {_STANDARD_PROBED} per family under base's probes and the rest at the "
    f"neutral presentation; A {STANDARD_ITEMS} questions x 3 action conditions and E "
    f"{STANDARD_ITEMS} items (95% CI half-width <= 0.05); D 36 query groups x 3 variants x 4 "
    "conditions (432 rows); B and the controls as in base",
    (
        TaskPlan("task_a", _each(CORE, 12), 3 * STANDARD_ITEMS, n_items=STANDARD_ITEMS,
                 shard_by="part"),
        _B,
        _c_probed("task_c", _each(TASK_C_FAMILIES, STANDARD_GROUPS), _STANDARD_PROBED),
        TaskPlan("task_d", _each(CORE, 6), 432, extra_per_env=1, shard_by="env"),
        TaskPlan("task_e", _each(TASK_E_FAMILIES, 30), STANDARD_ITEMS, n_items=STANDARD_ITEMS,
                 shard_by="part"),
        _c_hard(_each(task_c_hard.FAMILIES, STANDARD_GROUPS)),
        _prompt_ablation(CONTROL_GROUPS),
        _oracle_state(CONTROL_GROUPS),
    ),
)

# --- MiniWorld: its own profiles, never mixed with MiniGrid's configs --------------
# Sharded as MiniGrid's C and D; the builder builds MiniWorld's shards in the main process
# (one OpenGL context per process), never in its workers.
MINIWORLD_FAMILIES = MINIWORLD_WORLD_FAMILIES
"""The MiniWorld families the dataset uses: every family of the world layer. Sign's reading
frame (the storyboard keyframe of its "see" event) shows the sign's word legibly at the 160x120
frame size (``gridwm_judge.worlds.miniworld.legible``), so its items can be judged from the
images."""
_MW_C_GROUPS = 12
_MW_D_PER_FAMILY = 12
_MW_MISSIONS = {"sign": 2}   # Sign asks for the box or the key: one reference per mission
# Task D: a reference per (env, mission) batch plus 12 query groups per family; a family with
# two missions draws one group more (Sign: 14 groups = 2 references + 12 queries).
_MW_D = tuple((f, _MW_D_PER_FAMILY + _MW_MISSIONS.get(f, 1) - 1) for f in MINIWORLD_FAMILIES)
_MW_D_QUERIES = _MW_D_PER_FAMILY * len(MINIWORLD_FAMILIES)
_MW_A_GROUPS = 4
_MW_A_QUESTIONS = 104   # from 4 groups per family, round-robin: 26 per family


def _mw_c_rows(n_groups: int, probe_sets: tuple[str, ...]) -> int:
    return n_groups * rows_per_group(probe_sets)


PROFILES["miniworld"] = Profile(
    "miniworld",
    f"MiniWorld (3D) only: miniworld_a {_MW_A_QUESTIONS} questions x 3 action conditions; "
    f"miniworld_c {_MW_C_GROUPS} groups per family x 3 variants under the "
    "temporal x visual grid and the three framings, composite and split; miniworld_d "
    f"{_MW_D_QUERIES} query groups ({_MW_D_PER_FAMILY} per family) x 3 variants x 4 "
    f"conditions; miniworld_c_hard {_MW_C_GROUPS} hard-CF groups per family x "
    "Full/NoCue/CF x composite/split at the neutral presentation; families "
    f"{', '.join(MINIWORLD_FAMILIES)}",
    (
        TaskPlan("miniworld_a", _each(MINIWORLD_FAMILIES, _MW_A_GROUPS), 3 * _MW_A_QUESTIONS,
                 n_items=_MW_A_QUESTIONS),
        TaskPlan("miniworld_c", _each(MINIWORLD_FAMILIES, _MW_C_GROUPS),
                 _mw_c_rows(_MW_C_GROUPS * len(MINIWORLD_FAMILIES), ("grid", "framing")),
                 shard_by="group", options=_C_FULL),
        TaskPlan("miniworld_d", _MW_D, _MW_D_QUERIES * 3 * 4, extra_per_env=1, shard_by="env"),
        _c_hard(_each(miniworld_c_hard.FAMILIES, _MW_C_GROUPS), "miniworld_c_hard"),
    ),
)
PROFILES["miniworld_smoke"] = Profile(
    "miniworld_smoke",
    "a few MiniWorld items per config, for tests and demos",
    (
        TaskPlan("miniworld_a", (("tmaze", 1), ("putnext", 1)), 12, n_items=4),
        TaskPlan("miniworld_c", (("tmaze", 1), ("putnext", 1)),
                 _mw_c_rows(2, ("baseline", "framing")), shard_by="group",
                 options=(("probe_sets", ("baseline", "framing")),)),
        TaskPlan("miniworld_d", (("tmaze", 1),), 1 * 3 * 4, extra_per_env=1, shard_by="env"),
        _c_hard(_each(miniworld_c_hard.FAMILIES, 1), "miniworld_c_hard"),
    ),
)

_MW_STANDARD_GROUPS = 39
"""Groups per MiniWorld family in ``miniworld_standard``: 156 over four families."""
PROFILES["miniworld_standard"] = Profile(
    "miniworld_standard",
    f"MiniWorld sized to compare judges: miniworld_c and miniworld_c_hard "
    f"{4 * _MW_STANDARD_GROUPS} groups each ({_MW_STANDARD_GROUPS} per family; paired MDE 0.1 "
    f"on IDR_raw at 20% discordance), miniworld_c's first {_MW_C_GROUPS} per family under the "
    f"miniworld profile's probes and the rest at the neutral presentation; miniworld_a "
    f"{STANDARD_ITEMS} questions x 3 action conditions; miniworld_d as in miniworld",
    (
        TaskPlan("miniworld_a", _each(MINIWORLD_FAMILIES, 15), 3 * STANDARD_ITEMS,
                 n_items=STANDARD_ITEMS),
        _c_probed("miniworld_c", _each(MINIWORLD_FAMILIES, _MW_STANDARD_GROUPS), _MW_C_GROUPS),
        PROFILES["miniworld"].plan("miniworld_d"),
        _c_hard(_each(miniworld_c_hard.FAMILIES, _MW_STANDARD_GROUPS), "miniworld_c_hard"),
    ),
)

def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}")
    return PROFILES[name]


def check_configs(profile: Profile, configs: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The configs to build, in canonical order; unknown names list the valid ones."""
    if not configs:
        return profile.configs
    bad = [c for c in configs if c not in profile.configs]
    if bad and is_task(bad[0]) and task_spec(bad[0]).imported:
        raise ValueError(f"{bad[0]!r} is the paper's own exam, imported from its release, not "
                         "built: gridwm-judge import-paper RELEASE --out DIR")
    if bad:
        raise ValueError(f"unknown config {bad[0]!r}; expected one of {', '.join(profile.configs)}")
    return tuple(c for c in profile.configs if c in set(configs))

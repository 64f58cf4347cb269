"""Task C with hard counterfactuals (config ``task_c_hard``, task ``CH``).

The paper's Task C counterfactuals are static: the target removed or walled off before the
rollout, so a rule reading the first frame alone separates Full from CF. Here each group's CF
is a hard one (:mod:`gridwm_judge.worlds.minigrid.hard_counterfactual`): the first frame holds
Full's object types and colours, the target stays in the world, and the failure comes from where
things are when the same actions are replayed (RedBlueDoor's red door moved along its wall,
KeyCorridor's object and MultiRoom's goal moved off the agent's path). Groups are drawn as for
``task_c`` (same families and envs, consecutive seeds from the generation seed), each passing
the simulator's gates and the static-cue gate (:mod:`gridwm_judge.dataset.static_cue`).

The rows are Task C's at the neutral presentation (orig, clean, neutral) in both
representations: Full / NoCue / CF x composite / split, 6 rows per group, renamed to their own
task (``task`` "CH", uids ``CH.<group_id>...``, group ids ending ``.hard``) so scores and reports
keep them apart from ``task_c``'s. Prompts are Task C's: a group's Full, NoCue and CF prompts
are identical.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.tasks import task_c
from gridwm_judge.tasks.rows import counted_rows, rename, require_hard
from gridwm_judge.world import Group
from gridwm_judge.worlds.minigrid.cards import HARD_CF_FAMILIES

TASK = "CH"
FAMILIES: tuple[str, ...] = tuple(f for f in task_c.TASK_C_FAMILIES if f in HARD_CF_FAMILIES)
"""Task C's families that have a hard CF (all three; the card names any left out)."""
PROBE_SETS: tuple[str, ...] = ("baseline",)


def build_rows(groups: Sequence[Group], *, n_items: int | None = None,
               probe_sets: Sequence[str] = PROBE_SETS, **options) -> list[dict]:
    """``task_c_hard`` rows; ``options`` (seed, representations, variants, frames, world,
    nocue_style) and the row order are :func:`task_c.build_rows`'s."""
    require_hard("task_c_hard", groups)
    rows = task_c.build_rows(groups, families=options.pop("families", FAMILIES),
                             probe_sets=probe_sets, **options)
    for row in rows:
        rename(row, "C", TASK)
    return counted_rows(TASK, groups, rows, n_items)


def rows_per_group(probe_sets: Sequence[str] = PROBE_SETS, **kw) -> int:
    return task_c.rows_per_group(probe_sets, **kw)

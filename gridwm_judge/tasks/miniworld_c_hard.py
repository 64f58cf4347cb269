"""MiniWorld Task C with hard counterfactuals (config ``miniworld_c_hard``, task ``MCH``).

The paper-style MiniWorld CF (``miniworld_c``) removes or hides the target before the walk, so
in many groups the CF's storyboard never shows it: a static cue. Here each group's CF is a hard
one (:mod:`gridwm_judge.worlds.miniworld.hard`): the first frame holds Full's object kinds and
colours (gate H1), the target stays in the world and is seen in a storyboard frame (gate H2 on the
frames ``miniworld_c``'s keyframes show), and the failure comes from where things are when the
same actions are replayed (TMaze's box in the other arm, FourRooms' box in another room,
PutNext's yellow box out of reach, Sign's target swapped with an object of another colour).
Groups are drawn as for ``miniworld_c`` (same families, consecutive seeds from the generation
seed), each passing the world's gates and the static-cue gate
(:mod:`gridwm_judge.dataset.static_cue`).

The rows are ``miniworld_c``'s at the neutral presentation (orig, clean, neutral) in both
representations: Full / NoCue / CF x composite / split, 6 rows per group, renamed to their own
task (``task`` "MCH", uids ``MCH.<group_id>...``, group ids ending ``.hard``) so scores and
reports keep them apart from ``miniworld_c``'s. Prompts are ``miniworld_c``'s: a group's Full,
NoCue and CF prompts are identical.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.tasks import miniworld_c
from gridwm_judge.tasks.rows import counted_rows, rename, require_hard
from gridwm_judge.world import Group
from gridwm_judge.worlds.miniworld.hard import HARD_CF

TASK = "MCH"
FAMILIES: tuple[str, ...] = tuple(f for f in miniworld_c.miniworld_families() if f in HARD_CF)
"""``miniworld_c``'s families that have a hard CF (all four; the card names any left out)."""
PROBE_SETS: tuple[str, ...] = ("baseline",)


def build_rows(groups: Sequence[Group], *, n_items: int | None = None,
               probe_sets: Sequence[str] = PROBE_SETS, **options) -> list[dict]:
    """``miniworld_c_hard`` rows; ``options`` (seed, representations, variants, frames, world,
    nocue_style) and the row order are :func:`miniworld_c.build_rows`'s."""
    require_hard("miniworld_c_hard", groups)
    out = [g.family for g in groups if g.family not in FAMILIES]
    if out:
        raise ValueError(f"miniworld_c_hard has no hard CF for family {out[0]!r}; expected "
                         f"one of {', '.join(FAMILIES)}")
    rows = miniworld_c.build_rows(groups, probe_sets=probe_sets, **options)
    for row in rows:
        rename(row, miniworld_c.TASK, TASK)
    return counted_rows(TASK, groups, rows, n_items)


def rows_per_group(probe_sets: Sequence[str] = PROBE_SETS, **kw) -> int:
    return miniworld_c.rows_per_group(probe_sets, **kw)

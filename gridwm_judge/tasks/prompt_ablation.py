"""Prompt-structure ablation (config ``prompt_ablation``, task "PA"; paper Appendix D.6).

Task D's clean-neutral items -- a successful reference from the first group of each env batch,
then the query storyboard -- for the Full and CF queries of every group, each asked in the
three prompt styles of ``task_table.PA_STYLES`` (column ``prompt_style``): ``direct`` (Task D's
prompt exactly), ``structured_verdict`` and ``structured_rationale`` (JSON answers). The three
rows of one query share their ``item_id``, images (the same objects, so the same PNG bytes),
image order and groups; only the answer instruction of the prompt, the style and the gold's
format differ, so the styles' differences are paired. Rows are ordered env batch, query
group, variant, style.

The gold ``answer`` is a strict answer in the row's format: ``Success`` / ``Fail``,
``{"verdict": ...}``, or ``{"rationale": <a generic reason>, "verdict": ...}``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.prompts import prompt_ablation_prompt
from gridwm_judge.render import DEFAULT_NOCUE_STYLE
from gridwm_judge.schema import PROMPT_STYLES
from gridwm_judge.task_table import JsonVerdict, task_spec
from gridwm_judge.tasks import task_d
from gridwm_judge.tasks.rows import counted_rows
from gridwm_judge.tasks.task_c import check_choices
from gridwm_judge.world import Group, World

TASK = "PA"
VARIANTS = ("full", "cf")
CONDITION = "clean-neutral"
GOLD_RATIONALE = {
    1: "The query trajectory completes the same task goal as the reference trajectory.",
    0: "The query trajectory does not complete the task goal the reference trajectory "
       "completes.",
}
"""The rationale of the structured_rationale rows' gold answer (audit only; never graded)."""


def gold_answer(style: str, label: int) -> str:
    """The gold answer of a row of ``style`` whose trajectory has outcome ``label``."""
    fmt = task_spec(TASK).for_style(style).answer
    word = task_d.ANSWERS[label]
    if isinstance(fmt, JsonVerdict):
        free = {"rationale": GOLD_RATIONALE[label]} if "rationale" in fmt.fields else {}
        return fmt.text(word, **free)
    return word


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = 0,
    styles: Sequence[str] = PROMPT_STYLES,
    variants: Sequence[str] = VARIANTS,
    max_frames: int | None = None,
    world: World | None = None,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
) -> list[dict]:
    """The ablation's rows: Task D's clean-neutral rows of ``variants``, once per style.

    ``n_items``, when given, must equal the number of rows (a profile check). No sampling
    happens here; ``seed`` is accepted for the common ``build_rows`` signature.
    """
    styles = check_choices("styles", styles, task_spec(TASK).styles)
    rows = []
    for d_row in task_d.build_rows(groups, conditions=(CONDITION,), variants=variants,
                                   max_frames=max_frames, world=world,
                                   nocue_style=nocue_style):
        item_id = f"{TASK}.{d_row['group_id']}.{d_row['variant']}"
        for style in styles:
            row = dict(d_row)
            row.update(
                uid=f"{item_id}.{style}", task=TASK, item_id=item_id, prompt_style=style,
                prompt=prompt_ablation_prompt(style), answer=gold_answer(style, d_row["label"]),
                probe_family="",
            )
            rows.append(row)
    return counted_rows("prompt_ablation", groups, rows, n_items)

"""The static-cue gate of the hard-CF configs, for any world.

A hard counterfactual must not be told from its Full twin by a rule that ignores what happens
along the trajectory. The gate builds the group's canonical items exactly as its config does
(Full and CF, orig order, clean, neutral framing, composite storyboard: the items the build's
shortcut ceiling reads, :mod:`gridwm_judge.dataset.ceilings`), has the shortcut judges answer
them as a judge would (prompt and images only) and rejects the group when

- ``baseline:first-frame`` tells Full and CF apart (accepts one, rejects the other): the
  target is in view in one first frame and not in the other, so the first frame gives the
  failure away (a CF whose moved target comes into view at the start, as TMaze's can, as much
  as one whose target is gone);
- ``baseline:mask-artifact`` separates it through a mark: its verdicts differ from the
  last-frame rule's on Full or CF (where no mark shows, mask-artifact *is* the last-frame
  rule, which reads the outcome where the trajectory ends: reported, not gated);
- the CF storyboard never shows the target (the mission's object in its colour): the target
  left the world, a static cue too;
- the CF storyboard shows a frame twice in a row and Full's does not: a repeated terminal frame
  says the episode ended early (a CF with fewer states than keyframes; longer ones show
  keyframes of their own episode, ``tasks.task_c.shown_indices``).

Each failed check is a reject reason under the pseudo-gate :data:`GATE`; the draw moves on to
the next seed. The gate lives here, not in a simulator, because it renders and reads pixels
(``tests/test_import_graph.py``'s layers); a simulator's draw takes it as a picklable hook
(``extra_gate``): ``functools.partial(static_cue_reasons, config=...)``.
"""

from __future__ import annotations

import numpy as np

from gridwm_judge.judges import baseline, shortcuts
from gridwm_judge.judges.base import JudgeOptions, JudgeRequest
from gridwm_judge.parsing import parse_answer
from gridwm_judge.task_table import task_spec
from gridwm_judge.tasks import build_rows
from gridwm_judge.world import Group

GATE = "static_cue"
GATED_RULES: tuple[str, ...] = ("first-frame", "mask-artifact")
"""The shortcut rules a hard CF must not be separated by; ``last-frame`` is their reference."""
CANONICAL_OPTIONS = {"probe_sets": ("baseline",), "representations": ("composite",),
                     "variants": ("full", "cf")}
"""The row builder's options that give a group's canonical Full and CF items only."""


def _canonical(group: Group, config: str) -> dict[str, dict]:
    rows = build_rows(config, [group], seed=0, **CANONICAL_OPTIONS)
    by_variant = {r["variant"]: r for r in rows}
    if set(by_variant) != {"full", "cf"} or len(rows) != 2:
        raise ValueError(f"{config} gave {len(rows)} canonical rows for {group.group_id}")
    return by_variant


def _accepts(name: str, row: dict) -> bool:
    judge = baseline.BaselineJudge(name, JudgeOptions(), f"baseline:{name}")
    req = JudgeRequest(row["uid"], row["task"], row["prompt"], list(row["images"]), 1)
    return parse_answer(row["task"], judge.answer(req)).value == "success"


def cf_shows_target(row: dict) -> bool:
    """Whether any frame of a canonical CF item shows the target its prompt names (an unknown
    target counts as shown: no rule can look for it)."""
    spec = task_spec(row["task"])
    target = shortcuts.stated_target(row["prompt"])
    if target is None or target.colour is None:
        return True
    frames = baseline.query_frames(spec.recipe, row["prompt"], row["images"])
    return any(shortcuts.visible(f, target.colour, spec.world) for f in frames)


def repeats_a_frame(row: dict) -> bool:
    """Whether two consecutive frames of a canonical item are the same picture."""
    spec = task_spec(row["task"])
    frames = baseline.query_frames(spec.recipe, row["prompt"], row["images"])
    return any(np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))


def separations(verdicts: dict[str, dict[str, bool]]) -> list[str]:
    """Why the gated rules' verdicts on a group's Full and CF (rule -> variant -> accepted, the
    last-frame rule's included) give its CF away; [] when they do not."""
    why = []
    first = verdicts["first-frame"]
    if first["full"] != first["cf"]:
        word = {True: "accepts", False: "rejects"}
        why.append(f"baseline:first-frame {word[first['full']]} Full and {word[first['cf']]} CF "
                   "(the target is in view in one first frame only)")
    mark = verdicts["mask-artifact"]
    if mark["full"] and not mark["cf"] and mark != verdicts["last-frame"]:
        # where no mark decided it, mask-artifact is the last-frame rule: reported, not gated
        why.append("baseline:mask-artifact accepts Full and rejects CF")
    return why


def static_cue_reasons(group: Group, config: str) -> dict[str, str]:
    """{GATE: why} when the group's canonical items carry a static cue, else {}."""
    items = _canonical(group, config)
    verdicts = {name: {v: _accepts(name, row) for v, row in items.items()}
                for name in (*GATED_RULES, "last-frame")}
    why = separations(verdicts)
    if not cf_shows_target(items["cf"]):
        why.append("the CF storyboard never shows the target")
    if repeats_a_frame(items["cf"]) and not repeats_a_frame(items["full"]):
        why.append("the CF storyboard repeats a frame (its episode ended early) and Full's "
                   "does not")
    return {GATE: "; ".join(why)} if why else {}

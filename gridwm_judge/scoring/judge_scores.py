"""One judge's scores: every task it answered scored by its recipe, then its failure modes.

The one place that decides a failure mode's status, including the one exception: a judge that
reads the gold answer (the oracle) has Task A deltas of 0 by construction, so
"action-ignorant heuristic" is not applicable to it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from gridwm_judge.records import FailureModeRecord
from gridwm_judge.scoring.diagnosis import ActionEvidence, CausalEvidence, FamilyEvidence, diagnose
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.recipes import recipe_for
from gridwm_judge.scoring.task_scores import Batch, Settings
from gridwm_judge.task_table import ALL_TASKS, WORLDS, task_spec, world_of

ORACLE_NOT_APPLICABLE = {
    "action_ignorant_heuristic": (
        "not applicable: the oracle reads the gold answer under every action condition, "
        "so its deltas are 0 by construction"
    ),
}


def _v(block: Mapping, name: str):
    return block["metrics"][name]["value"]


def causal_blocks(tasks: Mapping[str, dict], world: str = "minigrid"
                  ) -> Iterator[tuple[str, str, Mapping]]:
    """(scope, task, block with "causal" and "families") of every causal scope of ``world``, by
    recipe in task-table order: presentation_invariance per representation ("C/composite",
    "MC/split"), reference_aided as the task ("D", "MD")."""
    for spec in ALL_TASKS:
        if spec.name not in tasks or world_of(spec.name) != world:
            continue
        if spec.recipe == "presentation_invariance":
            for rep, blk in tasks[spec.name]["representations"].items():
                yield f"{spec.name}/{rep}", spec.name, blk
        elif spec.recipe == "reference_aided":
            yield spec.name, spec.name, tasks[spec.name]


def _action(block: Mapping) -> ActionEvidence:
    a, t = block["metrics"], block["mcnemar"]

    def value(key):
        return a[key]["value"] if key in a else None

    def p(key):
        return t[key]["p_value"] if key in t else None

    return ActionEvidence(value("acc_a1"), value("delta_shuffle"), value("delta_mask"),
                          p("shuffle"), p("mask"))


def _evidence(tasks: Mapping[str, dict], world: str = "minigrid"):
    fams, causal, vccs, action = [], [], [], None
    for scope, _task, blk in causal_blocks(tasks, world):
        c = blk["causal"]
        causal.append(CausalEvidence(
            scope, _v(c, "jacc_neu"), _v(c, "p_active"), c["g_active"], _v(c, "idr_raw"),
            _v(c, "idr_cond"), c["idr_cond_status"], c["degenerate"],
        ))
        for name, f in blk.get("families", {}).items():
            fit = f.get("les") or {}
            fams.append(FamilyEvidence(
                scope, name, _v(f, "ns"), _v(f, "jcr"), _v(f, "flip"),
                fit.get("les"), fit.get("p_value"), fit.get("status"),
            ))
    for spec in ALL_TASKS:
        if spec.name not in tasks or world_of(spec.name) != world:
            continue
        if spec.recipe == "presentation_invariance" and "vcc" in tasks[spec.name]:
            vccs.append((f"{spec.name} composite-split", _v(tasks[spec.name]["vcc"], "vcc_rep")))
        elif spec.recipe == "next_state":
            action = _action(tasks[spec.name])
    return fams, vccs, action, causal


def failure_modes(tasks: Mapping[str, dict], *, reads_gold: bool = False
                  ) -> tuple[FailureModeRecord, ...]:
    """Diagnose one judge from its per-task blocks (the scores.json shape): MiniGrid's five
    modes always, then MiniWorld's own five (``world="miniworld"``) when it answered any
    MiniWorld task; evidence names the scope by task ("MC/composite", "MD")."""
    out = []
    for world in WORLDS:
        if world != "minigrid" and not any(world_of(t) == world for t in tasks):
            continue
        fams, vccs, action, causal = _evidence(tasks, world)
        for m in diagnose(families=fams, vcc=vccs, action=action, causal=causal):
            status = {True: "flagged", False: "clear", None: "not assessed"}[m.flagged]
            evidence = tuple(m.evidence)
            if reads_gold and m.name in ORACLE_NOT_APPLICABLE and m.flagged is not None:
                status, evidence = "not applicable", (ORACLE_NOT_APPLICABLE[m.name], *evidence)
            out.append(FailureModeRecord(m.name, status, evidence, world))
    return tuple(out)


def score_tasks(graded: Sequence[GradedRow], settings: Settings) -> dict[str, dict]:
    """{task: metric block} for every task among ``graded`` (one bootstrap batch per task)."""
    tasks = {}
    for task in sorted({g.task for g in graded}):
        spec = task_spec(task)
        batch = Batch(settings)
        tasks[task] = recipe_for(spec).score([g for g in graded if g.task == task], batch, spec)
        batch.flush()
    return tasks

"""One judge's scores: every task it answered scored by its recipe, then its failure modes.

The one place that decides a failure mode's status, including the one exception: a judge that
reads the gold answer (the oracle) has Task A deltas of 0 by construction, so
"action-ignorant heuristic" is not applicable to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gridwm_judge.records import FailureModeRecord
from gridwm_judge.scoring.diagnosis import ActionEvidence, CausalEvidence, FamilyEvidence, diagnose
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.recipes import recipe_for
from gridwm_judge.scoring.task_scores import Batch, Settings
from gridwm_judge.task_table import task_spec

ORACLE_NOT_APPLICABLE = {
    "action_ignorant_heuristic": (
        "not applicable: the oracle reads the gold answer under every action condition, "
        "so its deltas are 0 by construction"
    ),
}


def _v(block: Mapping, name: str):
    return block["metrics"][name]["value"]


def _evidence(tasks: Mapping[str, dict]):
    fams, causal, vccs, action = [], [], [], None

    def add(scope: str, blk: Mapping):
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

    if "C" in tasks:
        for rep, blk in tasks["C"]["representations"].items():
            add(f"C/{rep}", blk)
        if "vcc" in tasks["C"]:
            vccs.append(("C composite-split", _v(tasks["C"]["vcc"], "vcc_rep")))
    if "D" in tasks:
        add("D", tasks["D"])
    if "A" in tasks:
        a, t = tasks["A"]["metrics"], tasks["A"]["mcnemar"]

        def value(block, key):
            return block[key]["value"] if key in block else None

        def p(key):
            return t[key]["p_value"] if key in t else None

        action = ActionEvidence(value(a, "acc_a1"), value(a, "delta_shuffle"),
                                value(a, "delta_mask"), p("shuffle"), p("mask"))
    return fams, vccs, action, causal


def failure_modes(tasks: Mapping[str, dict], *, reads_gold: bool = False
                  ) -> tuple[FailureModeRecord, ...]:
    """Diagnose one judge from its per-task blocks (the scores.json shape)."""
    fams, vccs, action, causal = _evidence(tasks)
    out = []
    for m in diagnose(families=fams, vcc=vccs, action=action, causal=causal):
        status = {True: "flagged", False: "clear", None: "not assessed"}[m.flagged]
        evidence = tuple(m.evidence)
        if reads_gold and m.name in ORACLE_NOT_APPLICABLE and m.flagged is not None:
            status, evidence = "not applicable", (ORACLE_NOT_APPLICABLE[m.name], *evidence)
        out.append(FailureModeRecord(m.name, status, evidence))
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

"""SCI metrics, statistics and the ``score`` command (paper Appendix A; Table 5).

Pure metric functions over numpy arrays (no I/O). Verdicts are encoded 1 success,
0 failure, -1 invalid/unparsed. Every headline metric is returned as a
:class:`GroupRatio` (per-group numerator / denominator, ``.value`` None on an empty set),
which is what the vectorised group bootstrap resamples.

Modules: ``causal`` (JAcc_neu, Acc_*, SuccC, p_active, G_active, IDR_raw/cond/rev,
degenerate flags, IDR_cond rule), ``invariance`` (NS_F, JCR_F, Flip_F, VCC_rep, VCC_oracle),
``controls`` (Task A/B/E; the Task B weights ``B_WEIGHTS``), ``leakage`` (mixed-effects
logistic LES_F), ``bootstrap``, ``significance`` (McNemar, Wilcoxon, Holm), ``diagnosis``
(failure modes with evidence). Scoring a run: ``grading`` (one row against its gold),
``join`` (predictions to rows by uid; coverage), ``batch`` (one task's results in order, their
intervals bootstrapped together), ``task_scores`` (the scorers of Tasks A-E and the shared
causal block and probe families), ``recipes`` (which grader and scorer a task's entry names),
``oracle_state`` and ``prompt_ablation`` (the controlled analyses' graders and scorers;
paired differences through ``paired``), ``judge_scores`` (a judge's results and failure
modes), ``comparisons`` (across judges), ``score`` (the whole ``score`` command as a function;
``commands`` is its CLI), ``scores_file`` (read scores.json, this format or the previous one).

scores.json is :class:`gridwm_judge.records.ScoresRecord` (``format``
"gridwm-judge-scores/3", JSON Schema ``gridwm_judge/schemas/scores.schema.json``): what was
scored against what and how (dataset, fingerprint, predictions, runs, parser, bootstrap,
overrides), the across-judge ``comparisons`` (results too), and per judge its ``coverage``
per task, its ``failure_modes`` and its ``results``: a flat list of
:class:`gridwm_judge.results.MetricResult` (task, world, scope fields, name, value, CI and
environment-level CI, numerator, denominator, groups, status), as each task's recipe emits
them; ``scopes`` names a causal block or a probe family among them. Read a figure by its
fields::

    scores.judges[j].results.value(task="C", representation="composite", name="idr_raw")

Only answered rows are scored: a row whose request errored or was never asked is counted in
the coverage and is in no metric's denominator.

rows.jsonl: one line per (judge, answered dataset row): :class:`grading.GradedRow` fields
(uid, judge, task, family, env_id, group_id, item_id, variant, temporal, visual, framing,
representation, probe_family, action_condition, question, status, parse_mode, parsed, gold,
verdict, correct, score, prompt_style, evidence).

Importing this package never imports ``evaluate`` (only the modules under ``metrics/`` do).
"""

from gridwm_judge.scoring._arrays import FAILURE, INVALID, PROTOCOLS, SUCCESS, GroupRatio
from gridwm_judge.scoring.bootstrap import (
    BOOTSTRAP_SEED,
    DEFAULT_RESAMPLES,
    Interval,
    bootstrap_ratio,
    bootstrap_ratios,
)
from gridwm_judge.scoring.causal import (
    DEGENERATE_FLAGS,
    MIN_ACTIVE,
    CausalResult,
    causal_metrics,
    degenerate_flags,
    idr_cond_status,
)
from gridwm_judge.scoring.controls import (
    B_WEIGHTS,
    TaskAResult,
    b_components,
    b_score,
    e_score,
    task_a_metrics,
    task_b_metrics,
    task_e_metrics,
)
from gridwm_judge.scoring.diagnosis import (
    FAILURE_MODES,
    ActionEvidence,
    CausalEvidence,
    FailureMode,
    FamilyEvidence,
    diagnose,
)
from gridwm_judge.scoring.invariance import VCCResult, jcr, ns, vcc, vcc_oracle
from gridwm_judge.scoring.leakage import LESResult, les
from gridwm_judge.scoring.scores_file import read_scores
from gridwm_judge.scoring.significance import TestResult, holm, mcnemar, mcnemar_paired, wilcoxon

__all__ = [
    "ActionEvidence",
    "B_WEIGHTS",
    "CausalEvidence",
    "CausalResult",
    "DEFAULT_RESAMPLES",
    "BOOTSTRAP_SEED",
    "DEGENERATE_FLAGS",
    "FAILURE",
    "FAILURE_MODES",
    "FailureMode",
    "FamilyEvidence",
    "GroupRatio",
    "INVALID",
    "Interval",
    "LESResult",
    "MIN_ACTIVE",
    "PROTOCOLS",
    "SUCCESS",
    "TaskAResult",
    "TestResult",
    "VCCResult",
    "b_components",
    "b_score",
    "bootstrap_ratio",
    "bootstrap_ratios",
    "causal_metrics",
    "degenerate_flags",
    "diagnose",
    "e_score",
    "holm",
    "idr_cond_status",
    "jcr",
    "les",
    "mcnemar",
    "mcnemar_paired",
    "ns",
    "read_scores",
    "task_a_metrics",
    "task_b_metrics",
    "task_e_metrics",
    "vcc",
    "vcc_oracle",
    "wilcoxon",
]

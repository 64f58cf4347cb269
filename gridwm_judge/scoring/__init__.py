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
``join`` (predictions to rows by uid; coverage), ``task_scores`` (per-task metric blocks),
``recipes`` (which grader and scorer a task's entry names), ``oracle_state`` (the
Oracle-State staged grader and scorer; paired arm differences through ``paired``),
``judge_scores`` (a judge's tasks and failure modes), ``comparisons`` (across judges),
``score`` (the whole ``score`` command as a function; ``commands`` is its CLI).

scores.json is :class:`gridwm_judge.records.ScoresRecord` (``format``
"gridwm-judge-scores/2")::

    {"format", "package_version", "dataset", "dataset_fingerprint" (local folders only),
     "predictions": [path], "runs": {path: run.json beside it, when present},
     "parser": {"rules", "version"}, "overrides": [str] (what --allow-mismatch let through),
     "bootstrap": {"n_resamples", "seed", "level", "unit": "group_id", "env_unit": "env_id"},
     "elapsed_s",
     "comparisons": {"C_composite_vs_split": {metric: {"statistic", "p_value", "p_holm",
                                                       "method", "n_judges", "n_nonzero"}}},
     "judges": {JUDGE: {
        "coverage": {TASK: {"asked", "answered", "errored", "missing", "invalid", "coverage",
                            "parse_modes": {mode: n}, "statuses": {s: n},
                            "unanswered_head": [uid]}},
        "failure_modes": [{"name", "status": "flagged"|"clear"|"not assessed"|
                           "not applicable", "flagged": bool, "evidence": [str],
                           "world": "miniworld" (only on MiniWorld's own five modes,
                           listed after MiniGrid's when it answered MA/MC/MD)}],
        "tasks": {
          "A": {"metrics": {acc_a1, acc_shuffle, acc_mask, delta_shuffle, delta_mask: M},
                "mcnemar": {"shuffle"|"mask": T}},
          "B": {"metrics": {b_mean_score, b_acc_090: M}, "components": {name: mean},
                "weights": {...}, "threshold": 0.9},
          "C": {"protocol": "eligible_pairs",
                "representations": {"composite"|"split": {"causal": CB,
                                    "families": {"temporal"|"visual"|"framing": FB}}},
                "vcc": {"reference", "other", "metrics": {vcc_rep, vcc_given_success,
                        vcc_given_failure: M}, "mcnemar_correct": T}},
          "D": {"protocol": "all_groups", "causal": CB (M with "ci_env"),
                "by_condition": {"clean-neutral"|...: CB},
                "families": {"framing"|"visual": FB}},   (FB under eligible_pairs: stability
                                                          compares answers actually given)
          "E": {"metrics": {e_acc, e_mean_score: M},
                "by_question": {q: {e_acc, e_mean_score: M}}},
          "PA": {"protocol": "all_groups", "styles": {style: CB (M with "ci_env") +
                                                            {"answered", "invalid", "strict"}},
                 "paired": {"n_groups" (matched: Full and CF answered in every style),
                            "groups_left_out", "holm_family": [pair],
                            "pairs": {"structured_verdict-direct"|...: {"a", "b",
                              "metrics": {idr_raw, acc_full, acc_cf: {"value": a - b, "ci",
                                          "a", "b"[, "ci_env"]}},
                              "mcnemar": T + {"n10", "n01", "p_holm"}}}}},
                 (prompt_ablation module: McNemar on per-group discrimination A_g C_g)
          "OS": {"protocol": "all_groups",   (Oracle-State, module ``oracle_state``)
                 "arms": {"pixel"|"state"|"pixel_state": {"n_rows", "n_invalid",
                          "stages": {"metrics": {task_type, objective, verdict, joint: M}},
                          "chance": {task_type, objective, verdict, joint: {"uniform",
                                     "best_constant", "best_constant_answer", "n_rows"}},
                          "causal": CB}},
                 "differences": {"state-pixel"|"pixel_state-pixel": {"arm", "baseline",
                                 "n_items", "joint"|"idr_raw": {"value", "ci", "ci_env",
                                 "num": null, "den": null, "n_groups"}, "mcnemar_idr": T}},
                 "vcc_oracle": {"reference": "pixel", "other": "state", "metrics":
                                {vcc_oracle, vcc_oracle_given_success,
                                 vcc_oracle_given_failure: M}},
                 "vcc_pixel_state": (the same for pixel_state: vcc_pixel_state,
                                     vcc_pixel_state_given_success, ..._given_failure)}}}}}

    M  = {"value": float|null, "ci": [lo, hi]|null, "num", "den"[, "ci_env": [lo, hi]|null]}
    CB = {"protocol", "metrics": {jacc_neu, acc_full, acc_nocue, acc_cf, succ_c, p_active,
          idr_raw, idr_cond, idr_rev: M}, "n_groups", "n_pairs", "g_active",
          "idr_cond_status": "undefined"|"unstable"|"ok", "degenerate": null|flag,
          "degenerate_flags": [flag]}      (idr_cond has no CI unless status is "ok")
    FB = {"baseline", "levels", "n_rows", "metrics": {ns, jcr, flip: M},
          "les": {"les", "level", "d_logit", "status", "p_value", "betas", "odds_ratios",
                  "std_errors", "p_values", "sigma", "n_rows", "n_groups", "message"}}
    T  = {"statistic", "p_value", "method", "n"}

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
    "task_a_metrics",
    "task_b_metrics",
    "task_e_metrics",
    "vcc",
    "vcc_oracle",
    "wilcoxon",
]

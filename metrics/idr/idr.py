"""IDR: intervention discrimination rate and the correctness anchors of a VLM judge
(GridWM-Judge, paper Appendix A.3). A thin adapter over ``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import bootstrap_ratios, causal_metrics
from gridwm_judge.scoring.causal import CAUSAL_METRICS

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
Causal sensitivity of a binary trajectory judge. Each trajectory group has a successful
Full trajectory and a counterfactual (CF) failure made by a minimal simulator intervention
under the same actions (optionally a NoCue success). With A_g = [Full accepted] and
C_g = [CF rejected]: p_active = mean A_g, G_active = sum A_g, IDR_raw = mean A_g C_g,
IDR_cond = IDR_raw / p_active (None when G_active = 0; status "unstable" below 10 active
groups), IDR_rev = P(Full rejected and CF accepted). Protocols: "all_groups" (invalid
verdicts are incorrect) and "eligible_pairs" (p_active and IDR_* over groups whose Full and
CF verdicts both parse; JAcc over all groups). Degenerate judges are flagged: all_fail
(p_active < 0.1), success_biased (p_active > 0.9 and CF accepted > 0.9), low_activation
(0 < G_active < 10). Every rate lies in [0, 1] or is None on an empty set.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of int): verdicts, 1 success, 0 failure, -1 invalid / unparsed.
    references (list of int): gold outcomes, 1 for full / nocue rows, 0 for cf rows.
    group_ids (list of str): trajectory group of each row (CIs resample groups).
    variants (list of str): "full", "nocue" or "cf"; one row per (group, variant).
    protocol (str): "all_groups" (default) or "eligible_pairs".
    bootstrap (int): number of group-bootstrap resamples for 95% CIs (0 = none).
    seed (int): bootstrap seed (default 20261103).
Returns:
    idr_raw, idr_cond, idr_rev, p_active, g_active, n_groups, n_pairs, jacc_neu, acc_full,
    acc_nocue, acc_cf, succ_c, idr_cond_status, degenerate (None or a flag name),
    degenerate_flags, and with bootstrap > 0 a "<name>_ci" [low, high] for each rate.
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> idr = evaluate.load(str(resource_path("metrics", "idr")))
    >>> results = idr.compute(
    ...     predictions=[1, 0, 1, 1, 0, 0],
    ...     references=[1, 0, 1, 0, 1, 0],
    ...     group_ids=["g1", "g1", "g2", "g2", "g3", "g3"],
    ...     variants=["full", "cf", "full", "cf", "full", "cf"],
    ... )
    >>> results["idr_raw"], results["p_active"], results["idr_cond"], results["g_active"]
    (0.3333333333333333, 0.6666666666666666, 0.5, 2)
    >>> results["degenerate"]
    'low_activation'
    >>> always_yes = idr.compute(predictions=[1] * 6, references=[1, 0] * 3,
    ...     group_ids=["a", "a", "b", "b", "c", "c"], variants=["full", "cf"] * 3)
    >>> always_yes["idr_raw"], always_yes["degenerate"]
    (0.0, 'success_biased')
    >>> with_ci = idr.compute(predictions=[1, 0, 1, 1, 0, 0], references=[1, 0, 1, 0, 1, 0],
    ...     group_ids=["g1", "g1", "g2", "g2", "g3", "g3"], variants=["full", "cf"] * 3,
    ...     bootstrap=2000, seed=1)
    >>> with_ci["idr_raw_ci"]
    [0.0, 1.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Idr(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("int32"),
                    "references": datasets.Value("int32"),
                    "group_ids": datasets.Value("string"),
                    "variants": datasets.Value("string"),
                }
            ),
            reference_urls=["https://github.com/gridwm-judge/gridwm-judge"],
        )

    def _compute(
        self,
        predictions,
        references,
        group_ids,
        variants,
        protocol="all_groups",
        bootstrap=0,
        seed=20261103,
    ):
        res = causal_metrics(
            predictions, group_ids, variants, references=references, protocol=protocol
        )
        out = dict(res.values())
        out.update(
            g_active=res.g_active,
            n_groups=res.n_groups,
            n_pairs=res.n_pairs,
            idr_cond_status=res.idr_cond_status,
            degenerate=res.degenerate,
            degenerate_flags=list(res.degenerate_flags),
        )
        if bootstrap and bootstrap > 0:
            ratios = {k: res.ratios[k] for k in CAUSAL_METRICS}
            for name, ci in bootstrap_ratios(ratios, n_resamples=bootstrap, seed=seed).items():
                out[f"{name}_ci"] = ci.as_list()
        return out

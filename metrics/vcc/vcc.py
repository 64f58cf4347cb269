"""VCC: Verdict Consistency Coefficient between two evidence representations of the same
trajectories (GridWM-Judge, paper Appendix A.3, eqs. 27-29). A thin adapter over
``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import bootstrap_ratios, vcc

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
VCC is the share of items judged in both representations (e.g. composite storyboard vs
split frames) whose two verdicts agree; vcc_given_success and vcc_given_failure condition on
the reference representation's verdict. Items are paired by group, or by pair_ids when a
group has several items. Under "all_groups" an invalid verdict never agrees; under
"eligible_pairs" pairs with an invalid verdict are left out. Range [0, 1]; None on an empty
set. With the Oracle-State evidence arms as representations ("pixel" / "state") and reference
"pixel" this is VCC_oracle (paper Eq. 29): does the state-table verdict agree with the pixel one?
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of int): verdicts, 1 success, 0 failure, -1 invalid.
    references (list of int): gold outcomes (1/0); kept for the evaluate interface.
    group_ids (list of str): trajectory group of each row (CIs resample groups).
    representations (list of str): exactly two values, e.g. "composite" and "split".
    reference_representation (str): default "composite".
    pair_ids (list of str, optional): a finer pairing key than the group.
    protocol (str): "all_groups" (default) or "eligible_pairs".
    bootstrap (int): group-bootstrap resamples for 95% CIs (0 = none); seed (int).
Returns:
    vcc, vcc_given_success, vcc_given_failure, n_pairs (and *_ci with bootstrap > 0).
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> vcc = evaluate.load(str(resource_path("metrics", "vcc")))
    >>> vcc.compute(predictions=[1, 1, 1, 0, 0, 0, 0, 1], references=[1] * 8,
    ...     group_ids=["g1", "g1", "g2", "g2", "g3", "g3", "g4", "g4"],
    ...     representations=["composite", "split"] * 4)
    {'vcc': 0.5, 'vcc_given_success': 0.5, 'vcc_given_failure': 0.5, 'n_pairs': 4}

    VCC_oracle: the same query asked with pixels and with the state table, paired by item
    (two queries of group g1, one of g2); 2 of the 3 verdict pairs agree:

    >>> vcc.compute(predictions=[1, 1, 0, 1, 0, 0], references=[1, 1, 0, 0, 0, 0],
    ...     group_ids=["g1"] * 4 + ["g2"] * 2,
    ...     representations=["pixel", "state"] * 3, reference_representation="pixel",
    ...     pair_ids=["g1.full", "g1.full", "g1.cf", "g1.cf", "g2.cf", "g2.cf"])
    {'vcc': 0.6666666666666666, 'vcc_given_success': 1.0, 'vcc_given_failure': 0.5, 'n_pairs': 3}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Vcc(evaluate.Metric):
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
                    "representations": datasets.Value("string"),
                }
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        group_ids,
        representations,
        reference_representation="composite",
        pair_ids=None,
        protocol="all_groups",
        bootstrap=0,
        seed=20261103,
    ):
        r = vcc(
            predictions,
            group_ids,
            representations,
            reference_representation=reference_representation,
            pair_ids=pair_ids,
            protocol=protocol,
        )
        ratios = {
            "vcc": r.vcc,
            "vcc_given_success": r.given_success,
            "vcc_given_failure": r.given_failure,
        }
        out = {name: ratio.value for name, ratio in ratios.items()}
        out["n_pairs"] = int(r.vcc.total_den)
        if bootstrap and bootstrap > 0:
            for name, ci in bootstrap_ratios(ratios, n_resamples=bootstrap, seed=seed).items():
                out[f"{name}_ci"] = ci.as_list()
        return out

"""JCR: Judge Consistency Rate (and Flip) of a VLM judge over one presentation family
(GridWM-Judge, paper Appendix A.3, eqs. 22-23). A thin adapter over ``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import bootstrap_ratios, jcr

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
JCR_F is the share of trajectory groups whose verdicts agree across all presentations of
probe family F, the baseline included; Flip_F = 1 - JCR_F. Groups with fewer than two rows
are not counted. Under "all_groups" a group with an invalid verdict is inconsistent; under
"eligible_pairs" it is left out. Range [0, 1]; None when no group counts.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of int): verdicts, 1 success, 0 failure, -1 invalid.
    references (list of int): gold outcomes (1/0); kept for the evaluate interface.
    group_ids (list of str): trajectory group of each row.
    presentations (list of str): the family level of each row.
    baseline (str): the family baseline (accepted for symmetry with ns; all levels count).
    protocol (str): "all_groups" (default) or "eligible_pairs".
    bootstrap (int): group-bootstrap resamples for 95% CIs (0 = none); seed (int).
Returns:
    jcr, flip, n_groups, and with bootstrap > 0 jcr_ci and flip_ci.
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> jcr = evaluate.load(str(resource_path("metrics", "jcr")))
    >>> jcr.compute(predictions=[1, 1, 0, 1, 1, 1], references=[1] * 6,
    ...     group_ids=["a", "a", "a", "b", "b", "b"],
    ...     presentations=["neutral", "positive", "negative"] * 2, baseline="neutral")
    {'jcr': 0.5, 'flip': 0.5, 'n_groups': 2}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Jcr(evaluate.Metric):
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
                    "presentations": datasets.Value("string"),
                }
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        group_ids,
        presentations,
        baseline=None,
        protocol="all_groups",
        bootstrap=0,
        seed=20261103,
    ):
        j, f = jcr(predictions, group_ids, presentations, protocol=protocol)
        out = {"jcr": j.value, "flip": f.value, "n_groups": int(j.total_den)}
        if bootstrap and bootstrap > 0:
            cis = bootstrap_ratios({"jcr": j, "flip": f}, n_resamples=bootstrap, seed=seed)
            out.update(jcr_ci=cis["jcr"].as_list(), flip_ci=cis["flip"].as_list())
        return out

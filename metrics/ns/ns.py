"""NS: Nuisance Stability of a VLM judge under one presentation family (GridWM-Judge,
paper Appendix A.3, eq. 21). A thin adapter over ``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import bootstrap_ratio, ns

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
NS_F is the share of (group, presentation) pairs whose verdict equals the verdict of the
family baseline for the same group, over every non-baseline presentation of one probe
family F (temporal: orig/rev; visual: clean/noisy/style; framing: neutral/positive/negative).
The baseline is not compared with itself; groups without a baseline row contribute nothing.
Under "all_groups" an invalid verdict never agrees; under "eligible_pairs" pairs with an
invalid verdict are left out. Range [0, 1]; None when there is no pair. High NS alone is not
reliability: a constant judge is perfectly stable.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of int): verdicts, 1 success, 0 failure, -1 invalid.
    references (list of int): gold outcomes (1/0); kept for the evaluate interface.
    group_ids (list of str): trajectory group of each row.
    presentations (list of str): the family level of each row (e.g. "orig", "rev").
    baseline (str): the family baseline level (required).
    protocol (str): "all_groups" (default) or "eligible_pairs".
    bootstrap (int): group-bootstrap resamples for a 95% CI (0 = none); seed (int).
Returns:
    ns, n_pairs, and with bootstrap > 0 ns_ci.
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> ns = evaluate.load(str(resource_path("metrics", "ns")))
    >>> ns.compute(predictions=[1, 1, 1, 0, 0, 0], references=[1] * 6,
    ...     group_ids=["g1", "g1", "g2", "g2", "g3", "g3"],
    ...     presentations=["orig", "rev"] * 3, baseline="orig")
    {'ns': 0.6666666666666666, 'n_pairs': 3}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ns(evaluate.Metric):
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
        if baseline is None:
            raise ValueError("ns needs baseline=<the family's baseline level>, e.g. 'orig'")
        r = ns(predictions, group_ids, presentations, baseline, protocol=protocol)
        out = {"ns": r.value, "n_pairs": int(r.total_den)}
        if bootstrap and bootstrap > 0:
            out["ns_ci"] = bootstrap_ratio(r, n_resamples=bootstrap, seed=seed).as_list()
        return out

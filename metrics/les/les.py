"""LES: leakage effect size of a presentation family from a mixed-effects logistic model
with a group random intercept (GridWM-Judge, paper Appendix A.3, eqs. 24-26). A thin
adapter over ``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import les

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
Fits logit P(y = 1) = b0 + sum_k beta_k [presentation = k] + u_g, u_g ~ N(0, sigma^2), by
maximum likelihood (Gauss-Hermite quadrature over the group intercept), with one
beta per non-baseline level. LES = max_k |beta_k|; odds ratios exp(beta_k); d_logit =
LES / (pi / sqrt(3)). One-sided flips give a non-zero effect. The fit status is reported:
"ok", "separation" (a level's verdicts are all equal: penalised estimates, read as a lower
bound), "constant" (every verdict equal: LES = 0), "not_converged", "insufficient" (LES None).
Invalid verdicts (-1) are left out.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of int): verdicts, 1 success, 0 failure, -1 invalid.
    references (list of int): gold outcomes (1/0); kept for the evaluate interface.
    group_ids (list of str): trajectory group of each row (the random intercept).
    presentations (list of str): the family level of each row.
    baseline (str): the family baseline level (required).
Returns:
    les, level, d_logit, status, p_value, betas, odds_ratios, std_errors, p_values, sigma,
    n_rows, n_groups, message.
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> les = evaluate.load(str(resource_path("metrics", "les")))
    >>> y = [1] * 12 + [1] * 12 + [0] * 6 + [1] * 6
    >>> fit = les.compute(predictions=y, references=[1] * 36,
    ...     group_ids=[f"g{i}" for i in range(12)] * 3,
    ...     presentations=["neutral"] * 12 + ["positive"] * 12 + ["negative"] * 12,
    ...     baseline="neutral")
    >>> fit["level"], fit["status"], fit["les"] > 1.0
    ('negative', 'separation', True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Les(evaluate.Metric):
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

    def _compute(self, predictions, references, group_ids, presentations, baseline=None):
        if baseline is None:
            raise ValueError("les needs baseline=<the family's baseline level>, e.g. 'neutral'")
        fit = les(predictions, group_ids, presentations, baseline)
        return {
            "les": fit.les,
            "level": fit.level,
            "d_logit": fit.d_logit,
            "status": fit.status,
            "p_value": fit.p_value,
            "betas": fit.betas,
            "odds_ratios": fit.odds_ratios,
            "std_errors": fit.std_errors,
            "p_values": fit.p_values,
            "sigma": fit.sigma,
            "n_rows": fit.n_rows,
            "n_groups": fit.n_groups,
            "message": fit.message,
        }

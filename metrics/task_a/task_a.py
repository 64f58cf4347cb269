"""Task A: action-conditioned next-state accuracy and the action-ablation drops of a VLM
judge (GridWM-Judge, paper Appendix A.3, eqs. 36-37). A thin adapter over
``gridwm_judge.scoring``."""

import datasets
import evaluate

from gridwm_judge.scoring import bootstrap_ratios, mcnemar, task_a_metrics

_CITATION = """\
@inproceedings{gridwm_judge_2026,
  title     = {Towards Reliable {VLM} Judges: State-Conditional Invariance and
               Presentation-Aware Diagnostics},
  booktitle = {NeurIPS 2026 Evaluations and Datasets Track},
  year      = {2026}
}
"""

_DESCRIPTION = """\
Acc_A1 is the share of original-action items whose chosen candidate (A-D) is the true next
state; invalid answers (None or "") are incorrect. Delta_shuffle = Acc_orig - Acc_shuffle and
Delta_mask = Acc_orig - Acc_mask over the items answered under both conditions (paired by
item id), each with McNemar's test on the discordant pairs. Accuracies lie in [0, 1], drops
in [-1, 1]; None on an empty set. Small drops with a non-trivial Acc_A1 suggest an
action-ignorant heuristic.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): chosen letters ("A".."D"), "" when invalid.
    references (list of str): gold letters.
    item_ids (list of str): the question each row belongs to (pairs the conditions).
    action_conditions (list of str): "orig", "shuffle" or "mask".
    group_ids (list of str): source trajectory of each row (CIs resample these).
    bootstrap (int): group-bootstrap resamples for 95% CIs (0 = none); seed (int).
Returns:
    acc_a1, acc_shuffle, acc_mask, delta_shuffle, delta_mask, mcnemar_shuffle_p,
    mcnemar_mask_p (keys present for the conditions given; *_ci with bootstrap > 0).
Examples:
    >>> import evaluate
    >>> from gridwm_judge import resource_path
    >>> task_a = evaluate.load(str(resource_path("metrics", "task_a")))
    >>> r = task_a.compute(predictions=["B", "B", "C", "A", "D", "D"],
    ...     references=["B", "B", "C", "C", "D", "D"],
    ...     item_ids=["i1", "i1", "i2", "i2", "i3", "i3"],
    ...     action_conditions=["orig", "shuffle"] * 3, group_ids=["g1"] * 4 + ["g2"] * 2)
    >>> r["acc_a1"], round(r["acc_shuffle"], 3), round(r["delta_shuffle"], 3)
    (1.0, 0.667, 0.333)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TaskA(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                    "item_ids": datasets.Value("string"),
                    "action_conditions": datasets.Value("string"),
                    "group_ids": datasets.Value("string"),
                }
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        item_ids,
        action_conditions,
        group_ids,
        bootstrap=0,
        seed=20261103,
    ):
        preds = [p if p else None for p in predictions]
        res = task_a_metrics(preds, references, item_ids, action_conditions, group_ids)
        ratios = {("acc_a1" if c == "orig" else f"acc_{c}"): r for c, r in res.acc.items()}
        ratios.update({f"delta_{c}": r for c, r in res.delta.items()})
        out = {name: r.value for name, r in ratios.items()}
        for c, (n01, n10) in res.discordant.items():
            out[f"mcnemar_{c}_p"] = mcnemar(n01, n10).p_value
        if bootstrap and bootstrap > 0:
            for name, ci in bootstrap_ratios(ratios, n_resamples=bootstrap, seed=seed).items():
                out[f"{name}_ci"] = ci.as_list()
        return out

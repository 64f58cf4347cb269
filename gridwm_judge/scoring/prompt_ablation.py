"""The prompt-structure ablation's scores (config ``prompt_ablation``; paper Appendix D.6,
Table 20): per prompt style, Task D's causal block; between styles, paired differences with
paired group-bootstrap CIs and McNemar tests, Holm-corrected across the family.

Per style: Full accept (``acc_full``), CF reject (``acc_cf``), p_active, IDR_raw with group and
environment CIs, IDR_cond, under Task D's protocol (all groups; an invalid answer is not the
correct one). Each style is scored on every group it answered (Full and CF), as Task D is.

Paired comparisons (all three pairs, ``a - b``) use the *matched* groups: those whose Full and
CF were answered in every style (all of them when nothing errored), so both arms of a pair are
the same groups. For each pair: the differences of IDR_raw (group and environment CIs), Full
accept and CF reject (group CIs) by :func:`~.paired.paired_difference` (one draw of groups
recomputes both arms), and McNemar's test on the **per-group discrimination success**
``A_g C_g`` (Full accepted and CF rejected). That outcome is the unit IDR_raw averages, so the
test's discordant groups (n10: discriminates under ``a`` only; n01: under ``b`` only) are
exactly what the IDR_raw difference counts (``(n10 - n01) / G``); per-item correctness would
test accuracy instead, and would pair the Full and CF items of one group as if they were
independent, which they are not. The family for Holm's correction is the three comparisons of
one judge (the question "does prompt structure change this judge's discrimination?").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gridwm_judge.schema import PROMPT_STYLES
from gridwm_judge.scoring.causal import causal_metrics
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.paired import paired_difference
from gridwm_judge.scoring.significance import holm, mcnemar
from gridwm_judge.scoring.task_scores import Batch, _causal_block
from gridwm_judge.task_table import TaskSpec

PAIRS: tuple[tuple[str, str], ...] = (
    ("structured_verdict", "direct"),
    ("structured_rationale", "direct"),
    ("structured_rationale", "structured_verdict"),
)
"""The family of paired comparisons, each ``a - b``."""
PAIRED_METRICS = ("idr_raw", "acc_full", "acc_cf")
"""Metrics whose paired difference is reported (IDR_raw also at the environment level)."""


def pair_key(a: str, b: str) -> str:
    return f"{a}-{b}"


def matched_groups(rows: Sequence[GradedRow], styles: Sequence[str] = PROMPT_STYLES
                   ) -> tuple[str, ...]:
    """Groups whose Full and CF rows were answered in every style (sorted)."""
    seen: dict[str, set[tuple[str, str]]] = {}
    for r in rows:
        seen.setdefault(r.group_id, set()).add((r.prompt_style, r.variant))
    need = {(s, v) for s in styles for v in ("full", "cf")}
    return tuple(sorted(g for g, have in seen.items() if need <= have))


def _style_ratios(rows: Sequence[GradedRow], protocol: str):
    res = causal_metrics([r.verdict for r in rows], [r.group_id for r in rows],
                         [r.variant for r in rows], protocol=protocol)
    return res.ratios


def _test_json(t, n10: int, n01: int) -> dict:
    return {"statistic": t.statistic, "p_value": t.p_value, "method": t.method, "n": t.n,
            "n10": n10, "n01": n01}


def paired_block(rows: Sequence[GradedRow], protocol: str, *, n_resamples: int, seed: int,
                 level: float) -> dict:
    """The paired comparisons of every pair in :data:`PAIRS` over the matched groups."""
    groups = matched_groups(rows)
    keep = set(groups)
    envs = {r.group_id: r.env_id or r.family for r in rows}
    ratios = {s: _style_ratios([r for r in rows if r.prompt_style == s and r.group_id in keep
                                and r.variant in ("full", "cf")], protocol)
              for s in PROMPT_STYLES} if groups else {}
    out: dict = {"n_groups": len(groups),
                 "groups_left_out": len({r.group_id for r in rows}) - len(groups),
                 "holm_family": [pair_key(a, b) for a, b in PAIRS], "pairs": {}}
    if not groups:
        return out
    kw = {"n_resamples": n_resamples, "seed": seed, "level": level}
    tests = []
    for a, b in PAIRS:
        metrics = {}
        for name in PAIRED_METRICS:
            ra, rb = ratios[a][name], ratios[b][name]
            d = paired_difference(ra, rb, **kw)
            m = {"value": d.value, "ci": d.ci.as_list(), "a": ra.value, "b": rb.value}
            if name == "idr_raw":
                m["ci_env"] = paired_difference(ra, rb, clusters=envs, **kw).ci.as_list()
            metrics[name] = m
        disc_a = ratios[a]["idr_raw"].num > 0
        disc_b = ratios[b]["idr_raw"].num > 0
        n10, n01 = int((disc_a & ~disc_b).sum()), int((~disc_a & disc_b).sum())
        test = mcnemar(n01, n10)
        tests.append(test.p_value)
        out["pairs"][pair_key(a, b)] = {"a": a, "b": b, "metrics": metrics,
                                        "mcnemar": _test_json(test, n10, n01)}
    for key, p in zip(out["pairs"], holm(np.asarray(tests)), strict=True):
        out["pairs"][key]["mcnemar"]["p_holm"] = float(p)
    return out


def score_prompt_ablation(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    """The ``PA`` block of scores.json (shape in :mod:`gridwm_judge.scoring`)."""
    protocol = spec.protocol or "all_groups"
    envs: Mapping[str, str] = {r.group_id: r.env_id or r.family for r in rows}
    styles = {}
    for st in PROMPT_STYLES:
        sub = [r for r in rows if r.prompt_style == st]
        if sub:
            styles[st] = _causal_block(sub, protocol, s, clusters=envs, select=lambda r: True)
            styles[st].update(answered=len(sub),
                              invalid=sum(r.parse_mode == "invalid" for r in sub),
                              strict=sum(r.parse_mode == "strict" for r in sub))
    cfg = s.settings
    return {
        "protocol": protocol,
        "styles": styles,
        "paired": paired_block(rows, protocol, n_resamples=cfg.n_resamples, seed=cfg.seed,
                               level=cfg.level),
    }


__all__ = ["PAIRS", "matched_groups", "paired_block", "score_prompt_ablation"]

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

from gridwm_judge.results import Results
from gridwm_judge.schema import PROMPT_STYLES
from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.batch import Batch, Settings, Where, interval
from gridwm_judge.scoring.causal import causal_metrics
from gridwm_judge.scoring.grading import GradedRow, verdicts
from gridwm_judge.scoring.paired import paired_difference
from gridwm_judge.scoring.significance import holm, mcnemar
from gridwm_judge.scoring.task_scores import causal_results, everything, protocol_of
from gridwm_judge.task_table import TaskSpec

PAIRS: tuple[tuple[str, str], ...] = (
    ("structured_verdict", "direct"),
    ("structured_rationale", "direct"),
    ("structured_rationale", "structured_verdict"),
)
"""The family of paired comparisons, each ``a - b``."""
PAIRED_METRICS = ("idr_raw", "acc_full", "acc_cf")
"""Metrics whose paired difference is reported (IDR_raw also at the environment level)."""


def matched_groups(rows: Sequence[GradedRow], styles: Sequence[str] = PROMPT_STYLES
                   ) -> tuple[str, ...]:
    """Groups whose Full and CF rows were answered in every style (sorted)."""
    seen: dict[str, set[tuple[str, str]]] = {}
    for r in rows:
        seen.setdefault(r.group_id, set()).add((r.prompt_style, r.variant))
    need = {(s, v) for s in styles for v in ("full", "cf")}
    return tuple(sorted(g for g, have in seen.items() if need <= have))


def _style_ratios(rows: Sequence[GradedRow], protocol: str) -> dict[str, GroupRatio]:
    res = causal_metrics(verdicts(rows), [r.group_id for r in rows],
                         [r.variant for r in rows], protocol=protocol)
    return res.ratios


def paired_results(rows: Sequence[GradedRow], protocol: str, s: Batch, where: Where) -> None:
    """The paired comparisons of every pair in :data:`PAIRS` over the matched groups: the
    matched and left-out groups, then per pair (``style`` a, ``baseline`` b) the differences
    with their paired CIs and McNemar's test with its Holm-adjusted p."""
    groups = matched_groups(rows)
    keep = set(groups)
    s.count("n_groups", len(groups), where)
    s.count("groups_left_out", len({r.group_id for r in rows}) - len(groups), where)
    if not groups:
        return
    envs = {r.group_id: r.env_id or r.family for r in rows}
    ratios = {st: _style_ratios([r for r in rows if r.prompt_style == st and r.group_id in keep
                                 and r.variant in ("full", "cf")], protocol)
              for st in PROMPT_STYLES}
    cfg = s.settings
    kw = {"n_resamples": cfg.n_resamples, "seed": cfg.seed, "level": cfg.level}
    found = []
    for a, b in PAIRS:
        diffs = []
        for name in PAIRED_METRICS:
            ra, rb = ratios[a][name], ratios[b][name]
            d = paired_difference(ra, rb, **kw)
            env = (interval(paired_difference(ra, rb, clusters=envs, **kw).ci)
                   if name == "idr_raw" else None)
            diffs.append((name, d.value, interval(d.ci), env))
        disc_a = ratios[a]["idr_raw"].num > 0
        disc_b = ratios[b]["idr_raw"].num > 0
        n10, n01 = int((disc_a & ~disc_b).sum()), int((~disc_a & disc_b).sum())
        found.append((a, b, diffs, n10, mcnemar(n01, n10)))
    adjusted = holm([t.p_value for *_rest, t in found])
    for (a, b, diffs, n10, test), p in zip(found, adjusted, strict=True):
        pw = {**where, "style": a, "baseline": b}
        for name, value, ci, env in diffs:
            s.add(name, value, pw, ci=ci, ci_env=env, env_level=name == "idr_raw")
        s.test("mcnemar_idr", test, pw, numerator=n10, p_holm=float(p))


def score_prompt_ablation(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings
                          ) -> Results:
    """Per prompt style Task D's causal block (group and environment CIs) with its answered,
    invalid and strict counts, then the paired comparisons between styles."""
    s = Batch(settings, spec.name)
    protocol = protocol_of(spec)
    envs: Mapping[str, str] = {r.group_id: r.env_id or r.family for r in rows}
    for st in PROMPT_STYLES:
        sub = [r for r in rows if r.prompt_style == st]
        if sub:
            at = {"style": st}
            causal_results(sub, protocol, s, at, clusters=envs, select=everything)
            s.count("answered", len(sub), {**at, "protocol": protocol})
            s.count("invalid", sum(r.parse_mode == "invalid" for r in sub),
                    {**at, "protocol": protocol})
            s.count("strict", sum(r.parse_mode == "strict" for r in sub),
                    {**at, "protocol": protocol})
    paired_results(rows, protocol, s, {"protocol": protocol})
    return s.results()


__all__ = ["PAIRS", "matched_groups", "paired_results", "score_prompt_ablation"]

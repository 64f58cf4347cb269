"""Per-task scoring of one judge's graded rows into flat results (:class:`~gridwm_judge.
results.MetricResult`); which function scores a task is named by its recipe (:mod:`.recipes`).

Which rows feed which metric is decided here, once: the canonical presentation phi0
(orig, clean, neutral; Task C's grid probe set), the probe families and their baselines,
the Task C / Task D protocols, and the pairing keys of the paired metrics. The causal block
and the probe-family figures (:func:`causal_results`, :func:`probe_results`) are shared with
the controlled analyses' recipes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridwm_judge.results import Results
from gridwm_judge.scoring.batch import Batch, Clusters, Settings, Where
from gridwm_judge.scoring.causal import (
    CAUSAL_METRICS,
    DEGENERATE_FLAGS,
    FAMILY_METRICS,
    CausalResult,
    causal_metrics,
    protocol_of,
)
from gridwm_judge.scoring.controls import (
    b_components,
    task_a_metrics,
    task_b_metrics,
    task_e_metrics,
)
from gridwm_judge.scoring.grading import GradedRow, verdicts
from gridwm_judge.scoring.invariance import jcr, ns, vcc
from gridwm_judge.scoring.leakage import les
from gridwm_judge.scoring.scopes import IDR_COND_STATUS
from gridwm_judge.scoring.significance import mcnemar, mcnemar_paired
from gridwm_judge.task_table import TaskSpec

__all__ = ["Settings", "accuracy_name", "canonical_rows", "causal_results", "protocol_of",
           "probe_results", "score_task_a", "score_task_b", "score_task_c", "score_task_d",
           "score_task_e"]


@dataclass(frozen=True)
class ProbeFamily:
    """A presentation-probe family (the paper's F in NS_F / JCR_F): which rows of the full
    variant belong to it, which presentation axis varies, and that axis's baseline level."""

    name: str
    keep: Callable[[GradedRow], bool]
    axis: str
    baseline: str


C_PROBE_FAMILIES = (
    ProbeFamily(
        "temporal",
        lambda r: r.probe_family == "grid" and r.visual == "clean" and r.framing == "neutral",
        "temporal",
        "orig",
    ),
    ProbeFamily(
        "visual",
        lambda r: r.probe_family == "grid" and r.temporal == "orig" and r.framing == "neutral",
        "visual",
        "clean",
    ),
    ProbeFamily("framing", lambda r: r.probe_family == "framing", "framing", "neutral"),
)
D_PROBE_FAMILIES = (
    ProbeFamily("framing", lambda r: r.visual == "clean", "framing", "neutral"),
    ProbeFamily("visual", lambda r: r.framing == "neutral", "visual", "clean"),
)


def _is_phi0(r: GradedRow) -> bool:
    return r.temporal in ("orig", "") and r.visual == "clean" and r.framing == "neutral"


def everything(r: GradedRow) -> bool:
    """Every row: the controlled analyses' causal block reads its rows as they are."""
    return True


def canonical_rows(rows: Sequence[GradedRow], select: Callable[[GradedRow], bool] = _is_phi0
                   ) -> list[GradedRow]:
    """One row per (group, variant) that ``select`` keeps (default: the neutral presentation),
    the grid probe set's winning over the framing set's: what the causal metrics read."""
    phi0: dict[tuple[str, str], GradedRow] = {}
    for r in rows:
        if select(r):
            key = (r.group_id, r.variant)
            if key not in phi0 or (r.probe_family == "grid" and phi0[key].probe_family != "grid"):
                phi0[key] = r
    return list(phi0.values())


def _causal(rows: Sequence[GradedRow], protocol: str) -> CausalResult:
    return causal_metrics(verdicts(rows), [r.group_id for r in rows],
                          [r.variant for r in rows], protocol=protocol)


def causal_results(rows: Sequence[GradedRow], protocol: str, s: Batch, where: Where, *,
                   clusters: Clusters | None = None,
                   select: Callable[[GradedRow], bool] = _is_phi0) -> None:
    """A causal block at ``where``: JAcc_neu ... NoCue lift (IDR_cond under its reporting
    rule: no interval and status ``descriptive`` below 10 active groups), G_active, its
    pairs and groups, the degenerate flags, then each environment family's figures."""
    sel = canonical_rows(rows, select)
    res = _causal(sel, protocol)
    where = {**where, "protocol": protocol}
    s.figures({k: res.ratios[k] for k in CAUSAL_METRICS}, where, clusters=clusters,
              no_ci=() if res.idr_cond_status == "ok" else ("idr_cond",),
              status={"idr_cond": IDR_COND_STATUS[res.idr_cond_status]})
    s.count("g_active", res.g_active, where)
    s.count("n_pairs", res.n_pairs, where)
    s.count("n_groups", res.n_groups, where)
    for flag in DEGENERATE_FLAGS:
        s.add(flag, float(flag in res.degenerate_flags), where, status="ok")
    for fam in sorted({r.family for r in sel}):
        sub = _causal([r for r in sel if r.family == fam], protocol)
        fw = {**where, "family": fam}
        s.figures({k: sub.ratios[k] for k in FAMILY_METRICS}, fw)
        s.count("n_groups", sub.n_groups, fw)
        s.count("n_pairs", sub.n_pairs, fw)


def probe_results(rows: Sequence[GradedRow], fam: ProbeFamily, protocol: str, s: Batch,
                  where: Where) -> None:
    """A probe family's stability at ``where``: NS, JCR, Flip over the Full rows it keeps
    (and, for a family of several non-baseline levels, NS against each level alone:
    ``condition`` = the level), its rows and presentation levels, and
    (``Settings.with_les``) the leakage model's fit."""
    sel = [r for r in rows if r.variant == "full" and fam.keep(r)]
    y = verdicts(sel)
    g = [r.group_id for r in sel]
    p = [getattr(r, fam.axis) for r in sel]
    j, flip = jcr(y, g, p, protocol=protocol)
    where = {**where, "protocol": protocol, "probe": fam.name}
    s.figures({"ns": ns(y, g, p, fam.baseline, protocol=protocol), "jcr": j, "flip": flip},
              where)
    levels = [lv for lv in dict.fromkeys(p) if lv != fam.baseline]
    if len(levels) > 1:   # which presentation moves the verdict: NS against each level alone
        for level in levels:
            keep = [i for i, lv in enumerate(p) if lv in (fam.baseline, level)]
            s.figures({"ns": ns([y[i] for i in keep], [g[i] for i in keep],
                                [p[i] for i in keep], fam.baseline, protocol=protocol)},
                      {**where, "condition": level})
    s.count("n_rows", len(sel), where)
    s.count("n_levels", len(set(p)), where)
    if not s.settings.with_les:
        return
    fit = les(y, g, p, fam.baseline)
    s.add("les", fit.les, where, p_value=fit.p_value, method=fit.status, detail=fit.level,
          note=fit.message or None, denominator=fit.n_rows, groups=fit.n_groups)
    if fit.d_logit is not None:
        s.add("les_d_logit", fit.d_logit, where)
    for level, beta in fit.betas.items():
        at = {**where, "condition": level}
        s.add("les_beta", beta, at, p_value=fit.p_values.get(level), status="ok")
        s.add("les_std_error", fit.std_errors.get(level), at)
    if fit.sigma is not None:
        s.add("les_sigma", fit.sigma, where)


def score_task_c(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings) -> Results:
    """Per representation its causal block and probe families; composite vs split agreement
    (VCC_rep and McNemar on correctness) when both were asked."""
    s = Batch(settings, spec.name)
    protocol = protocol_of(spec)
    where = {"protocol": protocol}
    reps = sorted({r.representation for r in rows})
    for rep in reps:
        sub = [r for r in rows if r.representation == rep]
        causal_results(sub, protocol, s, {"representation": rep})
        for f in C_PROBE_FAMILIES:
            probe_results(sub, f, protocol, s, {"representation": rep})
    if "composite" in reps and len(reps) == 2:
        key = [f"{r.item_id}|{r.probe_family}|{r.temporal}|{r.visual}|{r.framing}" for r in rows]
        res = vcc(verdicts(rows), [r.group_id for r in rows],
                  [r.representation for r in rows], pair_ids=key, protocol=protocol)
        s.figures({"vcc_rep": res.vcc, "vcc_given_success": res.given_success,
                   "vcc_given_failure": res.given_failure}, where)
        pairs: dict[str, dict[str, bool]] = {}
        for k, r in zip(key, rows, strict=True):
            pairs.setdefault(k, {})[r.representation] = r.correct
        both = [v for v in pairs.values() if len(v) == 2]
        s.test("mcnemar_correct",
               mcnemar_paired([v["composite"] for v in both], [v[res.other] for v in both]),
               where)
    return s.results()


def score_task_d(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings) -> Results:
    """The causal block (group and environment CIs; once per protocol the entry names), the
    same per presentation condition, and the framing / visual probe families."""
    s = Batch(settings, spec.name)
    protocol = protocol_of(spec)
    envs = {r.group_id: r.env_id or r.family for r in rows}  # environment = registered env id
    for p in (protocol, *spec.also_protocols):   # the paper's D-R: all groups and eligible
        causal_results(rows, p, s, {}, clusters=envs)
    for vis, fr in sorted({(r.visual, r.framing) for r in rows}):
        sub = [r for r in rows if (r.visual, r.framing) == (vis, fr)]
        causal_results(sub, protocol, s, {"condition": f"{vis}-{fr}"}, select=everything)
    # Stability compares verdicts the judge gave: under all_groups an invalid answer would
    # count as a flip, and a judge that never answers would read as presentation leakage.
    # Invalid outputs stay visible in the coverage block and count against the causal metrics.
    for f in D_PROBE_FAMILIES:
        probe_results(rows, f, "eligible_pairs", s, {})
    return s.results()


def accuracy_name(condition: str) -> str:
    """Task A's (and MA's) figure for accuracy under one action condition: ``acc_a1`` for
    ``orig`` (the paper's Acc_A1), ``acc_shuffle``, ``acc_mask``."""
    return "acc_a1" if condition == "orig" else f"acc_{condition}"


def _task_a(rows: Sequence[GradedRow]):
    return task_a_metrics([r.parsed for r in rows], [r.gold for r in rows],
                          [r.item_id for r in rows], [r.action_condition for r in rows],
                          [r.group_id for r in rows])


def score_task_a(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings) -> Results:
    """Accuracy per action condition, the paired drops with McNemar's test, Acc_A1 per
    environment family."""
    s = Batch(settings, spec.name)
    res = _task_a(rows)
    ratios = {accuracy_name(c): r for c, r in res.acc.items()}
    ratios.update({f"delta_{c}": r for c, r in res.delta.items()})
    s.figures(ratios, {})
    for c, (n01, n10) in res.discordant.items():
        s.test("mcnemar", mcnemar(n01, n10), {"condition": c})
    orig = [r for r in rows if r.action_condition == "orig"]
    for fam in sorted({r.family for r in orig}):
        sub = [r for r in orig if r.family == fam]
        s.figures({"acc_a1": _task_a(sub).acc["orig"]}, {"family": fam})
        s.count("n_items", len(sub), {"family": fam})
    return s.results()


def score_task_b(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings) -> Results:
    """B_MeanScore and B_Acc@0.90, and each component's mean (condition = the component)."""
    s = Batch(settings, spec.name)
    s.figures(task_b_metrics([r.score or 0.0 for r in rows], [r.group_id for r in rows]), {})
    for comp, v in b_component_means(rows).items():
        s.add("b_component", v, {"condition": comp})
    return s.results()


def score_task_e(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings) -> Results:
    """E_Acc and E_MeanScore over every item, then per question (condition = the question)."""
    s = Batch(settings, spec.name)

    def figures(sub: Sequence[GradedRow], where: Where) -> None:
        s.figures(task_e_metrics([r.parsed for r in sub], [r.gold for r in sub],
                                 [r.question for r in sub], [r.group_id for r in sub]), where)

    figures(rows, {})
    for q in sorted({r.question for r in rows}):
        figures([r for r in rows if r.question == q], {"condition": q})
    return s.results()


def b_component_means(graded: Sequence[GradedRow]) -> dict[str, float | None]:
    """Mean of each Task B component over the judge's B rows (invalid = 0)."""
    if not graded:
        return {}
    sums: dict[str, float] = {}
    for g in graded:
        comp = b_components(g.parsed if isinstance(g.parsed, dict) else None, g.gold)
        for k, v in comp.items():
            sums[k] = sums.get(k, 0.0) + v
    return {k: v / len(graded) for k, v in sums.items()}

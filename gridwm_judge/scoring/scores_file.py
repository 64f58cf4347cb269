"""Read scores.json: this format, or the previous one ("gridwm-judge-scores/2"), whose judges
held each task's figures as nested blocks (``tasks``) instead of results.

This module is the one place that still knows those blocks' shapes: :func:`upgrade` turns
them into the flat :class:`~gridwm_judge.results.MetricResult` records the recipes emit now
(the same figures, nothing recomputed), so ``report`` reads an old scores.json as a new one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gridwm_judge.records import PREVIOUS_SCORES_FORMAT, SCORES_FORMAT, ScoresRecord
from gridwm_judge.results import MetricResult, Results, reporting_status
from gridwm_judge.scoring.causal import DEGENERATE_FLAGS
from gridwm_judge.scoring.comparisons import SCOPE as COMPARISON_SCOPE
from gridwm_judge.scoring.scopes import IDR_COND_STATUS
from gridwm_judge.task_table import task_spec, world_of

Block = Mapping[str, Any]
Out = Iterator[MetricResult]


def _ci(v: Any) -> tuple[float, float] | None:
    return None if v is None or v[0] is None else (float(v[0]), float(v[1]))


def _metric(base: dict[str, Any], name: str, m: Block, status: str | None = None
            ) -> MetricResult:
    value = m.get("value")
    return MetricResult(
        **base, name=name, value=value, ci=_ci(m.get("ci")), ci_env=_ci(m.get("ci_env")),
        numerator=m.get("num"), denominator=m.get("den"), groups=m.get("n_groups"),
        status=status or ("undefined" if value is None else "ok"), env_level="ci_env" in m)


def _count(base: dict[str, Any], name: str, n: Any) -> MetricResult:
    return MetricResult(**base, name=name, value=None if n is None else float(n),
                        status="undefined" if n is None else "ok")


def _metrics(base: dict[str, Any], block: Block | None) -> Out:
    for name, m in (block or {}).get("metrics", {}).items():
        yield _metric(base, name, m)


def _test(base: dict[str, Any], name: str, t: Block | None) -> Out:
    if not t:
        return
    yield MetricResult(**base, name=name, value=t.get("statistic"), denominator=t.get("n"),
                       numerator=t.get("n10"), p_value=t.get("p_value"), method=t.get("method"),
                       status="undefined" if t.get("p_value") is None else "ok")
    if t.get("p_holm") is not None:
        yield MetricResult(**base, name="p_holm", value=float(t["p_holm"]))


def _causal(base: dict[str, Any], cb: Block | None) -> Out:
    """A causal block: its metrics (IDR_cond with the reporting rule's status), G_active, the
    pairs and groups it counts, its degenerate flags, and its per-family rows."""
    if not cb:
        return
    base = {**base, "protocol": cb.get("protocol", base.get("protocol"))}
    status = IDR_COND_STATUS.get(cb.get("idr_cond_status", ""), None)
    for name, m in cb.get("metrics", {}).items():
        yield _metric(base, name, m, status if name == "idr_cond" else None)
    yield _count(base, "g_active", cb.get("g_active"))
    yield _count(base, "n_pairs", cb.get("n_pairs"))
    yield _count(base, "n_groups", cb.get("n_groups"))
    flags = cb.get("degenerate_flags") or ()
    for flag in DEGENERATE_FLAGS:
        yield MetricResult(**base, name=flag, value=float(flag in flags))
    for fam, fb in sorted(cb.get("by_family", {}).items()):
        fbase = {**base, "family": fam}
        yield from _metrics(fbase, fb)
        yield _count(fbase, "n_groups", fb.get("n_groups"))
        yield _count(fbase, "n_pairs", fb.get("n_pairs"))


def _probe(base: dict[str, Any], probe: str, fb: Block) -> Out:
    """A probe family's stability block: NS, JCR, Flip, its rows and levels, the LES fit."""
    base = {**base, "probe": probe}
    yield from _metrics(base, fb)
    yield _count(base, "n_rows", fb.get("n_rows"))
    yield _count(base, "n_levels", len(fb.get("levels", ())))
    fit = fb.get("les")
    if not fit:
        return
    yield MetricResult(**base, name="les", value=fit.get("les"), p_value=fit.get("p_value"),
                       method=fit.get("status"), detail=fit.get("level"),
                       note=fit.get("message") or None, denominator=fit.get("n_rows"),
                       groups=fit.get("n_groups"),
                       status="undefined" if fit.get("les") is None else "ok")
    if fit.get("d_logit") is not None:
        yield MetricResult(**base, name="les_d_logit", value=fit["d_logit"])
    for level, beta in (fit.get("betas") or {}).items():
        yield MetricResult(**base, name="les_beta", condition=level, value=beta,
                           p_value=(fit.get("p_values") or {}).get(level))
        se = (fit.get("std_errors") or {}).get(level)
        yield MetricResult(**base, name="les_std_error", condition=level, value=se,
                           status="undefined" if se is None else "ok")
    if fit.get("sigma") is not None:
        yield MetricResult(**base, name="les_sigma", value=fit["sigma"])


def _presentation_invariance(base: dict[str, Any], blk: Block) -> Out:
    base = {**base, "protocol": blk.get("protocol")}
    for rep, rb in blk.get("representations", {}).items():
        rbase = {**base, "representation": rep}
        yield from _causal(rbase, rb.get("causal"))
        for probe, fb in rb.get("families", {}).items():
            yield from _probe(rbase, probe, fb)
    vcc = blk.get("vcc")
    if vcc:
        yield from _metrics(base, vcc)
        yield from _test(base, "mcnemar_correct", vcc.get("mcnemar_correct"))


def _reference_aided(base: dict[str, Any], blk: Block) -> Out:
    base = {**base, "protocol": blk.get("protocol")}
    yield from _causal(base, blk.get("causal"))
    for cond, cb in blk.get("by_condition", {}).items():
        yield from _causal({**base, "condition": cond}, cb)
    for probe, fb in blk.get("families", {}).items():
        yield from _probe({**base, "protocol": "eligible_pairs"}, probe, fb)


def _next_state(base: dict[str, Any], blk: Block) -> Out:
    yield from _metrics(base, blk)
    for cond, t in blk.get("mcnemar", {}).items():
        yield from _test({**base, "condition": cond}, "mcnemar", t)
    for fam, fb in sorted(blk.get("by_family", {}).items()):
        yield from _metrics({**base, "family": fam}, fb)
        yield _count({**base, "family": fam}, "n_items", fb.get("n_items"))


def _perception(base: dict[str, Any], blk: Block) -> Out:
    yield from _metrics(base, blk)
    for comp, v in blk.get("components", {}).items():
        yield MetricResult(**base, name="b_component", condition=comp, value=v,
                           status="undefined" if v is None else "ok")


def _state_tracking(base: dict[str, Any], blk: Block) -> Out:
    yield from _metrics(base, blk)
    for q, qb in blk.get("by_question", {}).items():
        for name, m in qb.items():
            yield _metric({**base, "condition": q}, name, m)


def _prompt_ablation(base: dict[str, Any], blk: Block) -> Out:
    base = {**base, "protocol": blk.get("protocol")}
    for style, sb in blk.get("styles", {}).items():
        sbase = {**base, "style": style}
        yield from _causal(sbase, sb)
        for key in ("answered", "invalid", "strict"):
            yield _count(sbase, key, sb.get(key, 0))
    paired = blk.get("paired") or {}
    if paired:
        yield _count(base, "n_groups", paired.get("n_groups"))
        yield _count(base, "groups_left_out", paired.get("groups_left_out"))
    for pair in paired.get("pairs", {}).values():
        pbase = {**base, "style": pair["a"], "baseline": pair["b"]}
        for name, m in pair.get("metrics", {}).items():
            yield _metric(pbase, name, m)
        yield from _test(pbase, "mcnemar_idr", pair.get("mcnemar"))


def _oracle_state(base: dict[str, Any], blk: Block) -> Out:
    base = {**base, "protocol": blk.get("protocol")}
    for arm, ab in blk.get("arms", {}).items():
        abase = {**base, "arm": arm}
        yield _count(abase, "n_rows", ab.get("n_rows"))
        yield _count(abase, "n_invalid", ab.get("n_invalid"))
        yield from _metrics(abase, ab.get("stages"))
        for stage, ch in ab.get("chance", {}).items():
            cbase = {**abase, "condition": stage}
            yield MetricResult(**cbase, name="chance_uniform", value=ch.get("uniform"),
                               denominator=ch.get("n_rows"))
            best, answer = ch.get("best_constant"), ch.get("best_constant_answer")
            yield MetricResult(**cbase, name="chance_best_constant", value=best,
                               denominator=ch.get("n_rows"),
                               detail=answer if answer is None or isinstance(answer, str)
                               else json.dumps(answer),
                               status="undefined" if best is None else "ok")
        yield from _causal(abase, ab.get("causal"))
    for d in blk.get("differences", {}).values():
        dbase = {**base, "arm": d["arm"], "baseline": d["baseline"]}
        yield _count(dbase, "n_items", d.get("n_items"))
        for name in ("joint", "idr_raw"):
            if name in d:
                yield _metric(dbase, name, d[name])
        yield from _test(dbase, "mcnemar_idr", d.get("mcnemar_idr"))
    for key in ("vcc_oracle", "vcc_pixel_state"):
        yield from _metrics(base, blk.get(key))


FLATTEN: dict[str, Callable[[dict[str, Any], Block], Out]] = {
    "next_state": _next_state,
    "perception": _perception,
    "presentation_invariance": _presentation_invariance,
    "reference_aided": _reference_aided,
    "state_tracking": _state_tracking,
    "prompt_ablation": _prompt_ablation,
    "oracle_state": _oracle_state,
}
"""Recipe -> how its format-2 blocks become results."""


def flatten(task: str, block: Block) -> Results:
    """The results of one task's metric blocks, under today's reporting rule."""
    spec = task_spec(task)
    return Results(reporting_status(r) for r in FLATTEN[spec.recipe](
        {"task": spec.name, "world": world_of(spec.name)}, block))


def flatten_tasks(tasks: Mapping[str, Block]) -> Results:
    """The results of every task's blocks, task by task (a scores.json of format 2)."""
    return Results(r for task, blk in tasks.items() for r in flatten(task, blk))


def _comparisons(old: Mapping[str, Any]) -> Results:
    """The previous format's ``{"C_composite_vs_split": {metric: test}}`` as results."""
    out = []
    for metric, t in (old.get("C_composite_vs_split") or {}).items():
        scope = {**COMPARISON_SCOPE, "condition": metric}
        out.append(MetricResult(**scope, name="wilcoxon", value=t.get("statistic"),
                                denominator=t.get("n_nonzero"), p_value=t.get("p_value"),
                                method=t.get("method")))
        if t.get("p_holm") is not None:
            out.append(MetricResult(**scope, name="p_holm", value=t["p_holm"]))
        out.append(MetricResult(**scope, name="n_judges", value=t.get("n_judges")))
    return Results(out)


def upgrade(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A scores.json object of the previous format with every judge's ``tasks`` blocks and the
    comparisons turned into results (nothing is recomputed: the same figures, flat)."""
    judges = {}
    for name, j in obj["judges"].items():
        rest = {k: v for k, v in j.items() if k != "tasks"}
        judges[name] = {**rest, "results": flatten_tasks(j.get("tasks") or {}).to_json()}
    return {**obj, "format": SCORES_FORMAT, "judges": judges,
            "comparisons": _comparisons(obj.get("comparisons") or {}).to_json()}


def read_scores(path: str | Path) -> ScoresRecord:
    """scores.json of this format or the previous one."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg})") from None
    if isinstance(obj, Mapping) and obj.get("format") == PREVIOUS_SCORES_FORMAT:
        obj = upgrade(obj)
    return ScoresRecord.from_json(obj, where=str(path))

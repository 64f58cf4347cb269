"""Per-task scoring of one judge's graded rows into the JSON shape of ``scores.json``
(documented in :mod:`gridwm_judge.scoring`); which function scores a task is named by its
recipe (:mod:`.recipes`).

Which rows feed which metric is decided here, once: the canonical presentation phi0
(orig, clean, neutral; Task C's grid probe set), the probe families and their baselines,
the Task C / Task D protocols, and the pairing keys of the paired metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.scoring._arrays import GroupRatio
from gridwm_judge.scoring.bootstrap import (
    BOOTSTRAP_SEED,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    bootstrap_ratios,
)
from gridwm_judge.scoring.causal import CAUSAL_METRICS, FAMILY_METRICS, causal_metrics
from gridwm_judge.scoring.controls import (
    B_THRESHOLD,
    B_WEIGHTS,
    b_components,
    task_a_metrics,
    task_b_metrics,
    task_e_metrics,
)
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.invariance import jcr, ns, vcc
from gridwm_judge.scoring.leakage import les
from gridwm_judge.scoring.significance import mcnemar, mcnemar_paired
from gridwm_judge.task_table import TaskSpec


@dataclass(frozen=True)
class Settings:
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    level: float = DEFAULT_LEVEL
    with_les: bool = True


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


class Batch:
    """Collects the metrics of one task and bootstraps them together on flush: one
    resample matrix and one product for the whole task instead of one per metric block."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.pending: list[tuple[GroupRatio, dict, str, Mapping[str, str] | None]] = []

    def block(
        self,
        ratios: Mapping[str, GroupRatio],
        clusters: Mapping[str, str] | None = None,
        no_ci: tuple[str, ...] = (),
    ) -> dict[str, dict]:
        out = {}
        for name, r in ratios.items():
            m = {"value": r.value, "ci": None, "num": r.total_num, "den": r.total_den,
                 "n_groups": int((r.den > 0).sum())}
            if clusters is not None:
                m["ci_env"] = None
            if r.value is not None and name not in no_ci:
                self.pending.append((r, m, "ci", None))
                if clusters is not None:
                    self.pending.append((r, m, "ci_env", clusters))
            out[name] = m
        return out

    def flush(self) -> None:
        s = self.settings
        batches: dict[int, list] = {}
        for item in self.pending:
            batches.setdefault(id(item[3]), []).append(item)
        for items in batches.values():
            groups = tuple(sorted({g for r, *_ in items for g in r.groups}))
            pos = {g: i for i, g in enumerate(groups)}
            aligned = {}
            for k, (r, *_rest) in enumerate(items):
                num, den = np.zeros(len(groups)), np.zeros(len(groups))
                idx = np.array([pos[g] for g in r.groups], dtype=int)
                num[idx], den[idx] = r.num, r.den
                aligned[str(k)] = GroupRatio(groups, num, den)
            cis = bootstrap_ratios(
                aligned, n_resamples=s.n_resamples, seed=s.seed, level=s.level, clusters=items[0][3]
            )
            for k, (_r, m, key, _c) in enumerate(items):
                m[key] = cis[str(k)].as_list()
        self.pending.clear()


def canonical_rows(rows: Sequence[GradedRow], select=_is_phi0) -> list[GradedRow]:
    """One row per (group, variant) that ``select`` keeps (default: the neutral presentation),
    the grid probe set's winning over the framing set's: what the causal metrics read."""
    phi0: dict[tuple[str, str], GradedRow] = {}
    for r in rows:
        if select(r):
            key = (r.group_id, r.variant)
            if key not in phi0 or (r.probe_family == "grid" and phi0[key].probe_family != "grid"):
                phi0[key] = r
    return list(phi0.values())


def _causal_block(
    rows: Sequence[GradedRow], protocol: str, s: Batch, clusters=None, select=_is_phi0
) -> dict:
    sel = canonical_rows(rows, select)
    res = _causal(sel, protocol)
    ratios = {k: res.ratios[k] for k in CAUSAL_METRICS}
    # reporting rule: IDR_cond gets no interval below 10 active groups
    block = s.block(ratios, clusters, no_ci=() if res.idr_cond_status == "ok" else ("idr_cond",))
    by_family = {}
    for fam in sorted({r.family for r in sel}):
        sub = _causal([r for r in sel if r.family == fam], protocol)
        by_family[fam] = {"metrics": s.block({k: sub.ratios[k] for k in FAMILY_METRICS}),
                          "n_groups": sub.n_groups, "n_pairs": sub.n_pairs}
    return {
        "protocol": protocol,
        "metrics": block,
        "n_groups": res.n_groups,
        "n_pairs": res.n_pairs,
        "g_active": res.g_active,
        "idr_cond_status": res.idr_cond_status,
        "degenerate": res.degenerate,
        "degenerate_flags": list(res.degenerate_flags),
        "by_family": by_family,
    }


def _causal(rows: Sequence[GradedRow], protocol: str):
    return causal_metrics([r.verdict for r in rows], [r.group_id for r in rows],
                          [r.variant for r in rows], protocol=protocol)


def _probe_block(rows: Sequence[GradedRow], fam: ProbeFamily, protocol: str, s: Batch) -> dict:
    sel = [r for r in rows if r.variant == "full" and fam.keep(r)]
    y = [r.verdict for r in sel]
    g = [r.group_id for r in sel]
    p = [getattr(r, fam.axis) for r in sel]
    j, flip = jcr(y, g, p, protocol=protocol)
    block = {
        "baseline": fam.baseline,
        "levels": sorted(set(p)),
        "n_rows": len(sel),
        "metrics": s.block(
            {"ns": ns(y, g, p, fam.baseline, protocol=protocol), "jcr": j, "flip": flip}
        ),
    }
    if s.settings.with_les:
        fit = les(y, g, p, fam.baseline)
        block["les"] = {
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
    return block


def _test_json(t) -> dict:
    return {"statistic": t.statistic, "p_value": t.p_value, "method": t.method, "n": t.n}


def score_task_c(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    protocol = spec.protocol
    out: dict = {"protocol": protocol, "representations": {}}
    for rep in sorted({r.representation for r in rows}):
        sub = [r for r in rows if r.representation == rep]
        out["representations"][rep] = {
            "causal": _causal_block(sub, protocol, s),
            "families": {f.name: _probe_block(sub, f, protocol, s) for f in C_PROBE_FAMILIES},
        }
    reps = sorted({r.representation for r in rows})
    if "composite" in reps and len(reps) == 2:
        key = [f"{r.item_id}|{r.probe_family}|{r.temporal}|{r.visual}|{r.framing}" for r in rows]
        res = vcc(
            [r.verdict for r in rows],
            [r.group_id for r in rows],
            [r.representation for r in rows],
            pair_ids=key,
            protocol=protocol,
        )
        block = s.block(
            {
                "vcc_rep": res.vcc,
                "vcc_given_success": res.given_success,
                "vcc_given_failure": res.given_failure,
            }
        )
        pairs: dict[str, dict[str, bool]] = {}
        for k, r in zip(key, rows, strict=True):
            pairs.setdefault(k, {})[r.representation] = r.correct
        both = [v for v in pairs.values() if len(v) == 2]
        test = mcnemar_paired([v["composite"] for v in both], [v[res.other] for v in both])
        out["vcc"] = {
            "reference": "composite",
            "other": res.other,
            "metrics": block,
            "mcnemar_correct": _test_json(test),
        }
    return out


def score_task_d(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    protocol = spec.protocol
    envs = {r.group_id: r.env_id or r.family for r in rows}  # environment = registered env id
    out = {
        "protocol": protocol,
        "causal": _causal_block(rows, protocol, s, clusters=envs),
        "by_condition": {},
    }
    for vis, fr in sorted({(r.visual, r.framing) for r in rows}):
        sub = [r for r in rows if (r.visual, r.framing) == (vis, fr)]
        out["by_condition"][f"{vis}-{fr}"] = _causal_block(sub, protocol, s, select=lambda r: True)
    # Stability compares verdicts the judge gave: under all_groups an invalid answer would
    # count as a flip, and a judge that never answers would read as presentation leakage.
    # Invalid outputs stay visible in the coverage block and count against the causal metrics.
    out["families"] = {f.name: _probe_block(rows, f, "eligible_pairs", s) for f in D_PROBE_FAMILIES}
    return out


def accuracy_name(condition: str) -> str:
    """Task A's (and MA's) figure for accuracy under one action condition: ``acc_a1`` for
    ``orig`` (the paper's Acc_A1), ``acc_shuffle``, ``acc_mask``."""
    return "acc_a1" if condition == "orig" else f"acc_{condition}"


def score_task_a(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    res = task_a_metrics(
        [r.parsed for r in rows],
        [r.gold for r in rows],
        [r.item_id for r in rows],
        [r.action_condition for r in rows],
        [r.group_id for r in rows],
    )
    ratios = {accuracy_name(c): r for c, r in res.acc.items()}
    ratios.update({f"delta_{c}": r for c, r in res.delta.items()})
    tests = {c: _test_json(mcnemar(*nn)) for c, nn in res.discordant.items()}
    orig = [r for r in rows if r.action_condition == "orig"]
    by_family = {}
    for fam in sorted({r.family for r in orig}):
        sub = [r for r in orig if r.family == fam]
        acc = task_a_metrics([r.parsed for r in sub], [r.gold for r in sub],
                             [r.item_id for r in sub], [r.action_condition for r in sub],
                             [r.group_id for r in sub]).acc["orig"]
        by_family[fam] = {"metrics": s.block({"acc_a1": acc}), "n_items": len(sub)}
    return {"metrics": s.block(ratios), "mcnemar": tests, "by_family": by_family}


def score_task_b(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    ratios = task_b_metrics([r.score for r in rows], [r.group_id for r in rows])
    return {
        "metrics": s.block(ratios),
        "components": b_component_means(rows),
        "weights": dict(B_WEIGHTS),
        "threshold": B_THRESHOLD,
    }


def score_task_e(rows: Sequence[GradedRow], s: Batch, spec: TaskSpec) -> dict:
    def block(sub):
        return s.block(
            task_e_metrics(
                [r.parsed for r in sub],
                [r.gold for r in sub],
                [r.question for r in sub],
                [r.group_id for r in sub],
            )
        )

    by_q = {
        q: block([r for r in rows if r.question == q]) for q in sorted({r.question for r in rows})
    }
    return {"metrics": block(rows), "by_question": by_q}


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

"""Oracle-State scoring (paper Appendix D.4, Tables 16-17, Eq. 29).

A staged answer ``{"task_type", "objective", "verdict"}`` is graded stage by stage against the
gold (:func:`stage_hits`); ``joint`` is all three right, and an invalid answer (no object with
the three keys) is wrong at every stage. Per evidence arm: the stage accuracies and joint
accuracy over every answered row, and Task D's causal block over the arm's verdicts (paired
Full / CF p_active, IDR_raw with group and environment CIs, IDR_cond; all groups, invalid =
incorrect). Between arms: State - Pixel and Pixel+State - Pixel of joint accuracy and IDR_raw,
each with a paired group-bootstrap CI at group and environment level (the items answered in
both arms), and VCC_oracle: agreement of the State arm's verdict with the Pixel arm's on the
same query (Pixel+State vs Pixel beside it).

Each arm also carries its stages' chance levels (:func:`chance_levels`) over the rows
it scores: ``uniform`` (a uniform guess over the answer's label space: 1 / the task types the
prompt lists, 1 / the type x colour labels it allows, 1/2, and their product for joint) and
``best_constant`` (the empirical rate of the best single answer: the most common gold task
type, objective, verdict and, for joint, gold triple, named in ``best_constant_answer``).

Normalisation (one rule each): a task type matches its gold ignoring case, spacing and the
arrow's spelling; an objective is read as ``<type>_<color>`` from its two words in either
order ("yellow ball", "ball_yellow"); a verdict is Success / Fail (or Failure), any case.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridwm_judge.parsing import parse_verdict
from gridwm_judge.results import Results
from gridwm_judge.schema import EVIDENCE
from gridwm_judge.scoring._arrays import FAILURE, INVALID, SUCCESS, GroupRatio
from gridwm_judge.scoring.batch import Batch, Settings, Where, interval
from gridwm_judge.scoring.causal import causal_metrics
from gridwm_judge.scoring.grading import Grade, GradedRow, verdicts
from gridwm_judge.scoring.invariance import vcc, vcc_oracle
from gridwm_judge.scoring.paired import paired_difference
from gridwm_judge.scoring.significance import TestResult, mcnemar_paired
from gridwm_judge.scoring.task_scores import causal_results, everything, protocol_of
from gridwm_judge.task_table import OS_COLORS, OS_OBJECT_TYPES, OS_TASK_TYPES, TaskSpec

STAGES = ("task_type", "objective", "verdict")
STAGE_METRICS = (*STAGES, "joint")
BASE_ARM = "pixel"
DIFFERENCES = (("state", BASE_ARM), ("pixel_state", BASE_ARM))
"""(arm, baseline arm) pairs whose paired differences are reported (Table 17's shape)."""
DIFFERENCE_METRICS = ("joint", "idr_raw")
_ARROWS = re.compile(r"\s*(?:->|→|=>|-->)\s*")
_SPACE = re.compile(r"\s+")
_BULLET = re.compile(r"^(?:[-*\u2022]|\d+[.)])\s+")
_WORD = re.compile(r"[a-z]+")


def task_type_key(text: Any) -> str | None:
    """A task type in comparable form (lower case, one space, ``->`` arrows); None if not text."""
    if not isinstance(text, str) or not text.strip():
        return None
    # a type copied from the prompt's list may keep its bullet or quotes: "- pick up key -> ..."
    text = _BULLET.sub("", text.strip()).strip(" .\"'`*")
    out = _ARROWS.sub(" -> ", text.lower())
    return _SPACE.sub(" ", out).strip()


def objective_label(text: Any) -> str | None:
    """``<type>_<color>`` of an objective written with its two words in either order, any
    separator ("ball_yellow", "yellow ball", "Yellow-Ball"); else its words joined by "_"."""
    if not isinstance(text, str):
        return None
    words = _WORD.findall(text.lower())
    if not words:
        return None
    types = [w for w in words if w in OS_OBJECT_TYPES]
    colors = [w for w in words if w in OS_COLORS]
    if len(words) == 2 and len(types) == 1 and len(colors) == 1:
        return f"{types[0]}_{colors[0]}"
    return "_".join(words)


def verdict_code(text: Any) -> int:
    """1 for Success, 0 for Fail, -1 when the field states no verdict; read by the verdict
    parser, as the prompt ablation's JSON verdicts are ("Fail.", "**Success**")."""
    if not isinstance(text, str):
        return INVALID
    read = parse_verdict(text, {"Success": "success", "Fail": "failure",
                                "Failure": "failure"}).value
    return {"success": SUCCESS, "failure": FAILURE}.get(str(read), INVALID)


def stage_hits(answer: Any, gold: Mapping[str, str]) -> dict[str, bool]:
    """Which stages of ``answer`` (a parsed object, or None when invalid) match ``gold``, and
    ``joint`` (all of them)."""
    a = answer if isinstance(answer, Mapping) else {}
    hits = {
        "task_type": (task_type_key(a.get("task_type")) is not None
                      and task_type_key(a.get("task_type")) == task_type_key(gold["task_type"])),
        "objective": (objective_label(a.get("objective")) is not None
                      and objective_label(a.get("objective")) == objective_label(
                          gold["objective"])),
        "verdict": verdict_code(a.get("verdict")) == verdict_code(gold["verdict"]),
    }
    hits["joint"] = all(hits.values())
    return hits


def grade_staged(value: Any, row: Mapping[str, Any]) -> Grade:
    """The row's gold object, joint correctness, the verdict code (1 / 0 / -1) and, as
    ``score``, the share of stages right."""
    gold = json.loads(row["answer"])
    hits = stage_hits(value, gold)
    verdict = verdict_code(value.get("verdict")) if isinstance(value, Mapping) else INVALID
    return Grade(gold, hits["joint"], verdict=verdict,
                 score=sum(hits[s] for s in STAGES) / len(STAGES))


def stage_accuracies(hits: Sequence[Mapping[str, bool]], group_ids: Sequence[str]
                     ) -> dict[str, GroupRatio]:
    """Accuracy of each stage and ``joint`` over rows, as ratios of group sums (rows per
    group in the denominator); an empty input gives undefined (None) values."""
    if len(hits) != len(group_ids):
        raise ValueError(f"{len(hits)} graded answers but {len(group_ids)} group ids")
    groups = tuple(sorted(set(group_ids)))
    pos = {g: i for i, g in enumerate(groups)}
    idx = np.array([pos[g] for g in group_ids], dtype=int)
    den = np.bincount(idx, minlength=len(groups)).astype(float)
    return {
        m: GroupRatio(groups, np.bincount(idx, weights=[float(h[m]) for h in hits],
                                          minlength=len(groups)).astype(float), den)
        for m in STAGE_METRICS
    }


UNIFORM_CHANCE: dict[str, float] = {
    "task_type": 1 / len(OS_TASK_TYPES),
    "objective": 1 / (len(OS_OBJECT_TYPES) * len(OS_COLORS)),
    "verdict": 1 / 2,
}
UNIFORM_CHANCE["joint"] = (UNIFORM_CHANCE["task_type"] * UNIFORM_CHANCE["objective"]
                           * UNIFORM_CHANCE["verdict"])
"""A uniform guess per stage: over the task types listed, the ``<type>_<color>`` labels the
prompt allows, the two verdicts; joint = their product (independent guesses)."""


def chance_levels(golds: Sequence[Mapping[str, str]]) -> dict[str, dict[str, Any]]:
    """Per stage and ``joint``: ``uniform`` (:data:`UNIFORM_CHANCE`), ``best_constant`` (the
    share of ``golds`` the most common gold answer matches; None when there are none),
    ``best_constant_answer`` and ``n_rows``. Ties go to the answer seen first."""
    keys = {
        "task_type": lambda g: task_type_key(g["task_type"]),
        "objective": lambda g: objective_label(g["objective"]),
        "verdict": lambda g: verdict_code(g["verdict"]),
        "joint": lambda g: (task_type_key(g["task_type"]), objective_label(g["objective"]),
                            verdict_code(g["verdict"])),
    }
    out = {}
    for stage, key in keys.items():
        counts: dict[Any, int] = {}
        first: dict[Any, Any] = {}
        for g in golds:
            k = key(g)
            counts[k] = counts.get(k, 0) + 1
            first.setdefault(k, g if stage == "joint" else g[stage])
        best = max(counts, key=counts.__getitem__) if counts else None
        out[stage] = {
            "uniform": UNIFORM_CHANCE[stage],
            "best_constant": counts[best] / len(golds) if golds else None,
            "best_constant_answer": None if best is None else (
                {f: first[best][f] for f in STAGES} if stage == "joint" else first[best]),
            "n_rows": len(golds),
        }
    return out


def arm_ratios(rows: Sequence[GradedRow], protocol: str) -> dict[str, GroupRatio]:
    """Joint accuracy and IDR_raw of one arm's rows, as group ratios."""
    joint = stage_accuracies([stage_hits(r.parsed, r.gold) for r in rows],
                             [r.group_id for r in rows])["joint"]
    causal = causal_metrics(verdicts(rows), [r.group_id for r in rows],
                            [r.variant for r in rows], protocol=protocol)
    return {"joint": joint, "idr_raw": causal.ratios["idr_raw"]}


def matched(rows: Sequence[GradedRow], arm: str, base: str
            ) -> tuple[list[GradedRow], list[GradedRow]]:
    """The rows of ``arm`` and ``base`` whose item was answered in both, in item order."""
    by_arm: dict[str, dict[str, GradedRow]] = {arm: {}, base: {}}
    for r in rows:
        if r.evidence in by_arm:
            by_arm[r.evidence][r.item_id] = r
    common = sorted(set(by_arm[arm]) & set(by_arm[base]))
    return [by_arm[arm][i] for i in common], [by_arm[base][i] for i in common]


def _aligned(a: GroupRatio, b: GroupRatio) -> tuple[GroupRatio, GroupRatio]:
    """Both ratios over the union of their groups (a group absent from one adds 0 / 0)."""
    groups = tuple(sorted(set(a.groups) | set(b.groups)))

    def grow(r: GroupRatio) -> GroupRatio:
        pos = {g: i for i, g in enumerate(r.groups)}
        num, den = np.zeros(len(groups)), np.zeros(len(groups))
        for j, g in enumerate(groups):
            if g in pos:
                num[j], den[j] = r.num[pos[g]], r.den[pos[g]]
        return GroupRatio(groups, num, den)

    return grow(a), grow(b)


def _discriminates(rows: Sequence[GradedRow]) -> dict[str, bool]:
    """Per group with a Full and a CF row: Full judged Success and CF judged Fail (IDR_raw's
    unit). McNemar is run on groups, not items: a group's three variants share one query
    trajectory set and, for the task type and objective stages, the env's one reference."""
    by: dict[str, dict[str, int | None]] = {}
    for r in rows:
        by.setdefault(r.group_id, {})[r.variant] = r.verdict
    return {g: v.get("full") == SUCCESS and v.get("cf") == FAILURE
            for g, v in by.items() if "full" in v and "cf" in v}


@dataclass(frozen=True)
class ArmDifference:
    """metric(arm) - metric(baseline) on the items answered in both, per metric of
    :data:`DIFFERENCE_METRICS`: (value, group CI, environment CI, groups); and McNemar's test
    on per-group discrimination."""

    arm: str
    baseline: str
    n_items: int
    metrics: Mapping[str, tuple[float | None, tuple[float, float] | None,
                                tuple[float, float] | None, int]]
    mcnemar_idr: TestResult


def arm_differences(rows: Sequence[GradedRow], envs: Mapping[str, str], *, protocol: str,
                    n_resamples: int, seed: int, level: float) -> list[ArmDifference]:
    """State - Pixel and Pixel+State - Pixel (those of :data:`DIFFERENCES` whose arms were
    both answered), with paired percentile CIs resampling groups and environments."""
    out = []
    arms = {r.evidence for r in rows}
    kw = {"n_resamples": n_resamples, "seed": seed, "level": level}
    for arm, base in DIFFERENCES:
        if arm not in arms or base not in arms:
            continue
        a_rows, b_rows = matched(rows, arm, base)
        ra, rb = arm_ratios(a_rows, protocol), arm_ratios(b_rows, protocol)
        metrics = {}
        for metric in DIFFERENCE_METRICS:
            a, b = _aligned(ra[metric], rb[metric])
            group = paired_difference(a, b, **kw)
            env = paired_difference(a, b, clusters={g: envs[g] for g in a.groups}, **kw)
            metrics[metric] = (group.value, interval(group.ci), interval(env.ci), len(a.groups))
        da, db = _discriminates(a_rows), _discriminates(b_rows)
        both = sorted(set(da) & set(db))
        test = mcnemar_paired([da[g] for g in both], [db[g] for g in both])
        out.append(ArmDifference(arm, base, len(a_rows), metrics, test))
    return out


def _agreement(rows: Sequence[GradedRow], other: str, name: str, s: Batch, where: Where
               ) -> None:
    """VCC of ``other``'s verdicts against the pixel arm's, paired by item: ``name`` and
    ``name``_given_success / _given_failure (one name per arm, so the two arms' figures never
    share a name); nothing when either arm was not answered."""
    sub = [r for r in rows if r.evidence in (BASE_ARM, other)]
    if {r.evidence for r in sub} != {BASE_ARM, other}:
        return
    args = (verdicts(sub), [r.group_id for r in sub], [r.evidence for r in sub])
    pair_ids = [r.item_id for r in sub]
    protocol = str(where["protocol"])
    res = (vcc_oracle(*args, pair_ids=pair_ids, protocol=protocol) if other == "state"
           else vcc(*args, reference_representation=BASE_ARM, pair_ids=pair_ids,
                    protocol=protocol))
    s.figures({name: res.vcc, f"{name}_given_success": res.given_success,
               f"{name}_given_failure": res.given_failure}, where)


def _chance_answer(answer: Any) -> str | None:
    """A best constant answer as a result's ``detail``: the label, or for ``joint`` the
    triple as a JSON object."""
    if answer is None or isinstance(answer, str):
        return answer
    return json.dumps(answer)


def score_oracle_state(rows: Sequence[GradedRow], spec: TaskSpec, settings: Settings
                       ) -> Results:
    """Per arm its rows, stage accuracies (group and environment CIs), chance levels and
    causal block; the paired arm differences; VCC_oracle and Pixel+State's agreement."""
    s = Batch(settings, spec.name)
    protocol = protocol_of(spec)
    where = {"protocol": protocol}
    envs = {r.group_id: r.env_id or r.family for r in rows}
    for arm in (a for a in EVIDENCE if any(r.evidence == a for r in rows)):
        sub = [r for r in rows if r.evidence == arm]
        at = {**where, "arm": arm}
        s.count("n_rows", len(sub), at)
        s.count("n_invalid", sum(r.parse_mode == "invalid" for r in sub), at)
        s.figures(stage_accuracies([stage_hits(r.parsed, r.gold) for r in sub],
                                   [r.group_id for r in sub]), at, clusters=envs)
        for stage, ch in chance_levels([r.gold for r in sub]).items():
            cw = {**at, "condition": stage}
            s.add("chance_uniform", ch["uniform"], cw, denominator=ch["n_rows"], status="ok")
            s.add("chance_best_constant", ch["best_constant"], cw, denominator=ch["n_rows"],
                  detail=_chance_answer(ch["best_constant_answer"]))
        causal_results(sub, protocol, s, {"arm": arm}, clusters=envs, select=everything)
    st = s.settings
    for d in arm_differences(rows, envs, protocol=protocol, n_resamples=st.n_resamples,
                             seed=st.seed, level=st.level):
        dw = {**where, "arm": d.arm, "baseline": d.baseline}
        s.count("n_items", d.n_items, dw)
        for name, (value, ci, ci_env, groups) in d.metrics.items():
            s.add(name, value, dw, ci=ci, ci_env=ci_env, groups=groups, env_level=True)
        s.test("mcnemar_idr", d.mcnemar_idr, dw)
    _agreement(rows, "state", "vcc_oracle", s, where)
    _agreement(rows, "pixel_state", "vcc_pixel_state", s, where)
    return s.results()


__all__ = [
    "DIFFERENCES",
    "ArmDifference",
    "STAGES",
    "UNIFORM_CHANCE",
    "arm_differences",
    "chance_levels",
    "grade_staged",
    "objective_label",
    "score_oracle_state",
    "stage_accuracies",
    "stage_hits",
    "task_type_key",
    "verdict_code",
]

"""Time to score 10 judges on base-profile-sized synthetic inputs.

Base profile: Task C 972 rows (18 groups x 3 variants x 9 presentations x 2 representations),
D 144 (12 groups x 3 variants x 4 conditions), A 309 (103 items x 3 action conditions),
B 144 (72 groups x 2 frames), E 325 (48 groups). Every headline metric with 20,000-resample
group-bootstrap CIs (env-level CIs for Task D), LES fits per probe family, diagnosis, and
the across-judge comparisons. Timed from graded-row input (join + re-parse + scoring), not
dataset loading. Usage: python benchmarks/bench_score.py [--judges 10] [--resamples 20000]
[--no-les]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from gridwm_judge.records import JudgeScores, PredictionRecord
from gridwm_judge.scoring.comparisons import compare_judges
from gridwm_judge.scoring.join import join_judge
from gridwm_judge.scoring.judge_scores import failure_modes, score_tasks
from gridwm_judge.scoring.task_scores import Settings
from gridwm_judge.tasks.task_c import TASK_C_FAMILIES as C_FAMILIES
from gridwm_judge.worlds.minigrid.cards import CORE_FAMILIES as CORE

C_PRES = [("grid", t, v, "neutral") for t in ("orig", "rev") for v in ("clean", "noisy", "style")]
C_PRES += [("framing", "orig", "clean", f) for f in ("neutral", "positive", "negative")]
D_COND = {
    "clean-neutral": ("clean", "neutral"),
    "clean-positive": ("clean", "positive"),
    "clean-negative": ("clean", "negative"),
    "style-neutral": ("style", "neutral"),
}
GOLD_B = {
    "agent": {"pos": [2, 3], "dir": "up", "carrying": None},
    "front_cell": {"type": "wall", "color": "grey", "state": None},
    "visible_objects": [{"type": "key", "color": "yellow", "pos": [1, 1]}],
}


def _row(**kw) -> dict:
    base = dict.fromkeys(
        (
            "family",
            "env_id",
            "group_id",
            "item_id",
            "answer",
            "variant",
            "temporal",
            "visual",
            "framing",
            "representation",
            "probe_family",
            "action_condition",
            "question",
        ),
        "",
    )
    base["label"] = -1
    base.update(kw)
    return base


def base_rows() -> list[dict]:
    rows = []
    for k in range(18):  # Task C
        fam = C_FAMILIES[k % 3]
        g = f"{fam}.s{k}"
        for variant, label in (("full", 1), ("nocue", 1), ("cf", 0)):
            item = f"C.{fam}.{g}.{variant}"
            for rep in ("composite", "split"):
                for ps, t, v, f in C_PRES:
                    rows.append(
                        _row(
                            uid=f"{item}.{ps}.{t}.{v}.{f}.{rep}",
                            task="C",
                            family=fam,
                            group_id=g,
                            item_id=item,
                            label=label,
                            variant=variant,
                            temporal=t,
                            visual=v,
                            framing=f,
                            representation=rep,
                            probe_family=ps,
                            answer="Yes" if label else "No",
                        )
                    )
    for k in range(12):  # Task D
        fam = CORE[k % 6]
        g = f"{fam}.d{k}"
        for variant, label in (("full", 1), ("nocue", 1), ("cf", 0)):
            item = f"D.{fam}.{g}.{variant}"
            for cond, (v, f) in D_COND.items():
                rows.append(
                    _row(
                        uid=f"{item}.{cond}",
                        task="D",
                        family=fam,
                        group_id=g,
                        item_id=item,
                        label=label,
                        variant=variant,
                        temporal="orig",
                        visual=v,
                        framing=f,
                        representation="composite",
                        answer="Success" if label else "Fail",
                    )
                )
    for q in range(103):  # Task A
        fam = CORE[q % 6]
        item = f"A.{fam}.{fam}.a{q % 18}.q{q:03d}"
        for cond in ("orig", "shuffle", "mask"):
            rows.append(
                _row(
                    uid=f"{item}.{cond}",
                    task="A",
                    family=fam,
                    group_id=f"{fam}.a{q % 18}",
                    item_id=item,
                    answer="ABCD"[q % 4],
                    action_condition=cond,
                )
            )
    for k in range(144):  # Task B
        fam = CORE[k % 6]
        rows.append(
            _row(
                uid=f"B.{fam}.b{k // 2}.t{k:03d}",
                task="B",
                family=fam,
                group_id=f"{fam}.b{k // 2}",
                item_id=f"B.{k}",
                answer=json.dumps(GOLD_B, sort_keys=True),
                question="perception",
            )
        )
    for k in range(325):  # Task E
        q = "identity" if k < 136 else "status"
        gold = "key_yellow" if q == "identity" else "dropped"
        rows.append(
            _row(
                uid=f"E.unlockpickup.e{k % 48}.t{k:03d}.{q}",
                task="E",
                family="unlockpickup",
                group_id=f"e{k % 48}",
                item_id=f"E.{k}",
                answer=json.dumps({"answer": gold}),
                question=q,
            )
        )
    return rows


def judge_predictions(
    rows: list[dict], judge: str, skill: float, yes_bias: float, seed: int
) -> list[PredictionRecord]:
    """A synthetic judge: right with probability `skill`, else biased toward 'yes'."""
    rng = np.random.default_rng(seed)
    recs = []
    for r in rows:
        right = rng.random() < skill
        t = r["task"]
        if t in ("C", "D"):
            yes = bool(r["label"]) if right else rng.random() < yes_bias
            raw = ("Yes" if yes else "No") if t == "C" else ("Success" if yes else "Fail")
        elif t == "A":
            raw = r["answer"] if right else "ABCD"[int(rng.integers(4))]
        elif t == "B":
            raw = r["answer"] if right else '{"agent": {"pos": [0, 0]}}'
        else:
            raw = r["answer"] if right else '{"answer": "ball_red"}'
        if rng.random() < 0.02:
            raw = "I am not sure."
        recs.append(PredictionRecord(uid=r["uid"], judge=judge, task=t, raw=raw, status="ok",
                                     request_hash=""))
    return recs


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--judges", type=int, default=10)
    p.add_argument("--resamples", type=int, default=20_000)
    p.add_argument("--no-les", action="store_true", help="skip the LES fits")
    args = p.parse_args(argv)
    rows = base_rows()
    counts = {t: sum(r["task"] == t for r in rows) for t in "ABCDE"}
    preds = {
        f"judge{j:02d}": judge_predictions(rows, f"judge{j:02d}", 0.5 + 0.05 * j, 0.3 + 0.06 * j, j)
        for j in range(args.judges)
    }
    settings = Settings(n_resamples=args.resamples, with_les=not args.no_les)
    t0, c0 = time.perf_counter(), time.process_time()
    judges = {}
    for name, recs in preds.items():
        joined = join_judge(name, rows, recs, rules="committed")
        results = score_tasks(joined.graded, settings)
        judges[name] = JudgeScores(joined.coverage, failure_modes(results), results)
    compare_judges(judges)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"rows per judge: {counts} (total {len(rows)})")
    print(
        f"scored {args.judges} judges, {args.resamples} resamples: {elapsed:.2f} s wall, "
        f"{cpu:.2f} s CPU ({elapsed / args.judges:.2f} s per judge; target < 10 s)"
    )
    return elapsed


if __name__ == "__main__":
    main()

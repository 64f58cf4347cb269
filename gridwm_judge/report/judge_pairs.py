"""Which judges can be told apart at this size: every pair of judges on the groups of
a Task C-style config both answered, the paired difference in IDR_raw with its paired
bootstrap CI, McNemar's p (Holm across the pairs) and, where they cannot be told apart, the
groups ``gridwm-judge plan --paired`` says would be needed (the numbers are
:mod:`gridwm_judge.scoring.judge_pairs`'s, from the graded rows ``score`` wrote)."""

from __future__ import annotations

from pathlib import Path

from gridwm_judge.formats import fp
from gridwm_judge.records import SCORED_ROWS_FILE
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.table import Cell, Table, fnum, fsigned, fsigned_ci
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.judge_pairs import PAIRED_TASKS, JudgePair, compare_pairs, read_graded
from gridwm_judge.task_table import task_spec

REPRESENTATION = "composite"
"""The pairs are compared on composite storyboards, the representation headlines read."""


def asked(data: ReportData) -> bool:
    return len(data.judges) >= 2 and data.asked(PAIRED_TASKS)


def _graded(data: ReportData) -> tuple[dict[str, list[GradedRow]], list[str]]:
    """Each judge's graded rows (by report label), and the runs without a rows.jsonl."""
    cache: dict[Path, list[GradedRow]] = {}
    out: dict[str, list[GradedRow]] = {}
    missing: list[str] = []
    for e in data.judges:
        path = e.run.scores_path.parent / SCORED_ROWS_FILE
        if not path.is_file():
            missing.append(e.run.name)
            continue
        if path not in cache:
            cache[path] = read_graded(path)
        out[e.label] = [r for r in cache[path]
                        if r.judge == e.judge and r.representation == REPRESENTATION]
    return out, sorted(set(missing))


def verdict(p: JudgePair) -> str:
    if p.distinguishable:
        return "distinguishable"
    need = p.groups_needed
    if need is None:
        return "no difference seen"
    if need <= p.groups:  # the planning formula is a normal approximation; the test is exact
        return (f"not distinguishable at this size (more than {p.groups} groups needed: the "
                f"approximate estimate, ~{need}, is optimistic this small)")
    return f"not distinguishable at this size (~{need} groups needed)"


def table(data: ReportData) -> Table:
    graded, missing = _graded(data)
    pairs = compare_pairs(graded, **({} if data.n_resamples is None
                                     else {"n_resamples": data.n_resamples}))
    rows = tuple(
        (task_spec(p.task).config, p.a, p.b, p.groups, Cell(fnum(p.idr_a), p.idr_a),
         Cell(fnum(p.idr_b), p.idr_b),
         Cell(f"{fsigned(p.difference)} {fsigned_ci(p.ci)}", p.difference),
         f"{p.n_a_only} / {p.n_b_only}",
         Cell(f"{fp(p.p_value)} ({fp(p.p_holm)})", p.p_value), verdict(p))
        for p in pairs)
    notes = [
        "Two judges on the same groups (composite storyboards, neutral presentation): a "
        "group counts for a judge when it accepts Full and rejects CF (IDR_raw). A - B is the "
        "paired difference with a 95% bootstrap CI over groups; 'discordant' counts the groups "
        "only A / only B discriminates; McNemar's p, Holm-adjusted over the pairs of the same "
        "config in brackets. 'Distinguishable' needs the CI to exclude 0 and p_holm < 0.05; "
        "otherwise the groups McNemar's test would need to detect the observed difference at "
        "the observed share of discordant groups (as `gridwm-judge plan --paired`; power 0.8, "
        "alpha 0.05 over the pairs of the config, Holm's strictest step).",
    ]
    if missing:
        notes.append(f"Not compared (no {SCORED_ROWS_FILE} beside their scores): "
                     f"{', '.join(missing)}; rerun `gridwm-judge score` on them.")
    return Table(
        "judge_pairs",
        "Which judges can be told apart at this size",
        ("config", "judge A", "judge B", "groups", "IDR_raw A", "IDR_raw B", "A - B [95% CI]",
         "discordant (A only / B only)", "McNemar p (Holm)", "verdict"),
        rows, tuple(notes))

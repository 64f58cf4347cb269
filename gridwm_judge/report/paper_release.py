"""The paper's own exams in a report: Task D-R (Table 13's shape) with every judge run on it
and, beside them, the figures the paper and its release published on the same items (rows
marked "published"); and, for answers published with a parse of their own, on how many rows
that parse and this package's parser disagree.

Judge rows come from the scores as every table's do; published rows from the shipped
figures file (:mod:`gridwm_judge.release.figures`), never recomputed.
"""

from __future__ import annotations

from typing import Any

from gridwm_judge.formats import DASH
from gridwm_judge.release.figures import PublishedFigure, figures_for
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import Table
from gridwm_judge.report.tables import invalid
from gridwm_judge.scoring.scopes import causal_scope
from gridwm_judge.task_table import PAPER_TASKS, task_spec

TASK = task_spec("paper_task_d_r").name
TABLE13 = "paper Table 13"
CSV = "release taskdr_metrics.csv"


def _figure(figs: list[PublishedFigure], name: str) -> dict[str, Any] | None:
    """A published figure as a metric object (:mod:`.table`'s ``M``): its value and
    intervals, no counts (the paper and its release publish none)."""
    f = next((f for f in figs if f.name == name and f.probe is None), None)
    if f is None:
        return None
    cell: dict[str, Any] = {"value": f.value, "num": None, "den": None}
    if f.ci:
        cell["ci"] = list(f.ci)
    if f.ci_env:
        cell["ci_env"] = list(f.ci_env)
    return cell


def _rules(entry: JudgeEntry) -> str:
    return str(entry.run.scores.parser.get("rules", ""))


def _judge_row(entry: JudgeEntry) -> tuple[Any, ...] | None:
    all_groups = causal_scope(entry.results, TASK, protocol="all_groups")
    if all_groups is None:
        return None
    eligible = causal_scope(entry.results, TASK, protocol="eligible_pairs")
    run = entry.run.run
    what = ("published answers, scored here" if run is not None and run.published
            else "run") + f" ({_rules(entry)} parse)"
    return (entry.label, what, all_groups.metric("p_active"), all_groups.metric("idr_raw"),
            eligible.metric("p_active") if eligible else None,
            eligible.metric("idr_raw") if eligible else None, invalid(entry, TASK))


def task_d_r(data: ReportData) -> Table:
    """Paper Table 13 on its own items: each judge's p_active and IDR_raw under both
    protocols, then the published figures (Table 13 as printed; the release's CSV)."""
    rows = [r for e in data.judges if (r := _judge_row(e)) is not None]
    table13 = figures_for(task_spec(TASK).config, TABLE13)
    csv = figures_for(task_spec(TASK).config, CSV)
    notes = []
    for model in dict.fromkeys(f.model for f in table13):
        printed = [f for f in table13 if f.model == model]
        released = [f for f in csv if f.model == model]
        rows.append((f"{model} (published)", f"published: {TABLE13} / {CSV}",
                     _figure(printed, "p_active"), _figure(printed, "idr_raw"),
                     _figure(released, "p_active"), _figure(released, "idr_raw"), DASH))
        notes += [f"{model}: {n}" for n in dict.fromkeys(f.note for f in printed if f.note)]
    return Table(
        "paper_task_d_r",
        "The paper's Task D-R (reference-aided Task D, imported exam): judges beside the "
        "published figures (paper Table 13)",
        ("judge", "figures", "p_active (all groups)", "IDR_raw (all groups)",
         "p_active (eligible pairs)", "IDR_raw (eligible pairs)", f"invalid {TASK}"),
        tuple(rows),
        ("All groups: invalid = incorrect, over the 12 query groups (the paper's Table 13); "
         "eligible pairs: the groups whose Full and CF verdicts parse (the release's "
         "taskdr_metrics.csv). Clean-neutral presentation. Brackets: 95% group-bootstrap CI; "
         "env: environment-level bootstrap.",
         "Rows marked (published) are the figures the paper printed and its release "
         "published on these same items (3 and 6 decimals as published), not measured here; "
         "judges named published:<model> are those models' published answers, scored here.",
         *notes),
    )


def parse_agreement(data: ReportData) -> Table:
    """Per judge and imported task, the answered rows whose published parse and this
    package's parser (default rules) give different answers."""
    rows = []
    for e in data.judges:
        for task, cov in e.scores.coverage.items():
            if cov.disagree is None:
                continue
            rows.append((e.label, task, cov.answered, cov.disagree,
                         ", ".join(cov.disagree_head) or DASH))
    return Table(
        "parse_agreement", "Published answers: the authors' parse against this package's parser",
        ("judge", "task", "answered", "rows parsed differently", "first of them"),
        tuple(rows),
        ("Each published answer carries the parse it was published with (score --rules "
         "published reads it); this package's parser (committed rules, the default) reads "
         "the same raw text. A row counts when the two give different answers (one of them "
         "invalid included).",),
    )


def has_published_parse(data: ReportData) -> bool:
    return any(c.disagree is not None for e in data.judges for c in e.scores.coverage.values())


PAPER = tuple(t.name for t in PAPER_TASKS)
EXAMS = tuple(t.name for t in PAPER_TASKS if t.name != TASK)
"""The imported exams besides Task D-R (A, C, E)."""


def _figure_or_why(entry: JudgeEntry, task: str, name: str, **scope: Any) -> Any:
    """A figure's cell, or why it is not defined on these items; "not run" when the judge
    was not asked the task."""
    if task not in entry.results.tasks:
        return "not run"
    r = entry.results.one(task=task, name=name, **scope)
    if r is None:
        return DASH
    if r.status == "undefined" and r.detail:
        return f"not defined on these items (no {r.detail})"
    return r


def paper_exams(data: ReportData) -> Table:
    """The paper's Task A, C and E exams (imported): each judge's headline figures, and the
    ones these items cannot give said so."""
    a, c, e_ = (task_spec(f"paper_task_{x}").name for x in ("a", "c", "e"))
    rows = []
    for e in data.judges:
        if not any(t in e.results.tasks for t in EXAMS):
            continue
        rows.append((
            e.label, _figure_or_why(e, a, "acc_a1"), _figure_or_why(e, a, "delta_shuffle"),
            _figure_or_why(e, c, "p_active", representation="composite"),
            _figure_or_why(e, c, "idr_raw", representation="composite"),
            _figure_or_why(e, c, "vcc_rep"), _figure_or_why(e, e_, "e_acc"),
            ", ".join(f"{t} {invalid(e, t)}" for t in EXAMS if t in e.results.tasks)))
    return Table(
        "paper_exams", "The paper's Task A, C and E exams (imported from its release)",
        ("judge", f"Acc_A1 ({a})", f"Delta_shuffle ({a})", f"p_active ({c}, composite)",
         f"IDR_raw ({c}, composite)", f"VCC_rep ({c})", f"E_Acc ({e_})", "invalid"),
        tuple(rows),
        (f"{c}: eligible pairs, neutral presentation, composite storyboards (the release holds "
         "no split ones). No published figures are shown beside these: the release publishes "
         "no answers for Tasks A, C and E, so the paper's Table 2 and 4 rows cannot be "
         "confirmed on these items.",),
    )

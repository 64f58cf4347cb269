"""Oracle-State tables and figure: the report's section on the evidence arms.

- ``oracle_state_stages`` (paper Table 16's shape): per judge and arm, the accuracy of each
  stage (task type, objective, verdict) and the joint accuracy, with group-bootstrap CIs;
  below the judges, each stage's chance level (a uniform guess, and the best constant
  answer's rate) and a note on the prompt-only reference judge ``baseline:prompt-only``,
  whose rows stand among the judges when it was run.
- ``oracle_state_idr`` (Table 17's shape): per judge and arm, p_active, G_active, IDR_raw with
  group and environment CIs, IDR_cond, and each arm's verdict agreement with Pixel (VCC_oracle
  for State).
- ``oracle_state_differences``: State - Pixel and Pixel+State - Pixel of joint accuracy and
  IDR_raw with paired CIs (group; environment) and McNemar's test on joint correctness.
- ``fig_oracle_state_differences.png``: those paired differences with their CIs.

Every number is read from the scores' ``OS`` block; nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gridwm_judge.formats import fp
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.plots import _colors, _plt, _save
from gridwm_judge.report.table import DASH, Table, fdiff
from gridwm_judge.report.tables import _idr_cond, coverage_note, metric_of
from gridwm_judge.schema import EVIDENCE
from gridwm_judge.scoring.scopes import CausalScope

TASK = "OS"
FIGURE = "fig_oracle_state_differences.png"
ARM_LABEL = {"pixel": "Pixel", "state": "State", "pixel_state": "Pixel+State"}
STAGE_COLUMNS = (("task_type", "task type"), ("objective", "objective"),
                 ("verdict", "verdict"), ("joint", "joint"))
DIFF_METRICS = (("joint", "joint accuracy"), ("idr_raw", "IDR_raw"))
PROMPT_ONLY = "baseline:prompt-only"
CHANCE = (("uniform", "chance: uniform"), ("best_constant", "chance: best constant"))
ALL_ARMS = "all arms"
NOTE = ("Oracle-State control (config oracle_state): Task D's clean-neutral items in three "
        "evidence arms over the same groups; all groups, an invalid answer is wrong at every "
        "stage. Brackets: 95% group-bootstrap CI; env = resampling environments.")


def asked(data: ReportData) -> bool:
    """Whether any judge of the report was asked the Oracle-State config."""
    return data.asked((TASK,))


def _arms(entry: JudgeEntry) -> dict[str, CausalScope]:
    """Arm -> its figures (stages, counts, causal block), for the arms the judge answered."""
    return {arm: CausalScope(arm, {"task": TASK, "arm": arm}, entry.results)
            for arm in EVIDENCE
            if entry.results.one(task=TASK, name="n_rows", arm=arm) is not None}


def _chance(arm: CausalScope) -> dict[str, dict[str, Any]]:
    """An arm's chance levels per stage: uniform, best constant, its answer, rows."""
    out: dict[str, dict[str, Any]] = {}
    for r in arm.results.select(task=TASK, arm=arm.label, name="chance_best_constant"):
        uniform = arm.results.value(task=TASK, arm=arm.label, condition=r.condition,
                                    name="chance_uniform")
        out[str(r.condition)] = {"uniform": uniform, "best_constant": r.value,
                                 "best_constant_answer": r.detail, "n_rows": r.denominator}
    return out


def _differences(entry: JudgeEntry) -> list[tuple[str, str]]:
    """(arm, baseline) of each paired arm difference, in scoring order."""
    return [(str(r.arm), str(r.baseline))
            for r in entry.results.select(task=TASK, name="mcnemar_idr")]


def chance(data: ReportData) -> dict[str, Mapping[str, Any]]:
    """Arm label -> its stages' chance block, from the first judge that scored the arm;
    one entry, ``ALL_ARMS``, when every arm's block is the same (the judges answered every
    row)."""
    found: dict[str, Mapping[str, Any]] = {}
    for e in data.judges:
        for arm in EVIDENCE:
            blk = _arms(e).get(arm)
            levels = _chance(blk) if blk is not None else {}
            if levels and ARM_LABEL[arm] not in found:
                found[ARM_LABEL[arm]] = levels
    blocks = list(found.values())
    if len(blocks) > 1 and all(b == blocks[0] for b in blocks):
        return {ALL_ARMS: blocks[0]}
    return found


def _level(stage: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """A chance level as a metric cell: the best constant with its count of rows."""
    value, n = stage[kind], stage.get("n_rows")
    if kind == "best_constant" and value is not None and n:
        return {"value": value, "num": round(value * n), "den": n, "ci": None}
    return {"value": value, "num": None, "den": None, "ci": None}


def _chance_notes(data: ReportData, levels: Mapping[str, Mapping[str, Any]]) -> tuple[str, ...]:
    notes = []
    if levels:
        best = next(iter(levels.values()))
        answers = "; ".join(f"{label} {best[k]['best_constant_answer']}"
                            for k, label in STAGE_COLUMNS[:3])
        notes.append(
            "Chance levels (scores: OS arms' chance): uniform = a uniform guess over the answer's "
            "labels (task type: 1/6, the task types listed; objective: 1/30, the type x colour "
            "labels the prompt allows; verdict: 1/2; joint: their product); best constant = the "
            "rate of the best single answer over the rows scored, an empirical ceiling for any "
            f"rule that ignores the item ({answers}).")
    ran = any(e.judge == PROMPT_ONLY for e in data.judges)
    notes.append(
        f"Prompt-only reference: {PROMPT_ONLY} reads the prompt's text with the state tables cut "
        "out (no image, no table) and answers the first task type listed, goal_green and "
        "Success; a judge's stage is evidence-driven only where it beats this row and the "
        "chance rows." + ("" if ran else f" It is not among these runs: run `gridwm-judge eval "
                          f"--tasks oracle_state --judge {PROMPT_ONLY}` and report it beside "
                          "the judges."))
    return tuple(notes)


def stages(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        for arm, blk in ((a, _arms(e).get(a)) for a in EVIDENCE):
            if blk is None:
                continue
            rows.append((e.label, ARM_LABEL[arm],
                         *(metric_of(blk, k) for k, _ in STAGE_COLUMNS),
                         f"{blk.count('n_invalid')}/{blk.count('n_rows')}"))
    levels = chance(data)
    for kind, label in CHANCE:
        for arm, block in levels.items():
            rows.append((label, arm, *(_level(block[k], kind) for k, _ in STAGE_COLUMNS), DASH))
    return Table(
        "oracle_state_stages",
        "Oracle-State: staged accuracy per evidence arm (paper Table 16)",
        ("judge", "evidence", *(label for _, label in STAGE_COLUMNS), "invalid"),
        tuple(rows),
        (NOTE, "Stages: the reference's task type and objective, the query's verdict; joint = "
         "all three right (Table 16 reports joint).", *_chance_notes(data, levels),
         *coverage_note(data, (TASK,))),
    )


def idr(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        vcc = {"state": e.results.one(task=TASK, name="vcc_oracle"),
               "pixel_state": e.results.one(task=TASK, name="vcc_pixel_state")}
        for arm, c in ((a, _arms(e).get(a)) for a in EVIDENCE):
            if c is None:
                continue
            rows.append((e.label, ARM_LABEL[arm], metric_of(c, "p_active"), c.g_active,
                         metric_of(c, "idr_raw"), _idr_cond(c),
                         vcc.get(arm, DASH),
                         "+".join(c.degenerate_flags) or "ok"))
    return Table(
        "oracle_state_idr",
        "Oracle-State: causal sensitivity per evidence arm (paper Table 17)",
        ("judge", "evidence", "p_active", "G_active", "IDR_raw", "IDR_cond", "VCC vs Pixel",
         "degenerate"),
        tuple(rows),
        (NOTE, "p_active = Full judged Success; IDR_raw = Full Success and its CF Fail, over "
         "groups with Full and CF; VCC vs Pixel = share of queries whose verdict in this arm "
         "equals the Pixel-arm verdict: VCC_oracle (paper Eq. 29) on the State row, the same "
         "agreement for Pixel+State (an invalid verdict never agrees).",),
    )


def differences(data: ReportData) -> Table:
    rows = []
    for e in data.judges:
        for arm, base in _differences(e):
            where = {"task": TASK, "arm": arm, "baseline": base}
            test = e.results.one(name="mcnemar_idr", **where)
            p = None if test is None else test.p_value
            rows.append((e.label, f"{ARM_LABEL[arm]} - {ARM_LABEL[base]}",
                         *(fdiff(e.results.one(name=k, **where)) for k, _ in DIFF_METRICS),
                         DASH if test is None or p is None else f"{fp(p)} ({test.method}, "
                         f"{test.denominator} discordant)",
                         int(e.results.value(name="n_items", **where) or 0)))
    return Table(
        "oracle_state_differences",
        "Oracle-State: paired arm differences (paper Table 17's comparisons)",
        ("judge", "difference", *(f"delta {label}" for _, label in DIFF_METRICS),
         "McNemar p (IDR, per group)", "items"),
        tuple(rows),
        (NOTE, "Paired over the items answered in both arms: each bootstrap draw resamples "
         "groups (or environments) once and recomputes both arms. McNemar: per group, Full "
         "accepted and CF rejected in one arm but not the other. The task type and objective "
         "stages (and so joint) depend on each env's one reference: for them the "
         "environment-level CI is the honest one (nine envs).",),
    )


def tables(data: ReportData) -> tuple[Table, ...]:
    """The section's tables, or none when no judge was asked Oracle-State."""
    return (stages(data), idr(data), differences(data)) if asked(data) else ()


def fitted_range(values: list[float], margin: float = 0.08,
                 least: float = 0.2) -> tuple[float, float]:
    """An axis range around ``values`` (which hold 0) with a margin of ``margin`` of their
    span (at least 0.02) each side, at least ``least`` wide (all zeros read as a difference
    of nothing, not a magnified one), never wider than a difference of proportions can be."""
    lo, hi = min(values), max(values)
    pad = max(margin * (hi - lo), 0.02)
    lo, hi = lo - pad, hi + pad
    if hi - lo < least:
        mid = (lo + hi) / 2
        lo, hi = mid - least / 2, mid + least / 2
    return max(lo, -1.05), min(hi, 1.05)


def fig_differences(data: ReportData, path: Path) -> Path:
    """Paired differences (State - Pixel, Pixel+State - Pixel) per judge, joint accuracy and
    IDR_raw side by side; thick whiskers the group CI, thin ones the environment CI."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    judges = [e for e in data.judges if _differences(e)]
    cols = _colors(len(judges))
    keys = (("state", "pixel"), ("pixel_state", "pixel"))
    for ax, (name, label) in zip(axes, DIFF_METRICS, strict=True):
        drawn = [0.0]  # every value and interval end, and 0
        for i, e in enumerate(judges):
            for k, (arm, base) in enumerate(keys):
                r = e.results.one(task=TASK, name=name, arm=arm, baseline=base)
                if r is None or r.value is None:
                    continue
                y = k + (i - (len(judges) - 1) / 2) * 0.12
                v = r.value
                drawn.append(v)
                env = r.ci_env if r.env_level else None
                for ci, lw, dy in ((r.ci, 3.0, 0.0), (env, 1.0, -0.04)):
                    if ci:  # the env CI just below the group CI
                        drawn += list(ci)
                        ax.plot(ci, [y + dy, y + dy], color=cols[i], lw=lw, alpha=0.8,
                                solid_capstyle="butt")
                ax.scatter([v], [y], color=cols[i], edgecolor="k", zorder=3,
                           label=e.label if (k == 0 and name == "joint") else None)
        ax.axvline(0, color="0.4", lw=0.8, ls="--")
        ax.set_xlim(*fitted_range(drawn))
        ax.set_xlabel(f"{label}: arm - Pixel (difference of proportions)")
        ax.set_title(f"delta {label}")
        ax.grid(alpha=0.3, axis="x")
    axes[0].set_yticks(range(len(keys)))
    axes[0].set_yticklabels(["State - Pixel", "Pixel+State - Pixel"])
    axes[0].set_ylim(-0.6, len(keys) - 0.4)
    handles, names = axes[0].get_legend_handles_labels()
    axes[1].legend(handles, names, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                   frameon=False)
    fig.suptitle("Oracle-State: paired evidence-arm differences")
    return _save(fig, path, "Thick whiskers: 95% paired group-bootstrap CI; thin, just below: "
                 "environment-level CI. Right of 0: the arm beats Pixel.")

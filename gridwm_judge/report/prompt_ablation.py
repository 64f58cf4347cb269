"""The prompt-structure ablation's section of the report (config ``prompt_ablation``), shown
only when a judge answered it: paper Table 20 (per judge and prompt style: Full accept, CF
reject, IDR_raw with its group CI, IDR_cond), the paired style differences with their tests,
and a figure of the IDR_raw differences with their paired CIs. Read from scores.json's ``PA``
block only (:mod:`gridwm_judge.scoring.prompt_ablation` computes it).
"""

from __future__ import annotations

from pathlib import Path

from gridwm_judge.formats import fp
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.plots import _colors, _plt, _save
from gridwm_judge.report.table import Shown, Table, fsigned, shown
from gridwm_judge.report.tables import _idr_cond, coverage_note, metric_of
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.schema import PROMPT_STYLES
from gridwm_judge.scoring.scopes import Scope, causal_scope

TASK = "PA"
STYLE_NAMES = {
    "direct": "Direct",
    "structured_verdict": "Structured verdict",
    "structured_rationale": "Structured rationale",
}
FIGURE = "fig_prompt_ablation_paired.png"


def asked(data: ReportData) -> bool:
    """Whether any judge was asked the prompt ablation (its section is shown then)."""
    return data.asked((TASK,))


def _pair_label(test: MetricResult) -> str:
    return f"{STYLE_NAMES[str(test.style)]} - {STYLE_NAMES[str(test.baseline)]}"


def _invalid(scope: Scope) -> str:
    return f"{scope.count('invalid') or 0}/{scope.count('answered') or 0}"


def pair_tests(entry: JudgeEntry) -> Results:
    """The McNemar test of each style pair (``style`` a, ``baseline`` b), in scoring order."""
    return entry.results.select(task=TASK, name="mcnemar_idr")


def _pair_metric(entry: JudgeEntry, test: MetricResult, name: str) -> MetricResult | None:
    return entry.results.one(task=TASK, name=name, style=test.style, baseline=test.baseline)


def prompt_ablation(data: ReportData) -> Table:
    """Paper Table 20: one row per judge and prompt style."""
    rows = []
    for e in data.judges:
        for style in PROMPT_STYLES:
            c = causal_scope(e.results, TASK, style=style)
            if c is None:
                continue
            rows.append((e.label, STYLE_NAMES[style], metric_of(c, "acc_full"),
                         metric_of(c, "acc_cf"), metric_of(c, "idr_raw"), _idr_cond(c),
                         _invalid(c)))
    return Table(
        "prompt_ablation",
        "Paired Task-D prompt ablation (paper Table 20; config prompt_ablation)",
        ("judge", "prompt", "Full accept", "CF reject", "IDR_raw", "IDR_cond", "invalid"),
        tuple(rows),
        ("The three prompts ask the same groups with the same images and image order; only the "
         "answer instruction differs (Direct: Success/Fail; Structured verdict: JSON "
         '{"verdict"}; Structured rationale: JSON {"rationale", "verdict"}). Task D protocol: '
         "all groups, an invalid answer is incorrect. Brackets: 95% group-bootstrap CI; env: "
         "environment-level bootstrap.",
         *coverage_note(data, (TASK,))),
    )


def _diff(m: MetricResult | None) -> Shown | None:
    """A paired difference as a signed table metric cell (value and CIs, no denominator)."""
    return shown(m, signed=True, counts=False)


def prompt_ablation_paired(data: ReportData) -> Table:
    """Paired differences between prompt styles, with McNemar tests and Holm's correction."""
    rows = []
    for e in data.judges:
        n_groups = e.results.one(task=TASK, name="n_groups")
        if n_groups is None:
            continue
        for t in pair_tests(e):
            n10 = int(t.numerator or 0)
            holm = e.results.value(task=TASK, name="p_holm", style=t.style, baseline=t.baseline)
            rows.append((e.label, _pair_label(t), _diff(_pair_metric(e, t, "acc_full")),
                         _diff(_pair_metric(e, t, "acc_cf")), _diff(_pair_metric(e, t, "idr_raw")),
                         f"{n10}/{int(t.denominator or 0) - n10}",
                         f"{fp(t.p_value)} ({t.method})", fp(holm), int(n_groups.value or 0)))
    return Table(
        "prompt_ablation_paired",
        "Prompt ablation: paired differences between prompt styles (a - b)",
        ("judge", "a - b", "Delta Full accept", "Delta CF reject", "Delta IDR_raw",
         "n10/n01", "McNemar p", "Holm p", "groups"),
        tuple(rows),
        ("Differences over the matched groups (Full and CF answered in every style), with 95% "
         "paired group-bootstrap CIs (one draw of groups recomputes both styles; env: "
         "environments resampled). McNemar on per-group discrimination (Full accepted and CF "
         "rejected): n10 groups discriminate under a only, n01 under b only; exact binomial "
         "below 25 discordant groups, else chi2 with continuity correction. Holm: across the "
         "three comparisons of each judge.",
         *coverage_note(data, (TASK,))),
    )


ROW_IN = 0.22
"""Inches of height per judge within a style pair: room for its thick and thin bars."""


def fig_prompt_ablation(data: ReportData, path: Path) -> Path:
    """Delta IDR_raw per style pair and judge, with group (thick) and environment (thin)
    paired CIs, against the zero line; each value is written right of its row's bars, on the
    row's own line, so no label crosses another judge's bars."""
    plt = _plt()
    judges = [(e, pair_tests(e)) for e in data.judges]
    judges = [(e, p) for e, p in judges if p]
    pairs = [(str(t.style), str(t.baseline)) for _e, p in judges[:1] for t in p]
    n = len(judges)
    fig, ax = plt.subplots(figsize=(8.5, 1.6 + max(len(pairs), 1) * (0.35 + ROW_IN * max(n, 1))))
    cols = _colors(n)
    slot = 0.8 / max(n, 1)  # each judge's share of a pair's unit of height
    reach = 0.25  # the x range covers every value and interval end, at least +-0.25
    for i, (e, p) in enumerate(judges):
        for k, test in enumerate(p):
            m = _pair_metric(e, test, "idr_raw")
            if m is None or m.value is None:
                continue
            y = k + (i - (n - 1) / 2) * slot
            v, ci = m.value, m.ci or (None, None)
            env = (m.ci_env if m.env_level else None) or (None, None)
            ends = [v, *(x for x in (*ci, *env) if x is not None)]
            reach = max([reach] + [abs(x) for x in ends])
            (env_lo, env_hi), (lo, hi) = env, ci
            if env_lo is not None and env_hi is not None:
                ax.plot([env_lo, env_hi], [y + 0.3 * slot] * 2, color=cols[i], lw=1,
                        alpha=0.8, marker="|", markersize=5)
            if lo is not None and hi is not None:
                ax.plot([lo, hi], [y, y], color=cols[i], lw=3.2, solid_capstyle="butt")
            ax.scatter([v], [y], s=45, color=cols[i], edgecolor="k", zorder=3,
                       label=e.label if k == 0 else None)
            ax.annotate(fsigned(v), (max(ends), y), textcoords="offset points", xytext=(6, 0),
                        ha="left", va="center", fontsize=7)
    ax.axvline(0.0, color="0.4", lw=0.9, ls="--")
    ax.set_yticks(range(len(pairs)))
    ax.set_yticklabels([f"{STYLE_NAMES[a]}\n- {STYLE_NAMES[b]}" for a, b in pairs], fontsize=8)
    ax.set_ylim(-0.6, len(pairs) - 0.4)
    ax.invert_yaxis()
    ax.set_xlim(-1.15 * reach, 1.45 * reach)  # the right margin holds the value labels
    ax.set_xlabel("Delta IDR_raw (a - b), paired over the matched groups")
    ax.set_title("Prompt ablation: paired IDR_raw differences between styles (Table 20)")
    ax.grid(axis="x", alpha=0.3)
    if judges:
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    else:
        ax.text(0, (len(pairs) - 1) / 2, "no judge answered every style", ha="center")
    return _save(fig, path, "Thick bars: 95% paired group-bootstrap CI; thin bars just below: "
                 "environment-level CI. Dashed: no difference. Each value is written right of "
                 "its bars.")

"""The report's figures as PNG (matplotlib, Agg backend, imported lazily).

- ``fig3a_activation_idr.png``: p_active vs IDR_raw per judge and representation, with the
  degenerate regions shaded (all-fail p_active < 0.1; success-biased p_active > 0.9) and the
  impossible region IDR_raw > p_active greyed out.
- ``fig3b_composite_split.png``: composite -> split shift arrows in the same plane.
- ``fig4_stability.png``: NS and JCR by probe family, one bar per judge.
- ``fig5_controls.png``: local controls (B_Acc@0.90, E_Acc, Acc_A1) beside the judging
  metrics (JAcc_neu, IDR_raw, Task D IDR_raw).
"""

from __future__ import annotations

from pathlib import Path

from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.tables import REPS, _v, c_causal, family_blocks

DPI = 110
MARKERS = {"composite": "o", "split": "s"}


def _plt():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - matplotlib is a dependency
        raise ImportError("plots need matplotlib: pip install matplotlib") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _colors(n: int):
    plt = _plt()
    cmap = plt.get_cmap("tab10")
    return [cmap(i % 10) for i in range(n)]


def _jitter(i: int, n: int, scale: float = 0.012) -> float:
    return (i - (n - 1) / 2) * scale


def _shade(ax) -> None:
    ax.axvspan(
        -0.05, 0.1, color="#d62728", alpha=0.12, lw=0, label="all-fail region (p_active < 0.1)"
    )
    ax.axvspan(
        0.9,
        1.05,
        color="#ff7f0e",
        alpha=0.12,
        lw=0,
        label="success-biased region (p_active > 0.9, with Acc_cf < 0.1)",
    )
    ax.fill_between(
        [-0.05, 1.05],
        [-0.05, 1.05],
        [1.05, 1.05],
        color="0.85",
        alpha=0.6,
        lw=0,
        label="impossible (IDR_raw > p_active)",
    )
    ax.plot([0, 1], [0, 1], color="0.5", lw=0.8, ls="--")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("p_active: share of groups whose Full is judged a success")
    ax.set_ylabel("IDR_raw: Full accepted and its CF rejected")
    ax.grid(alpha=0.3)
    ax.text(
        0.99,
        0.01,
        "points offset slightly per judge to stay visible",
        fontsize=7,
        color="0.35",
        ha="right",
        va="bottom",
        transform=ax.transAxes,
    )


def fig_activation(data: ReportData, path: Path) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.5, 6.2))
    _shade(ax)
    cols = _colors(len(data.judges))
    for i, e in enumerate(data.judges):
        for rep in REPS:
            c = c_causal(e, rep)
            x, y = _v(c, "p_active"), _v(c, "idr_raw")
            if x is None or y is None:
                continue
            j = _jitter(i, len(data.judges))
            if rep == "composite":  # a ring around the split square: both stay visible
                style = {"s": 220, "facecolor": "none", "edgecolor": cols[i], "linewidths": 2.2}
            else:
                style = {"s": 55, "color": cols[i], "edgecolor": "k"}
            ax.scatter(
                x + j,
                y + j,
                marker=MARKERS[rep],
                zorder=3,
                label=f"{e.label} ({rep})",
                **style,
            )
    ax.set_title("Task C: activation vs raw intervention detection (Fig. 3a)")
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def fig_shift(data: ReportData, path: Path) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.5, 6.2))
    _shade(ax)
    cols = _colors(len(data.judges))
    for i, e in enumerate(data.judges):
        a, b = c_causal(e, "composite"), c_causal(e, "split")
        pts = [(_v(c, "p_active"), _v(c, "idr_raw")) for c in (a, b)]
        if any(p[0] is None or p[1] is None for p in pts):
            continue
        j = _jitter(i, len(data.judges))
        (x0, y0), (x1, y1) = [(x + j, y + j) for x, y in pts]
        ax.scatter(
            [x0], [y0], s=70, marker="o", color=cols[i], edgecolor="k", zorder=3, label=f"{e.label}"
        )
        if abs(x1 - x0) + abs(y1 - y0) > 1e-9:
            ax.annotate(
                "",
                xy=(x1, y1),
                xytext=(x0, y0),
                zorder=4,
                arrowprops={"arrowstyle": "-|>", "color": cols[i], "lw": 2},
            )
        else:
            ax.scatter([x1], [y1], s=160, marker="o", facecolor="none", edgecolor=cols[i], zorder=3)
    ax.scatter(
        [], [], s=70, marker="o", color="w", edgecolor="k", label="composite (arrow to split)"
    )
    ax.scatter([], [], s=160, marker="o", facecolor="none", edgecolor="k", label="ring: no shift")
    ax.set_title("Composite -> split shift per judge (Fig. 3b)")
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _bars(ax, labels, series, colors, ylabel, title):
    import numpy as np

    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(labels))
    for k, (name, vals) in enumerate(series):
        pos = x - 0.4 + width * (k + 0.5)
        heights = [0.0 if v is None else v for v in vals]
        bars = ax.bar(pos, heights, width, color=colors[k], edgecolor="k", lw=0.5, label=name)
        for rect, v in zip(bars, vals, strict=True):
            if v is None:
                ax.text(
                    rect.get_x() + rect.get_width() / 2,
                    0.02,
                    "n/a",
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    rotation=90,
                )
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def fig_stability(data: ReportData, path: Path) -> Path:
    plt = _plt()
    keys: list[tuple[str, str]] = []
    for e in data.judges:
        for scope, fam, fb in family_blocks(e):
            if len(fb.get("levels", [])) >= 2 and (scope, fam) not in keys:
                keys.append((scope, fam))
    labels = [f"{fam}\n({scope})" for scope, fam in keys]
    cols = _colors(len(data.judges))
    fig, axes = plt.subplots(2, 1, figsize=(max(7.5, 1.3 * len(keys) + 3), 7.2), sharex=True)
    for ax, metric, name in (
        (axes[0], "ns", "NS (agreement with baseline)"),
        (axes[1], "jcr", "JCR (groups never flipping)"),
    ):
        series = []
        for e in data.judges:
            fbs = {(s, f): fb for s, f, fb in family_blocks(e)}
            series.append((e.label, [_v(fbs.get(k), metric) for k in keys]))
        _bars(ax, labels, series, cols, name, f"{metric.upper()} by probe family (Fig. 4)")
    axes[0].legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    axes[1].set_xlabel("probe family (scope)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def fig_controls(data: ReportData, path: Path) -> Path:
    plt = _plt()
    cols = _colors(len(data.judges))
    judging = (
        ("JAcc_neu (C)", "C", "jacc_neu"),
        ("IDR_raw (C)", "C", "idr_raw"),
        ("IDR_raw (D)", "D", "idr_raw"),
    )
    local = (("B_Acc@0.90", "B", "b_acc_090"), ("E_Acc", "E", "e_acc"), ("Acc_A1", "A", "acc_a1"))

    def value(e, task, metric):
        if task == "C":
            return _v(c_causal(e, "composite"), metric)
        if task == "D":
            return _v(e.scores.block("D", "causal"), metric)
        return _v(e.scores.block(task), metric)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    for ax, spec, title in (
        (axes[0], judging, "judging metrics"),
        (axes[1], local, "local controls (A1 chance = 0.25)"),
    ):
        series = [(e.label, [value(e, t, m) for _n, t, m in spec]) for e in data.judges]
        _bars(ax, [n for n, _t, _m in spec], series, cols, "score", title)
    axes[1].axhline(0.25, color="0.4", ls=":", lw=1)
    axes[1].legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle("Local controls beside judging metrics (Fig. 5)")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


FIGURES = {
    "fig3a_activation_idr.png": fig_activation,
    "fig3b_composite_split.png": fig_shift,
    "fig4_stability.png": fig_stability,
    "fig5_controls.png": fig_controls,
}


def write_figures(data: ReportData, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [fn(data, out / name) for name, fn in FIGURES.items()]

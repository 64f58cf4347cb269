"""The report's figures as PNG (matplotlib, Agg backend, imported lazily).

- ``fig3a_activation_idr.png``: p_active vs IDR_raw per judge and representation, with the
  degenerate regions shaded (all-fail p_active < 0.1; success-biased p_active > 0.9) and the
  impossible region IDR_raw > p_active greyed out.
- ``fig3b_composite_split.png``: composite -> split shift arrows in the same plane.
- ``fig4_stability.png``: NS and JCR by probe family, one bar per judge.
- ``fig5_controls.png``: local controls (B_Acc@0.90, E_Acc, Acc_A1) beside the judging
  metrics (JAcc_neu, IDR_raw, Task D IDR_raw).

MiniWorld (3D) gets the same figures of its own (``miniworld_*.png``: MC in the activation
plane and its composite -> split shift, NS / JCR of MC and MD probe families, and IDR_raw of
MC and MD beside MA's Acc_A1 and its deltas), never pooled with MiniGrid's. Which figures a
report draws, and over which judges, is :mod:`gridwm_judge.report.sections`'s registry.

Every value is drawn with its 95% group-bootstrap interval from the scores (whiskers), every
point at its value (judges that coincide are nested markers, never moved), notes sit below the plot,
bars carry their value just beyond the bar or whisker cap (never on it), and a metric a judge
was not run on is labelled "not run", never drawn as a zero bar.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gridwm_judge.formats import fnum
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.table import DESCRIPTIVE, is_descriptive
from gridwm_judge.report.tables import (
    REPS,
    c_causal,
    control,
    family_blocks,
    metric_of,
)
from gridwm_judge.results import MIN_GROUPS
from gridwm_judge.scoring.scopes import causal_scope
from gridwm_judge.task_table import task_spec, world_task

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


NEAR = 0.015
"""Points closer than this on both axes are drawn as one spot (nested markers)."""


def _nested(points: list[tuple[float, float]]) -> list[int]:
    """Each point's place among the earlier points at the same spot (0 for the first): its
    marker is drawn that many steps larger and below them, so judges that coincide all stay
    visible while every point stays at its value (on the plane's boundary too: moving a point
    off (1, 1) would put it where no judge is, or into the impossible region)."""
    return [sum(abs(x - px) <= NEAR and abs(y - py) <= NEAR for px, py in points[:k])
            for k, (x, y) in enumerate(points)]


def _size(diameter: float, place: int, step: float) -> float:
    """A scatter marker's area (points^2) for its place among coinciding markers."""
    return (diameter + step * place) ** 2


def _value_ci(block, name: str) -> tuple[float | None, float | None, float | None]:
    """(value, low, high) of a metric; the interval is None where the scores give none."""
    r = metric_of(block, name)
    if r is None or r.value is None:
        return None, None, None
    lo, hi = r.ci or (None, None)
    return r.value, lo, hi


def _err(v: float, lo: float | None, hi: float | None) -> list[list[float]]:
    """Asymmetric error-bar lengths for matplotlib ([[below], [above]]); 0 without a CI."""
    return [[0.0 if lo is None else max(0.0, v - lo)], [0.0 if hi is None else max(0.0, hi - v)]]


def _save(fig, path: Path, note: str | None = None) -> Path:
    """Lay out, put ``note`` under the plot (never over data), write the PNG, close."""
    plt = _plt()
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, color="0.35", ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    else:
        fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


CI_NOTE = "Whiskers: 95% group-bootstrap CIs."


def _activation_plane(n_judges: int):
    """(figure, axes, one colour per judge) of a new plot on the activation plane, p_active x
    IDR_raw, with its regions shaded: the canvas of Fig. 3a and 3b."""
    fig, ax = _plt().subplots(figsize=(8.5, 6.4))
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
    return fig, ax, _colors(n_judges)


NESTED_NOTE = "Each point at its value; judges at the same spot are nested markers."


def fig_activation(data: ReportData, path: Path, task: str = "C",
                   title: str = "Task C: activation vs raw intervention detection (Fig. 3a)"
                   ) -> Path:
    fig, ax, cols = _activation_plane(len(data.judges))
    for rep in REPS:
        drawn = []
        for i, e in enumerate(data.judges):
            c = c_causal(e, rep, task)
            x, xlo, xhi = _value_ci(c, "p_active")
            y, ylo, yhi = _value_ci(c, "idr_raw")
            if x is not None and y is not None:
                drawn.append((i, e, x, y, _err(x, xlo, xhi), _err(y, ylo, yhi)))
        places = _nested([(x, y) for _i, _e, x, y, _xe, _ye in drawn])
        for (i, e, x, y, xerr, yerr), place in zip(drawn, places, strict=True):
            ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="none", ecolor=cols[i], elinewidth=1,
                        alpha=0.6, capsize=2, zorder=2)
            if rep == "composite":  # a ring around the split square: both stay visible
                style = {"s": _size(15, place, 6), "facecolor": "none", "edgecolor": cols[i],
                         "linewidths": 2.2}
            else:
                style = {"s": _size(7.5, place, 4), "color": cols[i], "edgecolor": "k"}
            ax.scatter(x, y, marker=MARKERS[rep], zorder=3 - 0.01 * place,
                       label=f"{e.label} ({rep})", **style)
    ax.set_title(title)
    _legend(ax)
    return _save(fig, path, f"{CI_NOTE} {NESTED_NOTE}")


def _legend(ax) -> None:
    """The legend beside the plot, every marker at one size (nesting is not a judge's)."""
    legend = ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                       frameon=False)
    for handle in legend.legend_handles:
        if hasattr(handle, "set_sizes"):
            handle.set_sizes([60])


def fig_shift(data: ReportData, path: Path, task: str = "C",
              title: str = "Composite -> split shift per judge (Fig. 3b)") -> Path:
    fig, ax, cols = _activation_plane(len(data.judges))
    shown = []
    for i, e in enumerate(data.judges):
        ends = [(_value_ci(c, "p_active"), _value_ci(c, "idr_raw"))
                for c in (c_causal(e, "composite", task), c_causal(e, "split", task))]
        if all(x[0] is not None and y[0] is not None for x, y in ends):
            shown.append((i, e, ends))
    places = _nested([(x[0], y[0]) for _i, _e, ((x, y), _split) in shown])
    for (i, e, ends), place in zip(shown, places, strict=True):
        (x0, y0), (x1, y1) = [(x[0], y[0]) for x, y in ends]
        for (xv, xlo, xhi), (yv, ylo, yhi) in ends:
            ax.errorbar(xv, yv, xerr=_err(xv, xlo, xhi), yerr=_err(yv, ylo, yhi), fmt="none",
                        ecolor=cols[i], elinewidth=0.8, alpha=0.45, capsize=2, zorder=2)
        ax.scatter([x0], [y0], s=_size(8.5, place, 4), marker="o", color=cols[i],
                   edgecolor="k", zorder=3 - 0.01 * place, label=f"{e.label}")
        if abs(x1 - x0) + abs(y1 - y0) > 1e-9:
            ax.annotate(
                "",
                xy=(x1, y1),
                xytext=(x0, y0),
                zorder=4,
                arrowprops={"arrowstyle": "-|>", "color": cols[i], "lw": 2},
            )
        else:
            ax.scatter([x1], [y1], s=_size(13, place, 4), marker="o", facecolor="none",
                       edgecolor=cols[i], zorder=3)
    ax.scatter(
        [], [], s=70, marker="o", color="w", edgecolor="k", label="composite (arrow to split)"
    )
    ax.scatter([], [], s=160, marker="o", facecolor="none", edgecolor="k", label="ring: no shift")
    ax.set_title(title)
    _legend(ax)
    return _save(fig, path, f"{CI_NOTE} {NESTED_NOTE}")


Bar = tuple[float, float | None, float | None, bool]
"""A bar: value, CI low, CI high, descriptive (drawn grey and hatched)."""
DESCRIPTIVE_NOTE = (f" Pale hatched bars, values marked {DESCRIPTIVE}: descriptive (a probe or "
                    f"environment family of fewer than {MIN_GROUPS} groups).")


def _bars(ax, labels, series, colors, ylabel, title, ylim=(0, 1.15)) -> bool:
    """Grouped bars: ``series`` = [(judge, [Bar or None per label])]. Each bar carries its
    value (so 0 is visible) and its CI whisker; a missing value says "not run"; a descriptive
    one keeps its judge's colour, pale and hatched, its value marked with a dagger (so each
    judge can still be told apart by colour). ``ylim`` below 0 makes room for signed values
    (e.g. Task A's deltas). Returns whether a bar was descriptive."""
    import numpy as np
    from matplotlib.colors import to_rgb

    greyed = False
    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(labels))
    for k, (name, vals) in enumerate(series):
        pos = x - 0.4 + width * (k + 0.5)
        heights = [0.0 if v is None else v[0] for v in vals]
        bars = ax.bar(pos, heights, width, color=colors[k], edgecolor="k", lw=0.5, label=name)
        for rect, v in zip(bars, vals, strict=True):
            cx = rect.get_x() + rect.get_width() / 2
            if v is None:
                ax.text(cx, 0.02, "not run", ha="center", va="bottom", fontsize=6, rotation=90,
                        color="0.35")
                continue
            if v[3]:
                rect.set_facecolor((*to_rgb(colors[k]), 0.35))
                rect.set_edgecolor(colors[k])
                rect.set_hatch("///")
                greyed = True
            ax.errorbar(cx, v[0], yerr=_err(v[0], v[1], v[2]), fmt="none", ecolor="0.2",
                        elinewidth=0.8, capsize=1.5)
            _label(ax, cx, v)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return greyed


LABEL_GAP = 4.0
"""Points between a bar's value label and the far end of its bar or whisker cap."""


def _label(ax, x: float, bar: Bar) -> None:
    """A bar's value beyond the far end of what is drawn for it (the bar, or its whisker cap
    when the CI reaches further): above a bar of 0 or more, below a negative one, so the label
    never touches a cap, a whisker or the bar."""
    v, lo, hi = bar[0], bar[1], bar[2]
    up = v >= 0
    end = max(v, v if hi is None else hi) if up else min(v, v if lo is None else lo)
    ax.annotate(fnum(v) + (DESCRIPTIVE if bar[3] else ""), (x, end),
                xytext=(0, LABEL_GAP if up else -LABEL_GAP),
                textcoords="offset points", ha="center", va="bottom" if up else "top",
                fontsize=5.5, rotation=90)


def _cell(block, name) -> Bar | None:
    v, lo, hi = _value_ci(block, name)
    if v is None:
        return None
    return v, lo, hi, is_descriptive(metric_of(block, name))


def fig_stability(data: ReportData, path: Path, world: str = "minigrid",
                  title: str = "by probe family (Fig. 4)") -> Path:
    plt = _plt()
    keys: list[tuple[str, str]] = []
    for e in data.judges:
        for scope, fam, fb in family_blocks(e, world):
            if (fb.count("n_levels") or 0) >= 2 and (scope, fam) not in keys:
                keys.append((scope, fam))
    labels = [f"{fam}\n({scope})" for scope, fam in keys]
    cols = _colors(len(data.judges))
    fig, axes = plt.subplots(2, 1, figsize=(max(7.5, 1.3 * len(keys) + 3), 7.2), sharex=True)
    greyed = False
    for ax, metric, name in (
        (axes[0], "ns", "NS (agreement with baseline)"),
        (axes[1], "jcr", "JCR (groups never flipping)"),
    ):
        series = []
        for e in data.judges:
            fbs = {(s, f): fb for s, f, fb in family_blocks(e, world)}
            series.append((e.label, [_cell(fbs.get(k), metric) for k in keys]))
        greyed = _bars(ax, labels, series, cols, name, f"{metric.upper()} {title}") or greyed
    axes[0].legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    axes[1].set_xlabel("probe family (scope)")
    return _save(fig, path, CI_NOTE + (DESCRIPTIVE_NOTE if greyed else ""))


def _panels(data: ReportData, path: Path, value, panels, suptitle: str, sharey: bool) -> Path:
    """Two bar panels side by side, one bar per judge and (label, task, metric) spec: ``panels``
    = [(specs, title, ylim, dotted lines)]; a panel whose tasks no judge ran says so instead of
    drawing zeros. ``value(entry, task, metric)`` gives (value, low, high) or None."""
    plt = _plt()
    cols = _colors(len(data.judges))
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.0), sharey=sharey)
    for ax, (spec, title, ylim, lines) in zip(axes, panels, strict=True):
        series = [(e.label, [value(e, t, m) for _n, t, m in spec]) for e in data.judges]
        if all(v is None for _j, vals in series for v in vals):
            tasks = ", ".join(sorted({t.split("/")[0] for _n, t, _m in spec}))
            ax.text(0.5, 0.5, f"no data: tasks {tasks} were not run\nfor any judge shown",
                    ha="center", va="center", fontsize=10, color="0.35", transform=ax.transAxes)
            ax.set_title(title, fontsize=10)
            ax.set_xticks([])
            continue
        _bars(ax, [n for n, _t, _m in spec], series, cols, "score", title, ylim)
        for y in lines:
            ax.axhline(y, color="0.4", ls=":", lw=1)
    handles, names = axes[0].get_legend_handles_labels()
    if not handles:
        handles, names = axes[1].get_legend_handles_labels()
    axes[1].legend(handles, names, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                   frameon=False)
    fig.suptitle(suptitle)
    return _save(fig, path, CI_NOTE)


def _value(e, key: str, metric: str):
    """(value, low, high) of ``metric`` at ``key``: "C/composite" (a representation of a Task
    C-style config), a reference-aided task's causal block ("D", "MD"), else a control task's
    figures ("A", "MA", "B", "E"); None where the judge has none."""
    task, _, rep = key.partition("/")
    if rep:
        return _cell(c_causal(e, rep, task), metric)
    if task_spec(task).recipe == "reference_aided":
        return _cell(causal_scope(e.results, task), metric)
    return _cell(control(e, task), metric)


def _world_tasks(world: str) -> tuple[str, str, str]:
    """``world``'s tasks of Task A's, C's and D's recipes, from the task table."""
    a, c, d = (world_task(r, world) for r in ("next_state", "presentation_invariance",
                                              "reference_aided"))
    return a, c, d


def fig_controls(data: ReportData, path: Path) -> Path:
    a, c, d = _world_tasks("minigrid")
    b, e = world_task("perception"), world_task("state_tracking")
    judging = (
        (f"JAcc_neu ({c})", f"{c}/composite", "jacc_neu"),
        (f"IDR_raw ({c})", f"{c}/composite", "idr_raw"),
        (f"IDR_raw ({d})", d, "idr_raw"),
    )
    local = (("B_Acc@0.90", b, "b_acc_090"), ("E_Acc", e, "e_acc"), ("Acc_A1", a, "acc_a1"))
    return _panels(data, path, _value, (
        (judging, "judging metrics", (0, 1.15), ()),
        (local, "local controls (A1 chance = 0.25)", (0, 1.15), (0.25,)),
    ), "Local controls beside judging metrics (Fig. 5)", sharey=True)


def fig_miniworld_controls(data: ReportData, path: Path) -> Path:
    """MiniWorld's IDR_raw per judge for MC (each representation) and MD, beside MA's Acc_A1
    and its deltas (signed: Acc_orig - Acc_shuffled/masked, so the axis goes below 0)."""
    a, c, d = _world_tasks("miniworld")
    judging = (
        (f"JAcc_neu\n({c} composite)", f"{c}/composite", "jacc_neu"),
        (f"IDR_raw\n({c} composite)", f"{c}/composite", "idr_raw"),
        (f"IDR_raw\n({c} split)", f"{c}/split", "idr_raw"),
        (f"IDR_raw\n({d})", d, "idr_raw"),
    )
    local = (("Acc_A1", a, "acc_a1"), ("Delta_shuffle", a, "delta_shuffle"),
             ("Delta_mask", a, "delta_mask"))
    return _panels(data, path, _value, (
        (judging, f"judging metrics ({c}, {d})", (0, 1.15), ()),
        (local, f"action use ({a}; Acc_A1 chance = 0.25)", (-1.3, 1.3), (0.25, 0.0)),
    ), "MiniWorld (3D): IDR beside action use (Fig. 5 counterpart)", sharey=False)


def write_figures(data: ReportData, out: Path,
                  figures: Mapping[str, Callable[[ReportData, Path], Path]]) -> list[Path]:
    """Write ``figures`` (file name -> function) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    return [fn(data, out / name) for name, fn in figures.items()]

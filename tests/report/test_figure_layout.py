"""Figure layout and signed-number formats, read from the matplotlib objects and rendered text:
value labels clear of bars and whiskers, the Oracle-State differences figure's axis, and one
format for every difference a table prints."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from figure_checks import assert_labels_clear, assert_one_sign_format  # tests/report/

from gridwm_judge.report import oracle_state, plots
from gridwm_judge.report.table import fdiff, fsigned, fsigned_ci
from gridwm_judge.results import MetricResult, Results

BARS = [(0.5, 0.3, 0.7, False), (1.0, 0.9, 1.0, False), (0.6, 0.2, 0.55, False),
        (0.0, 0.0, 0.0, False), (0.2, None, None, True), None, (-0.4, -0.6, 0.1, False),
        (-1.0, -1.0, -0.8, False), (-0.1, -0.05, 0.3, False)]


@pytest.mark.parametrize("shape", [("fig4", (7.5, 7.2), 2, (0, 1.15)),
                                   ("fig5", (11, 5.0), 1, (-1.3, 1.3))])
def test_bar_value_labels_clear_bars_whiskers_and_caps(shape):
    _name, size, rows, ylim = shape
    plt = plots._plt()
    fig, axes = plt.subplots(rows, 1 if rows == 2 else 2, figsize=size)
    values = BARS if ylim[0] < 0 else [b for b in BARS if b is None or b[0] >= 0]
    series = [(f"judge {k}", values) for k in range(5)]
    for ax in axes:
        plots._bars(ax, [f"m{i}" for i in range(len(values))], series, plots._colors(5), "score",
                    "t", ylim)
    fig.tight_layout()
    assert assert_labels_clear(fig) == len(axes) * 5 * sum(v is not None for v in values)
    plt.close(fig)


def test_a_descriptive_bar_keeps_its_judge_s_colour():
    """Each judge's bars keep its colour when descriptive (pale, hatched, value marked †), so
    the legend's judges can still be told apart where every bar is descriptive (Fig. 4 at
    quickstart and base sizes)."""
    from matplotlib.colors import to_rgb

    plt = plots._plt()
    fig, ax = plt.subplots()
    colors = plots._colors(3)
    series = [(f"judge {k}", [(0.5, 0.3, 0.7, True), (0.4, 0.2, 0.6, False)]) for k in range(3)]
    assert plots._bars(ax, ["a", "b"], series, colors, "score", "t")
    faces = [p.get_facecolor() for p in ax.patches]
    for k in range(3):
        pale, solid = faces[2 * k], faces[2 * k + 1]
        assert pale[:3] == pytest.approx(to_rgb(colors[k])) and pale[3] < 0.5
        assert solid[:3] == pytest.approx(to_rgb(colors[k])) and solid[3] == 1
    assert len({f[:3] for f in faces[::2]}) == 3   # three judges, three colours
    labels = [t.get_text() for t in ax.texts]
    assert labels.count("0.500†") == 3 and labels.count("0.400") == 3
    plt.close(fig)


def _os_results(joint, idr) -> Results:
    rows = []
    for arm, (jv, jci), (iv, ici) in zip(("state", "pixel_state"), joint, idr, strict=True):
        where = {"task": "OS", "world": "minigrid", "arm": arm, "baseline": "pixel"}
        rows += [MetricResult(name="joint", value=jv, ci=jci, ci_env=(jci[0] - 0.05, jci[1]),
                              env_level=True, **where),
                 MetricResult(name="idr_raw", value=iv, ci=ici, **where),
                 MetricResult(name="mcnemar_idr", value=1.0, p_value=0.5, method="exact",
                              denominator=4, **where)]
    return Results(rows)


def test_oracle_state_differences_axis_is_labelled_and_fitted(monkeypatch, tmp_path):
    drawn = []
    monkeypatch.setattr(oracle_state, "_save", lambda fig, path, note=None: drawn.append(fig))
    entry = SimpleNamespace(label="j", results=_os_results(
        [(0.10, (0.02, 0.18)), (-0.05, (-0.12, 0.03))],
        [(0.20, (0.12, 0.31)), (0.15, (0.04, 0.22))]))
    oracle_state.fig_differences(SimpleNamespace(judges=(entry,)), tmp_path / "f.png")  # type: ignore[arg-type]
    (fig,) = drawn
    spans = {0: [0.0, 0.10, 0.02, 0.18, -0.03, -0.05, -0.12, 0.03, -0.17],
             1: [0.0, 0.20, 0.12, 0.31, 0.15, 0.04, 0.22]}
    for i, ax in enumerate(fig.axes[:2]):
        assert ax.get_xlabel(), "the differences figure needs an x-axis label"
        lo, hi = ax.get_xlim()
        assert lo < min(spans[i]) and hi > max(spans[i])  # every CI and 0, with a margin
        assert lo > -0.5 and hi < 0.5  # fitted, not the whole [-1, 1]


def test_signed_figures_one_format():
    assert [fsigned(x) for x in (0.12, -0.135, 0.0, -0.0001, 1e-4, None)] == \
        ["+0.120", "-0.135", "0.000", "0.000", "0.000", "–"]
    assert fsigned_ci((-0.21, 0.06)) == "[-0.21, +0.06]"


def test_a_delta_reads_as_a_difference_with_its_ci_not_a_count():
    m = {"value": -0.135, "num": -14, "den": 104, "ci": [-0.21, -0.06]}
    text = fdiff(m, "paired questions")
    assert text == "-0.135 [-0.21, -0.06], 104 paired questions"
    assert "/104" not in text and "-14" not in text
    env = fdiff({**m, "ci_env": [-0.3, 0.0]})
    assert env == "-0.135 [-0.21, -0.06; env -0.30, 0.00]"


def test_oracle_state_differences_table_in_the_one_sign_format():
    entry = SimpleNamespace(label="j", results=_os_results(
        [(0.10, (0.02, 0.18)), (0.0, (-0.12, 0.03))], [(-0.20, (-0.31, -0.12)), (0.15, None)]))
    table = oracle_state.differences(SimpleNamespace(judges=(entry,)))  # type: ignore[arg-type]
    assert assert_one_sign_format([table]) >= 10
    md = table.markdown()
    assert "+0.100 [+0.02, +0.18; env -0.03, +0.18]" in md and "| 0.000 [" in md


def test_a_range_of_zeros_is_not_magnified():
    assert oracle_state.fitted_range([0.0, 0.0]) == pytest.approx((-0.1, 0.1))
    lo, hi = oracle_state.fitted_range([0.0, -1.0, 1.0])
    assert (lo, hi) == (-1.05, 1.05)


def test_a_signed_metric_cell_renders_as_a_difference():
    from gridwm_judge.report.table import Table, fmetric

    m = {"value": 0.12, "num": None, "den": None, "ci": [-0.05, 0.3], "signed": True}
    assert fmetric(m) == "+0.120 [-0.05, +0.30]"
    table = Table("t", "t", ("judge", "Delta IDR_raw"), (("j", m), ("k", {**m, "value": 0.0})))
    assert assert_one_sign_format([table]) == 6
    assert "t_ci_lo" not in table.csv() and "Delta IDR_raw_ci_lo" in table.csv()
    from gridwm_judge.report import prompt_ablation

    pa = prompt_ablation._diff(MetricResult(task="PA", world="minigrid", name="idr_raw",
                                            value=-0.25, ci=(-0.5, 0.0)))
    assert fmetric(pa) == "-0.250 [-0.50, 0.00]"


def _plane_entry(label: str, composite: tuple[float, float], split: tuple[float, float]):
    rows = []
    for rep, (x, y) in (("composite", composite), ("split", split)):
        where = {"task": "C", "world": "minigrid", "representation": rep}
        rows += [MetricResult(name="g_active", value=10.0, **where),
                 MetricResult(name="p_active", value=x, ci=(max(0.0, x - 0.1), x), **where),
                 MetricResult(name="idr_raw", value=y, ci=(max(0.0, y - 0.1), y), **where)]
    return SimpleNamespace(label=label, results=Results(rows))


PLANE = {"a": ((1.0, 1.0), (1.0, 1.0)), "b": ((1.0, 1.0), (0.9, 0.5)),
         "c": ((0.0, 0.0), (0.0, 0.0)), "d": ((1.0, 0.98), (1.0, 0.98)),
         "e": ((1.0, 1.0), (1.0, 1.0))}
"""Judges on the plane's boundary: three at (1, 1), one just under the diagonal at p_active 1."""


@pytest.mark.parametrize("draw", ["fig_activation", "fig_shift"])
def test_points_on_the_activation_plane_are_drawn_at_their_values(monkeypatch, tmp_path, draw):
    """Every marker sits at its judge's (p_active, IDR_raw), on the boundary too: nothing is
    nudged inwards (a point at p_active 1 moved left of its IDR_raw would sit in the impossible
    region); judges at one spot are nested, each marker a size larger than the one before."""
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, note=None: drawn.append(fig))
    data = SimpleNamespace(judges=tuple(_plane_entry(k, *v) for k, v in PLANE.items()))
    getattr(plots, draw)(data, tmp_path / "f.png")  # type: ignore[arg-type]
    (fig,) = drawn
    ax = fig.axes[0]
    fig.canvas.draw()
    seen = {}
    for col in ax.collections:
        label = col.get_label()
        judge, _, rep = label.partition(" (")
        if judge not in PLANE or not len(col.get_offsets()):
            continue
        (x, y), = col.get_offsets().tolist()
        rep = rep.rstrip(")") or "composite"
        assert (x, y) == PLANE[judge][0 if rep == "composite" else 1], (label, x, y)
        assert 0.0 <= y <= x <= 1.0, (label, x, y)  # never in the impossible region
        seen[(judge, rep)] = col.get_sizes()[0]
    assert {j for j, _r in seen} == set(PLANE)
    ones = [seen[(j, "composite")] for j in ("a", "b", "e")]  # three judges at (1, 1)
    assert ones == sorted(ones) and len(set(ones)) == 3
    frame = ax.get_window_extent()
    for col in ax.collections:  # a marker past the axes is clipped to them, never moved
        if col.get_label() in {f"{j} (composite)" for j in PLANE} | set(PLANE):
            assert col.get_clip_on() and col.get_clip_box() is not None
            assert col.get_clip_box().bounds == pytest.approx(frame.bounds)
    plots._plt().close(fig)


def _pa_entry(label: str, k: int):
    pairs = [("structured_verdict", "direct"), ("structured_rationale", "direct"),
             ("structured_rationale", "structured_verdict")]
    rows = []
    for i, (a, b) in enumerate(pairs):
        where = {"task": "PA", "world": "minigrid", "style": a, "baseline": b}
        v = 0.05 * (k - 2) + 0.03 * i
        rows += [MetricResult(name="mcnemar_idr", value=1.0, p_value=0.3, method="exact",
                              denominator=5, **where),
                 MetricResult(name="idr_raw", value=v, ci=(v - 0.15, v + 0.12),
                              ci_env=(v - 0.2, v + 0.2), env_level=True, **where)]
    return SimpleNamespace(label=label, results=Results(rows))


def _line_boxes(ax, skip):
    """Display-space boxes of the lines drawn on ``ax`` (their width and markers included)."""
    from matplotlib.transforms import Bbox

    px = ax.figure.dpi / 72
    boxes = []
    for line in ax.lines:
        if line in skip:
            continue
        pts = ax.transData.transform(line.get_xydata())
        h = max(line.get_linewidth(), line.get_markersize() if line.get_marker() else 0) * px / 2
        boxes.append(Bbox([[pts[:, 0].min() - h, pts[:, 1].min() - h],
                           [pts[:, 0].max() + h, pts[:, 1].max() + h]]))
    for col in ax.collections:
        r = (col.get_sizes()[0] ** 0.5) * px / 2 if len(col.get_sizes()) else 0
        for x, y in ax.transData.transform(col.get_offsets()):
            boxes.append(Bbox([[x - r, y - r], [x + r, y + r]]))
    return boxes


@pytest.mark.parametrize("n_judges", [1, 4, 9])
def test_prompt_ablation_labels_do_not_overlap(monkeypatch, tmp_path, n_judges):
    """The figure's tick labels and value labels, read from the drawn figure: no two overlap,
    no value label crosses a bar, whisker or point, and each stays inside the axes."""
    from gridwm_judge.report import prompt_ablation

    drawn = []
    monkeypatch.setattr(prompt_ablation, "_save", lambda fig, path, note=None: drawn.append(fig))
    data = SimpleNamespace(judges=tuple(_pa_entry(f"judge-{k}", k) for k in range(n_judges)))
    prompt_ablation.fig_prompt_ablation(data, tmp_path / "f.png")  # type: ignore[arg-type]
    (fig,) = drawn
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ax = fig.axes[0]
    values = [t for t in ax.texts if t.get_text()]
    assert len(values) == 3 * n_judges
    ticks = [t for t in (*ax.get_yticklabels(), *ax.get_xticklabels()) if t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in (*ticks, *values)]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), f"label {a!r} overlaps {b!r}"
    zero = [line for line in ax.lines if list(line.get_xdata()) == [0.0, 0.0]]
    obstacles = _line_boxes(ax, skip=zero)
    frame = ax.get_window_extent()
    for t in values:
        box = t.get_window_extent(renderer)
        assert not [b for b in obstacles if box.overlaps(b)], f"{t.get_text()} crosses a bar"
        assert frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
    plots._plt().close(fig)

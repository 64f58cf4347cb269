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

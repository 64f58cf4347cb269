"""What a report table's cell says for each kind of figure: a p-value never reads 0.000, a mean
shows its n (not a count fraction), a difference its signed value and unsigned n (not a
negative count); decimals follow one rule per kind."""

from __future__ import annotations

from types import SimpleNamespace

from gridwm_judge.report import controls, shortcuts
from gridwm_judge.report.table import fmetric, with_unit
from gridwm_judge.results import MetricResult, Results


def _r(task, name, value, **kw) -> MetricResult:
    return MetricResult(task=task, world="minigrid", name=name, value=value, **kw)


def _entry(judge: str, results: list[MetricResult]):
    return SimpleNamespace(label=judge, judge=judge, results=Results(results),
                           scores=SimpleNamespace(coverage={}))


def test_controls_show_a_mean_with_its_n_and_a_tiny_p_as_below_the_floor():
    entry = _entry("j", [
        _r("B", "b_mean_score", 8.8 / 12, numerator=8.8, denominator=12, ci=(0.61, 0.85)),
        _r("B", "b_acc_090", 0.5, numerator=6, denominator=12, ci=(0.25, 0.75)),
        _r("A", "acc_a1", 0.9, numerator=36, denominator=40, ci=(0.8, 1.0)),
        _r("A", "delta_shuffle", 0.5, numerator=20, denominator=40, ci=(0.35, 0.65)),
        _r("A", "mcnemar", 20.0, denominator=40, p_value=2e-9, method="exact",
           condition="shuffle"),
    ])
    table = controls.controls(SimpleNamespace(judges=(entry,)))  # type: ignore[arg-type]
    row = dict(zip(table.columns, table.markdown().splitlines()[4].split(" | "), strict=False))
    assert row["B_MeanScore"] == "0.733 [0.61, 0.85], 12 items"
    assert row["B_Acc@0.90"] == "0.500 (6/12) [0.25, 0.75]"
    assert "+0.500 [+0.35, +0.65], 40 paired questions, McNemar p < 0.001 (n = 40)" \
        in row["Delta_shuffle"]
    assert "0.000" not in table.markdown()


def test_the_nocue_lift_is_a_signed_difference_over_its_groups_not_a_negative_count():
    composite = {"representation": "composite"}
    lift = {"numerator": -4.0, "denominator": 12.0, "ci": (-0.58, -0.08)}
    entry = _entry("baseline:first-frame", [
        _r("C", "g_active", 12.0, **composite), _r("C", "n_pairs", 12.0, **composite),
        _r("C", "idr_raw", 0.5, numerator=6, denominator=12, ci=(0.25, 0.75), **composite),
        _r("C", "acc_cf", 0.5, numerator=6, denominator=12, ci=(0.25, 0.75), **composite),
        _r("C", "nocue_lift", -4 / 12, **lift, **composite),
        _r("C", "nocue_lift", -1 / 3, numerator=-1.0, denominator=3.0, family="doorkey",
           **composite),
    ])
    data = SimpleNamespace(judges=(entry,), asked=lambda tasks: "C" in tasks)
    md = shortcuts.ceiling(data).markdown()  # type: ignore[arg-type]
    assert "| -0.333 [-0.58, -0.08], 12 groups |" in md
    assert "| -0.333, 3 groups |" in md  # a family of 3 groups: no interval
    assert "(-4/12)" not in md and "(-1/3)" not in md
    assert "| 0.500 (6/12) [0.25, 0.75] |" in md


def test_a_cell_with_a_unit_keeps_the_descriptive_mark():
    m = {"value": 0.25, "num": 3.0, "den": 12, "ci": None, "status": "descriptive"}
    assert fmetric(with_unit(m, "items")) == "0.250, 12 items†"
    assert fmetric(with_unit({**m, "value": -0.25, "num": -3.0}, "groups", signed=True)) == \
        "-0.250, 12 groups†"


def test_a_signed_cell_keeps_its_net_count_for_json_and_one_item_is_singular():
    m = {"value": -1 / 3, "num": -1.0, "den": 1, "ci": None, "status": "descriptive"}
    cell = with_unit(m, "groups", signed=True)
    assert cell is not None and cell["num"] == -1.0  # JSON and CSV keep the metric object
    assert fmetric(cell) == "-0.333, 1 group†"

"""What a report table's cell says for each kind of figure: a p-value never reads 0.000, a mean
shows its n (not a count fraction), a difference its signed value and unsigned n (not a
negative count); decimals follow one rule per kind. A metric result is a cell as it is: every
rendering shows it as it shows its metric object (:func:`metric_obj`)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gridwm_judge.report import controls, shortcuts
from gridwm_judge.report.table import (
    Shown,
    Table,
    fdiff,
    fmetric,
    is_descriptive,
    metric_obj,
    shown,
    sort_value,
)
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
    assert fmetric(shown(m, unit="items")) == "0.250, 12 items†"
    assert fmetric(shown({**m, "value": -0.25, "num": -3.0}, unit="groups", signed=True)) == \
        "-0.250, 12 groups†"
    r = _r("B", "b_mean_score", 0.25, numerator=3.0, denominator=12, family="doorkey",
           groups=4, status="descriptive")
    assert fmetric(shown(r, unit="items")) == "0.250, 12 items†"
    assert shown(None, unit="items") is None


def test_a_signed_cell_keeps_its_net_count_for_json_and_one_item_is_singular():
    m = {"value": -1 / 3, "num": -1.0, "den": 1, "ci": None, "status": "descriptive"}
    cell = metric_obj(shown(m, unit="groups", signed=True))
    assert cell is not None and cell["num"] == -1.0  # JSON and CSV keep the metric object
    assert fmetric(cell) == "-0.333, 1 group†"


# -- a metric result is a table cell -------------------------------------------------------

FULL = _r("D", "idr_raw", 0.5, numerator=5.0, denominator=10.0, ci=(0.2, 0.8),
          ci_env=(0.1, 0.9), env_level=True, groups=10)
FAMILY = _r("C", "ns", 0.25, numerator=1.0, denominator=4.0, ci=(0.0, 0.75), probe="visual",
            groups=4, status="descriptive", representation="composite")
LOW_ACTIVATION = _r("C", "idr_cond", 1.0, numerator=3.0, denominator=3.0, status="descriptive",
                    representation="composite")
EMPTY = _r("C", "idr_raw", None, numerator=0.0, denominator=0.0, status="undefined",
           representation="composite")


def test_a_result_as_a_cell_is_the_metric_object_tables_json_hold():
    assert metric_obj(FULL) == {"value": 0.5, "ci": [0.2, 0.8], "num": 5.0, "den": 10.0,
                                "ci_env": [0.1, 0.9]}
    assert list(metric_obj(FULL) or ()) == ["value", "ci", "num", "den", "ci_env"]
    assert metric_obj(FAMILY) == {"value": 0.25, "ci": [0.0, 0.75], "num": 1.0, "den": 4.0,
                                  "status": "descriptive"}
    # IDR_cond's own "descriptive" (low activation) is written "unstable" by its table
    assert "status" not in (metric_obj(LOW_ACTIVATION) or {})
    assert metric_obj(EMPTY) == {"value": None, "ci": None, "num": 0.0, "den": 0.0}
    no_env = _r("D", "idr_raw", 0.5, ci_env=(0.1, 0.9))  # no environment bootstrap was run
    assert "ci_env" not in (metric_obj(no_env) or {})
    assert metric_obj("0.5") is None and metric_obj(None) is None and metric_obj(3) is None
    assert is_descriptive(FAMILY) and not is_descriptive(FULL)
    assert not is_descriptive(LOW_ACTIVATION)


@pytest.mark.parametrize("cell", [FULL, FAMILY, LOW_ACTIVATION, EMPTY,
                                  Shown(FULL, unit="pairs", signed=True),
                                  Shown(FAMILY, ci=False), Shown(FULL, counts=False)])
def test_a_result_renders_as_its_metric_object_in_every_rendering(cell):
    obj = metric_obj(cell)
    assert obj is not None
    assert fmetric(cell) == fmetric(obj) and fdiff(cell) == fdiff(obj)
    assert sort_value(cell) == sort_value(obj)
    by_result = Table("t", "T", ("judge", "m", "n"), (("j", cell, 3), ("k", None, 4)))
    by_object = Table("t", "T", ("judge", "m", "n"), (("j", obj, 3), ("k", None, 4)))
    for render in (Table.markdown, Table.csv, Table.json, Table.html, Table.text):
        assert render(by_result) == render(by_object), render.__name__


def test_shown_changes_only_what_it_names():
    assert metric_obj(Shown(FULL, counts=False)) == {"value": 0.5, "ci": [0.2, 0.8],
                                                     "num": None, "den": None,
                                                     "ci_env": [0.1, 0.9]}
    assert metric_obj(Shown(FAMILY, ci=False)) == {"value": 0.25, "num": 1.0, "den": 4.0,
                                                   "status": "descriptive"}
    assert fmetric(Shown(FULL, counts=False)) == "0.500 [0.20, 0.80; env 0.10, 0.90]" == \
        fmetric(FULL, count=False)
    assert fmetric(Shown(FAMILY, ci=False)) == "0.250 (1/4)†"
    assert fmetric(Shown(FULL, signed=True, counts=False)) == \
        "+0.500 [+0.20, +0.80; env +0.10, +0.90]"
    assert list(metric_obj(Shown(FULL, unit="pairs", signed=True)) or ())[-2:] == \
        ["unit", "signed"]
    with pytest.raises(TypeError, match="no metric"):
        metric_obj(Shown("0.5"))  # type: ignore[arg-type]

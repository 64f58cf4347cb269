"""The flat metric results: the record, its queries, its JSON and the shipped JSON Schema."""

import dataclasses

import pytest

from gridwm_judge.results import (
    ALWAYS_WRITTEN,
    METRIC_NAMES,
    SCOPE_FIELDS,
    STATUSES,
    MetricResult,
    Results,
    scores_schema,
)

jsonschema = pytest.importorskip("jsonschema")


def _r(name="idr_raw", value=0.5, **kw):
    return MetricResult(task=kw.pop("task", "C"), world="minigrid", name=name, value=value, **kw)


RESULTS = Results([
    _r(representation="composite", numerator=5.0, denominator=10.0, ci=(0.2, 0.8), groups=10),
    _r(representation="split", value=0.4),
    _r(representation="composite", family="doorkey", value=1.0),
    _r("ns", 0.9, representation="composite", probe="framing"),
    _r(task="D", value=0.3, ci_env=(0.1, 0.6), env_level=True, protocol="all_groups"),
    _r(task="PA", style="structured_verdict", baseline="direct", value=-0.25),
    _r(task="PA", style="structured_verdict", value=0.5),
])


def test_one_names_a_full_scope_and_select_leaves_fields_open():
    assert RESULTS.value(task="C", representation="composite", name="idr_raw") == 0.5
    assert RESULTS.value(task="C", representation="composite", family="doorkey",
                         name="idr_raw") == 1.0
    assert len(RESULTS.select(task="C", representation="composite", name="idr_raw")) == 2
    assert RESULTS.one(task="C", name="idr_raw") is None  # no C figure without a representation
    # a level and a paired difference share a name; the difference names its baseline
    assert RESULTS.value(task="PA", style="structured_verdict", name="idr_raw") == 0.5
    assert RESULTS.value(task="PA", style="structured_verdict", baseline="direct",
                         name="idr_raw") == -0.25
    assert RESULTS.value(task="D", name="idr_raw") == 0.3  # protocol only describes a figure
    assert RESULTS.values_of("representation", task="C") == ("composite", "split")
    assert RESULTS.tasks == ("C", "D", "PA")


def test_a_query_that_matches_several_or_names_an_unknown_field_is_an_error():
    with pytest.raises(LookupError, match="2 results match"):
        Results([_r(), _r(value=0.1)]).one(task="C", name="idr_raw")
    with pytest.raises(ValueError, match="unknown result field 'rep'"):
        RESULTS.select(rep="composite")


def test_a_query_for_an_unknown_metric_name_or_status_is_an_error_not_an_empty_match():
    for query in (RESULTS.select, RESULTS.one, RESULTS.value):
        with pytest.raises(ValueError) as err:
            query(task="C", name="idr_rwa")
        assert str(err.value).startswith("unknown result name 'idr_rwa'; expected one of "
                                         "jacc_neu, acc_full")
        assert "idr_raw" in str(err.value)
    with pytest.raises(ValueError, match="unknown result status 'unstable'; expected one of ok"):
        RESULTS.select(status="unstable")
    # a known name with no results here is an empty match, as before
    assert RESULTS.select(name="e_acc") == Results() and RESULTS.one(name="e_acc") is None
    assert len(RESULTS.select(name="idr_raw", status="ok")) == 6


def test_bad_names_and_statuses_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown metric name 'idr'"):
        _r("idr")
    with pytest.raises(ValueError, match="unknown result status 'unstable'"):
        _r(status="unstable")
    with pytest.raises(ValueError, match="unknown field 'extra'"):
        MetricResult.from_json({**_r().to_json(), "extra": 1})


def test_the_closed_vocabularies_are_one_registry_read_when_asked(monkeypatch):
    """A name added to METRIC_NAMES is accepted by the record and by queries at once (the
    schema and the bridges read the same registry: tests/integrations/test_generated_files.py);
    any other name stays an error."""
    from gridwm_judge import results

    assert results.vocabulary() == {"name": METRIC_NAMES, "status": STATUSES}
    with pytest.raises(ValueError, match="unknown metric name 'toy'; expected one of jacc_neu"):
        _r("toy")
    monkeypatch.setattr(results, "METRIC_NAMES", (*METRIC_NAMES, "toy"))
    assert results.vocabulary()["name"][-1] == "toy"
    toy = _r("toy")
    assert Results([*RESULTS, toy]).one(task="C", name="toy") == toy
    with pytest.raises(ValueError, match="unknown result name 'toys'"):
        Results([toy]).select(name="toys")


def test_json_round_trip_writes_only_the_fields_that_are_set():
    for r in RESULTS:
        assert MetricResult.from_json(r.to_json()) == r
    obj = RESULTS[0].to_json()
    assert obj == {"task": "C", "world": "minigrid", "name": "idr_raw", "value": 0.5,
                   "ci": [0.2, 0.8], "numerator": 5.0, "denominator": 10.0, "groups": 10,
                   "status": "ok", "representation": "composite"}
    undefined = _r(value=None, status="undefined").to_json()
    assert list(undefined) == list(ALWAYS_WRITTEN) and undefined["value"] is None
    zero = _r(value=0.0, numerator=0.0, denominator=4.0)
    assert zero.to_json()["numerator"] == 0.0  # a zero is written, only None / False are not


def test_the_shipped_schema_matches_the_record():
    schema = scores_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    result = schema["$defs"]["result"]
    assert result["properties"]["name"]["enum"] == list(METRIC_NAMES)
    assert result["properties"]["status"]["enum"] == list(STATUSES)
    assert set(result["properties"]) == {f.name for f in dataclasses.fields(MetricResult)}
    assert result["required"] == list(ALWAYS_WRITTEN)
    assert set(SCOPE_FIELDS) <= set(result["properties"])
    one_result = {"$defs": schema["$defs"], "$ref": "#/$defs/result"}
    validator = jsonschema.Draft202012Validator(one_result)
    for r in RESULTS:
        validator.validate(r.to_json())
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**RESULTS[0].to_json(), "name": "idr"})


def test_a_family_or_probe_figure_under_min_groups_is_descriptive():
    """The reporting rule: a per-family or per-probe figure over fewer than MIN_GROUPS groups
    is descriptive; the whole scope's figure, a count, and a figure of MIN_GROUPS are not."""
    from gridwm_judge.results import MIN_GROUPS, reporting_status

    def fig(groups, **scope):
        return MetricResult(task="C", world="minigrid", name="idr_raw", value=0.5,
                            groups=groups, **scope)

    assert reporting_status(fig(MIN_GROUPS - 1, family="doorkey")).status == "descriptive"
    assert reporting_status(fig(MIN_GROUPS - 1, probe="visual")).status == "descriptive"
    assert reporting_status(fig(MIN_GROUPS, probe="visual")).status == "ok"
    assert reporting_status(fig(3)).status == "ok"  # the headline scope: CI and groups shown
    count = MetricResult(task="C", world="minigrid", name="n_pairs", value=3.0, family="x")
    assert reporting_status(count).status == "ok"
    undefined = MetricResult(task="C", world="minigrid", name="ns", value=None, groups=0,
                             probe="visual", status="undefined")
    assert reporting_status(undefined).status == "undefined"
    assert reporting_status(fig(40, family="d")).status == "ok"

"""The JSON Schema of scores.json, written once here and generated into the package's
``schemas/scores.schema.json`` by ``python -m gridwm_judge.integrations.generate`` (``--check``
says whether the shipped file is current; a test runs it).

Its vocabulary is not written here: a result's fields, their types and which are always written
come from :class:`gridwm_judge.results.MetricResult`; the metric names and statuses from
:func:`gridwm_judge.results.vocabulary`; the format from :data:`gridwm_judge.records.
SCORES_FORMAT`; the worlds from the task table; the failure-mode statuses from
:data:`gridwm_judge.records.MODE_STATUSES`. This module holds the rest of the file's shape.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import fields
from typing import Any

from gridwm_judge import results
from gridwm_judge.records import MODE_STATUSES, SCORES_FORMAT
from gridwm_judge.task_table import WORLDS

SCHEMA_ID = "https://github.com/gridwm-judge/gridwm-judge/schemas/scores.schema.json"

_JSON_TYPES: dict[type, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _nullable(kind: str, nullable: bool) -> dict[str, Any]:
    return {"type": [kind, "null"] if nullable else kind}


def field_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of a result field of type ``annotation``: ``str`` / ``float`` / ``int``
    / ``bool``, ``X | None`` (null allowed) and ``tuple[float, float] | None`` (an interval:
    null or two numbers). An ``int`` is a count (never negative). Any other type is an error:
    a new kind of field gets its rule here."""
    args = typing.get_args(annotation)
    union = isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
    nullable = union and type(None) in args
    inner = [a for a in args if a is not type(None)] if union else [annotation]
    if len(inner) != 1:
        raise TypeError(f"no JSON Schema rule for a result field of type {annotation!r}")
    (base,) = inner
    if typing.get_origin(base) is tuple:
        items = typing.get_args(base)
        if len(set(items)) != 1 or items[0] not in _JSON_TYPES:
            raise TypeError(f"no JSON Schema rule for a result field of type {annotation!r}")
        array = {"type": "array", "items": {"type": _JSON_TYPES[items[0]]},
                 "minItems": len(items), "maxItems": len(items)}
        return {"oneOf": [{"type": "null"}, array]} if nullable else array
    if base not in _JSON_TYPES:
        raise TypeError(f"no JSON Schema rule for a result field of type {annotation!r}")
    out = _nullable(_JSON_TYPES[base], nullable)
    return {**out, "minimum": 0} if base is int else out


def result_schema() -> dict[str, Any]:
    """One :class:`~gridwm_judge.results.MetricResult` as scores.json writes it: every field
    with its type, in the record's order, the closed vocabularies (metric name, status, world)
    as enumerations, and the fields :data:`~gridwm_judge.results.ALWAYS_WRITTEN` required."""
    hints = typing.get_type_hints(results.MetricResult)
    closed = {**results.vocabulary(), "world": WORLDS}
    props = {f.name: ({"enum": list(closed[f.name])} if f.name in closed
                      else field_schema(hints[f.name]))
             for f in fields(results.MetricResult)}
    return {
        "type": "object",
        "description": "One figure of one judge (gridwm_judge.results.MetricResult); unset "
                       "fields are left out.",
        "required": list(results.ALWAYS_WRITTEN),
        "additionalProperties": False,
        "properties": props,
    }


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


def _counts(*names: str) -> dict[str, Any]:
    return {n: {"type": "integer", "minimum": 0} for n in names}


def _coverage() -> dict[str, Any]:
    tally = {"type": "object", "additionalProperties": {"type": "integer"}}
    return {
        "type": "object",
        "required": ["asked", "answered", "errored", "missing", "invalid", "coverage",
                     "parse_modes", "statuses"],
        "properties": {
            **_counts("asked", "answered", "errored", "missing", "invalid"),
            "coverage": _nullable("number", True),
            "parse_modes": tally,
            "statuses": tally,
            "unanswered_head": _strings(),
            **_counts("disagree"),
            "disagree_head": _strings(),
        },
        "additionalProperties": False,
    }


def _failure_mode() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["name", "status", "flagged", "evidence"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "label": {"type": "string",
                      "description": "the mode's display name, as score and report print it"},
            "status": {"enum": list(MODE_STATUSES)},
            "flagged": {"type": "boolean"},
            "evidence": _strings(),
            "world": {"type": "string"},
        },
    }


def _judge() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["coverage", "failure_modes", "results"],
        "additionalProperties": False,
        "properties": {
            "coverage": {"type": "object", "additionalProperties": {"$ref": "#/$defs/coverage"}},
            "failure_modes": {"type": "array", "items": {"$ref": "#/$defs/failure_mode"}},
            "results": {"type": "array", "items": {"$ref": "#/$defs/result"}},
        },
    }


def scores_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scores.json (:class:`gridwm_judge.records.
    ScoresRecord`), built now from the records it describes."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"GridWM-Judge scores.json ({SCORES_FORMAT})",
        "type": "object",
        "required": ["format", "package_version", "dataset", "predictions", "parser",
                     "bootstrap", "judges", "comparisons"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": SCORES_FORMAT},
            "package_version": {"type": "string"},
            "dataset": {"type": "string"},
            "dataset_fingerprint": _nullable("string", True),
            "predictions": _strings(),
            "runs": {"type": "object", "description": "predictions path -> the run.json beside it"},
            "parser": {"type": "object", "required": ["rules", "version"],
                       "properties": {"rules": {"type": "string"},
                                      "version": {"type": "string"}}},
            "bootstrap": {"type": "object",
                          "required": ["n_resamples", "seed", "level", "unit", "env_unit"]},
            "overrides": _strings(),
            "elapsed_s": _nullable("number", True),
            "judges": {"type": "object", "additionalProperties": {"$ref": "#/$defs/judge"}},
            "comparisons": {"type": "array", "items": {"$ref": "#/$defs/result"},
                            "description": "tests across judges (composite vs split Wilcoxon, "
                                           "with p_holm and n_judges)"},
        },
        "$defs": {
            "judge": _judge(),
            "coverage": _coverage(),
            "failure_mode": _failure_mode(),
            "result": result_schema(),
        },
    }


def schema_text() -> str:
    """The shipped file's text: the schema, indented by one, with a final newline."""
    return json.dumps(scores_schema(), indent=1) + "\n"

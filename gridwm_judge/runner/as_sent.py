"""What a run's requests actually carried, for run.json: ``as_sent`` and ``usage``.

Why: the intent (greedy, the task budget) is in ``judge_settings``; what reached the model can
differ by backend (an API that takes no ``top_k``, a reasoning model that refuses
``temperature``, a limit that also counts the thinking). This is read from the prediction
records (each carries the fields its request sent and the model the server reported) plus
what the judge says it could not send, so a resumed run's record covers every answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from gridwm_judge.judges.decoding import is_greedy

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


def as_sent(records: Iterable[Mapping[str, Any]], sending: Mapping[str, Any],
            old: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The run-level record: each decoding field with its value (a sorted list where requests
    differed, e.g. the token limit per task), the judge's ``not_sent`` / ``refused_by_server``
    lists (joined with ``old``'s), the models and fingerprints servers reported, and whether
    every request was greedy. None when nothing is known (a judge that sends nothing)."""
    values: dict[str, dict[str, Any]] = {}  # field -> {its JSON: value}
    models, prints, greedy, n = set(), set(), True, 0
    for rec in records:
        sent = rec.get("sent")
        if isinstance(sent, Mapping):
            n += 1
            greedy = greedy and is_greedy(sent)
            for k, v in sent.items():
                values.setdefault(k, {})[json.dumps(v, sort_keys=True)] = v
        served = rec.get("served")
        if isinstance(served, Mapping):
            models.update([served["model"]] if served.get("model") else [])
            prints.update([served["fingerprint"]] if served.get("fingerprint") else [])
    before: Mapping[str, Any] = old or {}
    out: dict[str, Any] = {k: v for k, v in before.items()
                           if k not in ("fields", "greedy", "requests")}
    out.update({k: v for k, v in sending.items() if k != "fields"})
    for key in ("refused_by_server", "served_models", "fingerprints"):
        if key in before:
            out[key] = sorted(set(out.get(key, ())) | set(before[key]))
    if n:
        out["fields"] = {k: _shown(v) for k, v in sorted(values.items())}
        out["greedy"] = greedy
        out["requests"] = n
    elif "fields" in sending:
        out["fields"] = dict(sending["fields"])
        out["greedy"] = is_greedy(sending["fields"])
    if models or "served_models" in out:
        out["served_models"] = sorted(models | set(out.get("served_models", ())))
    if prints or "fingerprints" in out:
        out["fingerprints"] = sorted(prints | set(out.get("fingerprints", ())))
    return out or None


def usage_total(records: Iterable[Mapping[str, Any]]) -> dict[str, int] | None:
    """Token usage summed over the records that report it (``rows``: how many did)."""
    total = {"rows": 0, **{k: 0 for k in USAGE_KEYS}}
    for rec in records:
        usage = rec.get("usage")
        if not isinstance(usage, Mapping):
            continue
        total["rows"] += 1
        for k in USAGE_KEYS:
            if isinstance(usage.get(k), int):
                total[k] += usage[k]
    return total if total["rows"] else None


def _shown(values: Mapping[str, Any]) -> Any:
    """One value as it is; several as a list (sorted by their JSON)."""
    if len(values) == 1:
        return next(iter(values.values()))
    vals = list(values.values())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return sorted(vals)
    return [values[k] for k in sorted(values)]

"""The report's "Requests as sent" table: per run, what the judge's requests carried.

Why: a judge's numbers mean what its decoding was; run.json's ``as_sent`` (written by eval)
says whether every request was greedy, which decoding fields were sent, which the backend
could not send or the server refused, which model the server said answered, and the tokens
used. Runs from before ``as_sent`` existed show "not recorded".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gridwm_judge.records import RunRecord


def decoding_section(runs) -> list[str]:
    """Markdown lines: one row per run (``runs``: objects with ``path`` and ``run``)."""
    lines = ["## Requests as sent", "",
             "| run | judge | greedy | sent | not sent | refused by server | served by | "
             "tokens in / out / reasoning |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        run: RunRecord | None = r.run
        sent = run.as_sent if run else None
        judge = run.judge if run else "–"
        if not isinstance(sent, Mapping):
            lines.append(f"| `{r.path}` | {judge} | not recorded | | | | | |")
            continue
        said = sent.get("greedy")
        greedy = ("yes" if said else "**no**") if isinstance(said, bool) else "–"
        fields = ", ".join(f"{k}={_short(v)}" for k, v in (sent.get("fields") or {}).items())
        usage = (run.usage if run else None) or {}
        tokens = " / ".join(str(usage.get(k, "–")) for k in
                            ("prompt_tokens", "completion_tokens", "reasoning_tokens"))
        lines.append(
            f"| `{r.path}` | {judge} | {greedy} | {fields or '–'} | "
            f"{', '.join(sent.get('not_sent') or []) or '–'} | "
            f"{', '.join(sent.get('refused_by_server') or []) or '–'} | "
            f"{', '.join(sent.get('served_models') or []) or '–'} | "
            f"{tokens if usage else '–'} |")
    return [*lines, ""]


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"

"""The report's "Requests as sent" table: per run, what the judge's requests carried.

Why: a judge's numbers mean what its decoding was; run.json's ``as_sent`` (written by eval)
says whether every request was greedy, which decoding fields were sent, which the backend
could not send or the server refused, which model the server said answered, and the tokens
used. Runs from before ``as_sent`` existed show "not recorded".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gridwm_judge.records import RunRecord
from gridwm_judge.report.table import Cell, Table

TITLE = "Requests as sent"
COLUMNS = ("run", "judge", "greedy", "sent", "not sent", "refused by server", "served by",
           "tokens in / out / reasoning")
TOKENS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


def decoding_table(runs: Iterable[Any]) -> Table:
    """One row per run (``runs``: objects with ``path`` and ``run``), its cells Markdown
    (paths as code, a request that was not greedy in bold); the tokens sort by the tokens
    in."""
    rows: list[tuple[Any, ...]] = []
    for r in runs:
        run: RunRecord | None = r.run
        sent = run.as_sent if run else None
        judge = run.judge if run else "–"
        if not isinstance(sent, Mapping):
            rows.append((f"`{r.path}`", judge, "not recorded", "", "", "", "", ""))
            continue
        said = sent.get("greedy")
        greedy = ("yes" if said else "**no**") if isinstance(said, bool) else "–"
        fields = ", ".join(f"{k}={_short(v)}" for k, v in (sent.get("fields") or {}).items())
        usage = (run.usage if run else None) or {}
        tokens = " / ".join(str(usage.get(k, "–")) for k in TOKENS)
        rows.append((
            f"`{r.path}`", judge, greedy, fields or "–",
            ", ".join(sent.get("not_sent") or []) or "–",
            ", ".join(sent.get("refused_by_server") or []) or "–",
            ", ".join(sent.get("served_models") or []) or "–",
            Cell(tokens, usage.get(TOKENS[0])) if usage else "–"))
    return Table("requests_as_sent", TITLE, COLUMNS, tuple(rows), markup=True)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"

"""What each judge's run cost: the tokens its provider reported, their USD by the prices file
(run.json's ``cost``; for a run.json written before it recorded one, priced now by the shipped
file) and the USD per discriminating group: per Full-CF pair the judge told apart (IDR_raw's
numerator on each Full-CF config's published scope, summed), what the run paid."""

from __future__ import annotations

from gridwm_judge.formats import DASH, fusd
from gridwm_judge.headlines import headlines
from gridwm_judge.prices import PriceTable, run_cost
from gridwm_judge.report.inputs import JudgeEntry, ReportData
from gridwm_judge.report.table import Table

NOTE = ("USD: the prompt and completion tokens the provider reported for the run (reasoning "
        "billed as output), priced by the prices file named in run.json (its date beside it); "
        "unknown where the model has no price there; batch rows were answered through the "
        "provider's batch interface and are priced at its batch rate (online, marked *, where "
        "the prices file gives the model no batch discount). Discriminating groups: "
        "per Full-CF config, the groups whose Full the judge accepted and whose CF it "
        "rejected (IDR_raw's numerator on the published scope), summed; USD / group divides "
        "the whole run's cost by them.")


def _discriminated(e: JudgeEntry) -> int:
    total = 0.0
    for h in headlines(sorted(e.results.tasks)):
        if h.metric == "idr_raw":
            r = h.pick(e.results)
            total += (r.numerator or 0.0) if r is not None else 0.0
    return int(total)


def reported_usage(data: ReportData) -> bool:
    """Whether any judge's run reported token usage (else there is nothing to price)."""
    return any(e.run.run is not None and e.run.run.usage for e in data.judges)


def cost_table(data: ReportData) -> Table:
    rows = []
    shipped: PriceTable | None = None
    for e in data.judges:
        run = e.run.run
        usage = run.usage if run is not None else None
        cost = run.cost if run is not None else None
        if cost is None:
            shipped = shipped or PriceTable.load()
            cost = run_cost(e.judge, usage, shipped)
        usd = cost.get("usd")
        groups = _discriminated(e)
        rows.append((
            e.label,
            (usage or {}).get("rows") or DASH,
            f"{(usage or {}).get('prompt_tokens') or 0:,}" if usage else DASH,
            f"{(usage or {}).get('completion_tokens') or 0:,}" if usage else DASH,
            f"{cost.get('batch_rows') or 0}" + ("*" if cost.get("batch_priced_online") else ""),
            fusd(usd) if usd is not None else f"unknown ({cost.get('why', '')})",
            cost.get("prices_read") or DASH,
            groups,
            fusd(usd / groups) if usd is not None and groups else DASH,
        ))
    return Table("cost", "Cost per judge (tokens the provider reported, priced)",
                 ("judge", "rows with usage", "prompt tokens", "completion tokens",
                  "batch rows", "USD", "prices read", "discriminating groups", "USD / group"),
                 tuple(rows), (NOTE,))

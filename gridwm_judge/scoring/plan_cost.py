"""What running a profile costs each API judge, before it runs: online and through the
provider's batch interface.

Per config of the profile: its rows (the profile's plan) times the mean request measured on a
smoke-sized sample (:func:`gridwm_judge.scoring.plan.row_cost`): input tokens are the images
by the judge's provider's own rule (:func:`gridwm_judge.prices.image_tokens`; another
backend's are Qwen2-VL patches, labelled rough) plus the prompt's characters / 4; output tokens
are the task's answer budget, an upper bound (a reasoning model may spend all of it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.prices import PROVIDERS, PriceTable, unknown_why
from gridwm_judge.scoring.plan import RowCost, row_cost
from gridwm_judge.task_table import task_spec


@dataclass(frozen=True)
class JudgeCost:
    """One judge's estimated tokens and USD for a profile (None where no price is known)."""

    judge: str
    requests: int
    input_tokens: int
    output_tokens_max: int
    exact_images: bool  # the provider publishes its image rule
    online_usd: float | None
    batch_usd: float | None
    prices_read: str | None
    why: str | None  # why the cost is unknown

    def to_json(self) -> dict:
        return dict(self.__dict__)


def profile_costs(profile: str, judges: Sequence[str], *, table: PriceTable | None = None,
                  progress: bool = False) -> list[JudgeCost]:
    """The estimated cost of ``profile`` (every config it builds) for each judge."""
    from gridwm_judge.judges import split_spec

    table = table or PriceTable.load()
    backends = [split_spec(j)[0] for j in judges]  # an unknown backend is refused here
    prof = get_profile(profile)
    measured: list[tuple[int, RowCost]] = []
    plans = prof.plans
    if progress:
        from tqdm import tqdm

        plans = tqdm(plans, desc="plan: measuring the profile's requests", unit="config",
                     disable=None)
    for p in plans:
        try:
            measured.append((p.expected_rows, row_cost(task_spec(p.config))))
        except ImportError as exc:
            raise ValueError(f"cannot measure {p.config} of profile {profile}: {exc}") from None
    out = []
    for judge, backend in zip(judges, backends, strict=True):
        provider = backend if backend in PROVIDERS else None
        requests = sum(n for n, _ in measured)
        inputs = sum(n * ((c.provider_image_tokens[provider] if provider else c.image_tokens)
                          + c.prompt_tokens) for n, c in measured)
        outputs = sum(n * c.budget for n, c in measured)
        price = table.for_judge(judge)
        online = None if price is None else price.cost(inputs, outputs)
        batch = None if price is None else price.batch_cost(inputs, outputs)
        out.append(JudgeCost(
            judge, requests, round(inputs), outputs, provider is not None,
            None if online is None else round(online, 2),
            None if batch is None else round(batch, 2),
            None if price is None else price.read,
            None if price is not None else unknown_why(judge, table)))
    return out


def cost_text(profile: str, costs: Sequence[JudgeCost], table: PriceTable) -> str:
    """The cost table ``plan --judges`` prints."""
    lines = [f"cost of profile {profile} per judge (prices: {table.path}; output at the answer "
             "budget, an upper bound):"]
    width = max(len(c.judge) for c in costs)
    for c in costs:
        tokens = (f"{c.requests:,} requests, ~{c.input_tokens / 1e6:,.2f}M input"
                  f"{'' if c.exact_images else ' (rough: no published image rule)'} + "
                  f"<= {c.output_tokens_max / 1e6:,.2f}M output tokens")
        if c.online_usd is None:
            money = f"cost unknown: {c.why}"
        else:
            batch = "no batch tier" if c.batch_usd is None else f"batch ${c.batch_usd:,.2f}"
            money = f"online ${c.online_usd:,.2f}, {batch} (prices read {c.prices_read})"
        lines.append(f"  {c.judge:<{width}}  {tokens}; {money}")
    return "\n".join(lines)

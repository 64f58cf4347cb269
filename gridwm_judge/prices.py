"""What a judge's tokens cost: per-million-token prices read from a small file the user can
edit or replace (``--prices FILE``), and each provider's own rule for an image's tokens.

The shipped file (``prices.json``) names the API models the docs use, each with the day its
figures were read, where, and the provider's batch discount. A model it does not list has no
price: its cost is unknown, never guessed. Reasoning tokens are part of the completion count
(:class:`gridwm_judge.judges.base.Usage`) and are billed as output.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRICES_FILE = Path(__file__).resolve().parent / "prices.json"
PRICES_FORMAT = "gridwm-judge-prices/1"
PROVIDERS = ("openai", "anthropic", "gemini")
"""Backends whose spec names a priced API model (``openai:gpt-4o``)."""


@dataclass(frozen=True)
class Price:
    """One model's prices in USD per million tokens, and where they come from."""

    model: str
    provider: str
    input: float
    output: float
    read: str
    source: str
    cached_input: float | None = None
    batch_discount: float | None = None

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        """USD for these tokens, asked online."""
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6

    def batch_cost(self, prompt_tokens: float, completion_tokens: float) -> float | None:
        """USD for these tokens through the provider's batch interface (None where it sells
        none)."""
        if self.batch_discount is None:
            return None
        return self.cost(prompt_tokens, completion_tokens) * (1 - self.batch_discount)


@dataclass(frozen=True)
class PriceTable:
    """The prices of one file, by model name."""

    path: str
    prices: Mapping[str, Price]

    @classmethod
    def load(cls, path: str | Path | None = None) -> PriceTable:
        """The prices in ``path`` (default: the shipped file); a file off the form is a
        ValueError naming the file and the entry."""
        path = Path(path) if path is not None else PRICES_FILE
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FileNotFoundError(f"prices file {str(path)!r} does not exist") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or obj.get("format") != PRICES_FORMAT:
            raise ValueError(f"{path}: not a prices file (expected \"format\": "
                             f"\"{PRICES_FORMAT}\" and \"models\")")
        prices = {}
        for model, entry in (obj.get("models") or {}).items():
            try:
                prices[model] = Price(model=model, **entry)
            except TypeError as exc:
                raise ValueError(f"{path}: model {model!r}: {exc}; expected provider, input, "
                                 "output, read, source [, cached_input, batch_discount]"
                                 ) from None
        return cls(str(path), prices)

    def for_judge(self, judge: str) -> Price | None:
        """The price of ``judge``'s model (``openai:gpt-4o`` -> ``gpt-4o``), None when the
        judge is no priced API model or the file lists none for it."""
        backend, _, model = judge.partition(":")
        return self.prices.get(model) if backend in PROVIDERS else None


def unknown_why(judge: str, table: PriceTable) -> str:
    backend = judge.partition(":")[0]
    if backend not in PROVIDERS:
        return f"{backend}: is not a priced API (a local model, a rule or a published answer)"
    return f"no price for {judge.partition(':')[2]!r} in {table.path}; pass --prices FILE"


def run_cost(judge: str, usage: Mapping[str, Any] | None, table: PriceTable,
             batched: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What run.json records as ``cost``: USD of the tokens the provider reported (``usage``,
    of which ``batched`` came through its batch interface, at the batch rate), with the price's
    date and source; ``usd`` None with the reason where it is unknown."""
    price = table.for_judge(judge)
    rows = {"batch_rows": batched.get("rows")} if batched else {}
    if price is None:
        return {"usd": None, "why": unknown_why(judge, table), **rows}
    if not usage or not usage.get("rows"):
        return {"usd": None, "why": "the provider reported no token usage", **rows}

    def tokens(u: Mapping[str, Any] | None) -> tuple[int, int]:
        return ((u or {}).get("prompt_tokens") or 0, (u or {}).get("completion_tokens") or 0)

    (p_all, c_all), (p_batch, c_batch) = tokens(usage), tokens(batched)
    batch_usd = price.batch_cost(p_batch, c_batch) if batched else 0.0
    no_tier = batch_usd is None
    if no_tier:  # no batch tier known: priced online
        batch_usd = price.cost(p_batch, c_batch)
    usd = price.cost(p_all - p_batch, c_all - c_batch) + batch_usd
    out = {"usd": round(usd, 4), "model": price.model, "rows": usage.get("rows"),
           "prices_read": price.read, "source": price.source, **rows}
    if batched and no_tier:
        out["batch_priced_online"] = True  # the prices file gives no batch discount
    return out


def image_tokens(provider: str, width: int, height: int) -> tuple[float, bool]:
    """(tokens, exact) of one image as ``provider`` bills it: OpenAI's high-detail tiles
    (fit 2048 x 2048, shortest side 768, 85 + 170 per 512-pixel tile: GPT-4o's published
    rule), Anthropic's width x height / 750 (long side at most 1568), Gemini's 258 per image
    up to 384 pixels a side, else per 768-pixel tile; any other provider Qwen2-VL's 28-pixel
    patches, labelled rough (``exact`` False)."""
    if provider == "openai":
        scale = min(1.0, 2048 / max(width, height))
        w, h = width * scale, height * scale
        scale = min(1.0, 768 / min(w, h))
        w, h = w * scale, h * scale
        return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512), True
    if provider == "anthropic":
        scale = min(1.0, 1568 / max(width, height))
        return (width * scale) * (height * scale) / 750, True
    if provider == "gemini":
        if width <= 384 and height <= 384:
            return 258, True
        return 258 * math.ceil(width / 768) * math.ceil(height / 768), True
    return math.ceil(width / 28) * math.ceil(height / 28), False

"""What the `eval --batch` tests share: the providers the stub server speaks, the smoke
dataset's eight task_c rows, and reading a run folder's records and batch record."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gridwm_judge.testing.stub_server import StubServer

ROWS = 8  # the smoke task_c rows an API judge is asked
KEEP = ("uid", "answer", "status", "usage", "sent", "request_hash", "item_digest",
        "finish_reason", "parsed", "parse_mode")
"""The fields of a record that must not depend on how its answer came (batch or online)."""
SECRET = "sk-batch-secret-0123456789"


@dataclass(frozen=True)
class Provider:
    """One provider as the tests use it: the stub's dialect, a judge whose model prices.json
    lists (so batch rows are priced), the SDK it needs, its first batch's id, and what its
    refusal of a server without a batch API says."""

    api: str
    judge: str
    sdk: str
    first: str
    no_api: str


PROVIDERS = (
    Provider("openai", "openai:gpt-4o", "httpx", "batch_0", "has no batch API"),
    Provider("anthropic", "anthropic:claude-sonnet-4-6", "anthropic", "msgbatch_0",
             "has no Message Batches API"),
    Provider("gemini", "gemini:gemini-2.5-flash-lite", "google.genai", "batches/0",
             "has no batch mode"),
)
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")


def eval_args(smoke: Path, judge: str, server: StubServer, out: Path, *extra: str) -> list[str]:
    return ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", judge,
            "--base-url", server.base_url, "--no-progress", "--out", str(out), *extra]


def records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]


def book(out: Path) -> list[dict]:
    return json.loads((out / "batches.json").read_text())["batches"]


def same_as_online(batch: list[dict], online: list[dict], batch_of: dict[str, str]) -> None:
    """Each batch record is the online record of its row, field for field, but for the batch
    ``served`` names (``batch_of``: uid -> batch id)."""
    by_uid = {r["uid"]: r for r in online}
    assert len(batch) == len(online) == ROWS
    for r in batch:
        assert {k: r.get(k) for k in KEEP} == {k: by_uid[r["uid"]].get(k) for k in KEEP}
        assert r["served"] == {**by_uid[r["uid"]]["served"], "batch": batch_of[r["uid"]]}

"""run.json of a run being made (:class:`gridwm_judge.records.RunRecord`): what the run means
(judge spec and answer-changing settings, dataset fingerprint, prompt version, budgets, seeds)
and how it went. eval makes it, keeps it current as the run learns more (the judge's settings,
what the requests carried) and writes it after each change; a resume with different values is
refused; score reads it to check which items the predictions answered."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.dataset_io import dataset_fingerprint, dataset_provenance
from gridwm_judge.prices import PriceTable, run_cost
from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.records import RUN_FILE, RunRecord
from gridwm_judge.redact import redact_value
from gridwm_judge.runner.as_sent import as_sent, usage_total
from gridwm_judge.runner.store import write_run_manifest

IDENTITY_KEYS = (
    "judge",
    "judge_options",
    "max_tokens",
    "representation",
    "seed",
    "dataset_fingerprint",
    "prompt_version",
)
"""run.json fields that must match for a resume; tasks, limit, workers and rps may change."""


def run_manifest(*, judge: str, judge_options: dict[str, Any], budgets: Mapping[str, int],
                 representation: str | None, seed: int, dataset: str) -> RunRecord:
    """The identity part of run.json (eval adds tasks, times and judge settings)."""
    return RunRecord(
        judge=judge,
        judge_options=judge_options,
        max_tokens=dict(budgets),
        representation=representation,
        seed=seed,
        dataset=dataset,
        dataset_fingerprint=dataset_fingerprint(dataset),
        dataset_provenance=dataset_provenance(dataset),
        prompt_version=PROMPT_VERSION,
        package_version=__version__,
    )


def read_run(run_dir: Path) -> RunRecord | None:
    """RUN_DIR's run.json, or None when it has none."""
    path = Path(run_dir) / RUN_FILE
    if not path.exists():
        return None
    try:
        return RunRecord.read(path)
    except ValueError as exc:
        raise ValueError(f"{exc}; use a fresh --out folder") from None


def check_run_manifest(run_dir: Path, record: RunRecord, keys: Iterable[str] = IDENTITY_KEYS
                       ) -> RunRecord | None:
    """RUN_DIR's run.json (None when it has none); refused (ValueError) if it disagrees with
    ``record`` on ``keys``."""
    old = read_run(run_dir)
    if old is None:
        return None
    was = old.to_json()
    now = redact_value(record.to_json())  # compare as written: run.json holds the redacted form
    diffs = [k for k in keys if was.get(k) != now.get(k)]
    if diffs:
        detail = "; ".join(f"{k}: was {was.get(k)!r}, now {now.get(k)!r}" for k in diffs)
        raise ValueError(
            f"{run_dir} holds a run with different settings ({detail}); refusing to mix them. "
            "Use a new --out folder, or rerun with the original settings to resume."
        )
    return old


@dataclass
class RunManifest:
    """The run.json of the run in progress: ``record`` as known so far, replaced as the run
    learns more (the engines and eval share this one object) and written by :meth:`write`."""

    out: Path
    record: RunRecord
    prices: PriceTable | None = None  # what run.json's cost is priced by (None: not priced)

    @property
    def settled(self) -> bool:
        """Whether the judge's settings are known (the judge was loaded)."""
        return self.record.judge_settings is not None

    def update(self, **changes: Any) -> None:
        self.record = dataclasses.replace(self.record, **changes)

    def write(self) -> None:
        write_run_manifest(self.out, self.record.to_json())

    def settle(self, settings: Mapping[str, Any], needs_gold: bool) -> None:
        """Record the judge's settings and write run.json; a resume whose settings differ
        is refused."""
        self.update(judge_settings=settings)
        check_run_manifest(self.out, self.record, keys=("judge_settings",))
        self.update(oracle_upper_bound=needs_gold)
        self.write()

    def record_sent(self, records: Iterable[Mapping[str, Any]], sending: Mapping[str, Any],
                    old: RunRecord | None) -> None:
        """Record ``as_sent`` (what the requests carried), ``usage`` (summed tokens) and its
        ``cost`` (USD where the model's price is known) over the stored prediction records,
        and write run.json."""
        records = list(records)
        sent = as_sent(records, sending, old.as_sent if old else None)
        usage = usage_total(records)
        batched = usage_total(r for r in records if (r.get("served") or {}).get("batch"))
        cost = (run_cost(self.record.judge, usage, self.prices, batched)
                if self.prices is not None else None)
        self.update(**{k: v for k, v in (("as_sent", sent), ("usage", usage), ("cost", cost))
                       if v is not None})
        self.write()

"""Crash-safe prediction storage and the run manifest of one RUN_DIR.

``predictions.jsonl`` is append-only, pure-ASCII JSON (so no reader can split a line on an
exotic separator such as U+2028): each finished request is one line written with a single
``write`` call, flushed and fsynced before the next, so a ``kill -9`` can at worst leave one
partial trailing line, which the next open cuts off (that request is then simply asked again).
``run.json`` pins what a run means (judge spec and answer-changing settings, dataset
fingerprint, prompt version, seeds); resuming with different values is refused rather than
mixed into the same file.

``predictions.lock`` is the advisory lock that keeps two ``eval`` processes from appending to
the same RUN_DIR at once. It stays empty and is kept on purpose: the OS releases the lock when
its holder ends (even by ``kill -9``), and deleting the file at exit would let a second
process lock a new file while a third still holds the old one.

Nothing secret is written: error texts and run.json pass through :mod:`gridwm_judge.redact`.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from filelock import FileLock

from gridwm_judge.atomic import atomic_open, write_text
from gridwm_judge.locks import try_lock
from gridwm_judge.records import RUN_FILE
from gridwm_judge.redact import redact, redact_value


class PredictionStore:
    """Append-only JSONL of prediction records keyed by uid (one line per uid, no duplicates)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = -1
        self._lock = _lock(self.path.with_suffix(".lock"))
        self.records: dict[str, dict[str, Any]] = {}
        try:
            self.dropped_partial_bytes = self._cut_partial_tail()
            self._load()
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except BaseException:
            self.close()
            raise

    def _cut_partial_tail(self) -> int:
        """Drop a trailing line without its newline (a write cut off by a kill)."""
        if not self.path.exists():
            return 0
        size = self.path.stat().st_size
        if size == 0:
            return 0
        with self.path.open("rb+") as fh:
            fh.seek(max(0, size - 1))
            if fh.read(1) == b"\n":
                return 0
            # Scan back for the last complete line.
            pos, block = size, 1 << 16
            keep = 0
            while pos > 0:
                start = max(0, pos - block)
                fh.seek(start)
                chunk = fh.read(pos - start)
                idx = chunk.rfind(b"\n")
                if idx >= 0:
                    keep = start + idx + 1
                    break
                pos = start
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
            return size - keep

    def _load(self) -> None:
        with self.path.open("a+b") as fh:
            fh.seek(0)
            for lineno, line in enumerate(fh.read().split(b"\n"), 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    raise ValueError(
                        f"{self.path}:{lineno} is not a JSON line ({exc}); fix or remove it"
                    ) from exc
                if not isinstance(record, dict) or "uid" not in record:
                    raise ValueError(f"{self.path}:{lineno} has no 'uid' field")
                self.records.setdefault(record["uid"], record)

    def __contains__(self, uid: str) -> bool:
        return uid in self.records

    def __len__(self) -> int:
        return len(self.records)

    def append(self, record: dict[str, Any]) -> bool:
        """Persist one record durably; a uid already stored is skipped (returns False)."""
        uid = record["uid"]
        if uid in self.records:
            return False
        if isinstance(record.get("error"), str):
            record = {**record, "error": redact(record["error"])}
        line = (json.dumps(record, ensure_ascii=True, sort_keys=True) + "\n").encode("utf-8")
        size = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = os.write(self._fd, line)
            while written < len(line):  # regular files write fully; loop for safety
                written += os.write(self._fd, line[written:])
            os.fsync(self._fd)
        except OSError:  # e.g. a full disk: cut the partial line so the file stays whole
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass  # the next open cuts a partial trailing line anyway
            raise
        self.records[uid] = record
        return True

    def discard(self, predicate) -> int:
        """Drop records matching ``predicate`` by an atomic rewrite (temp file, fsync, rename)."""
        drop = {uid for uid, rec in self.records.items() if predicate(rec)}
        if not drop:
            return 0
        keep = {uid: rec for uid, rec in self.records.items() if uid not in drop}
        with atomic_open(self.path, "w") as fh:  # on failure the old file stays as it was
            for rec in keep.values():
                fh.write(json.dumps(rec, ensure_ascii=True, sort_keys=True) + "\n")
        os.close(self._fd)
        self.records = keep
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return len(drop)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._lock.release()

    def __enter__(self) -> PredictionStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _lock(path: Path) -> FileLock:
    """The exclusive lock on RUN_DIR, or a ValueError naming who holds it."""
    lock = try_lock(path)
    if lock is None:
        raise ValueError(
            f"another eval is writing to {path.parent} (lock {path.name} is held); "
            "wait for it or use another --out folder"
        )
    return lock


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_run_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write run.json atomically (temp file + rename), secrets redacted (e.g. base_url)."""
    text = json.dumps(redact_value(manifest), indent=2, sort_keys=True) + "\n"
    write_text(Path(run_dir) / RUN_FILE, text)

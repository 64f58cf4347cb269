"""The audit JSONL of any world: one line per valid group, written atomically.

Lines are compact JSON with keys in a fixed order (a group's ``to_record`` fixes them), so the
same arguments give a byte-identical file whatever the worker count; the file is written to a
temporary name and renamed, so a crash leaves no half file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from gridwm_judge.worlds.core.records import GenerationResult


def dumps_group(group) -> str:
    """The group's audit line; any world's group record (its ``to_record`` fixes the keys)."""
    return json.dumps(group.to_record(), separators=(",", ":"), ensure_ascii=True)


def summarize(results: Iterable[GenerationResult]) -> str:
    lines = []
    for r in results:
        rejects = ", ".join(f"{g}: {c}" for g, c in r.rejects.items()) or "none"
        lines.append(f"{r.family:<20} {r.env_id:<34} valid {len(r.groups):>4} / drawn "
                     f"{r.n_drawn:>4} (reject rate {r.reject_rate:.1%}; rejects by gate: "
                     f"{rejects})")
        examples: dict[str, str] = {}
        for seed, why in r.reject_reasons:
            for gate, reason in why.items():
                examples.setdefault(gate, f"seed {seed}: {reason}")
        lines.extend(f"    {gate} e.g. {text}" for gate, text in sorted(examples.items()))
    return "\n".join(lines)


def check_out(out: str | os.PathLike, overwrite: bool) -> Path:
    """``out`` as a Path, once it is known to be writable: a missing folder or an existing
    file without ``overwrite`` raises before anything is generated."""
    out = Path(out)
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass --overwrite to replace it")
    if not out.parent.exists():
        raise FileNotFoundError(f"output folder {out.parent} does not exist")
    return out


def write_results(results: Sequence[GenerationResult], out: Path) -> str:
    """Every group of ``results`` as one JSON line, written to a temp file then renamed (a
    crash leaves no half file); returns the reject summary and the count written. Shared by
    both worlds: a group needs only ``to_record``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for r in results:
                for g in r.groups:
                    fh.write(dumps_group(g) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    total = sum(len(r.groups) for r in results)
    return f"{summarize(results)}\nwrote {total} groups to {out}"

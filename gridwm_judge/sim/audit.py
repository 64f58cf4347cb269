"""The audit JSONL: one line per valid group, written atomically (temp file + rename).

Lines are compact JSON with keys in a fixed order, so the same arguments give a
byte-identical file whatever ``num_proc`` is. Every argument is checked before anything is
generated or written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gridwm_judge.sim.cards import FAMILIES
from gridwm_judge.sim.generate import check_args, check_cf_kind, generate_groups
from gridwm_judge.sim.hard_counterfactual import HARD_CF_FAMILIES
from gridwm_judge.sim.records import GenerationResult, TrajectoryGroup


def dumps_group(group) -> str:
    """The group's audit line; any world's group record (its ``to_record`` fixes the keys)."""
    return json.dumps(group.to_record(), separators=(",", ":"), ensure_ascii=True)


def read_groups_jsonl(path: str | os.PathLike) -> list[TrajectoryGroup]:
    """Groups back from an audit file (no simulation needed)."""
    with open(path, encoding="utf-8") as fh:
        return [TrajectoryGroup.from_record(json.loads(line)) for line in fh if line.strip()]


def _families(family: str) -> tuple[str, ...]:
    if family == "all":
        return FAMILIES
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; expected 'all' or one of "
                         f"{', '.join(FAMILIES)}")
    return (family,)


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


def write_groups_jsonl(family: str, n: int, seed: int, out: str | os.PathLike,
                       env_id: str | None = None, overwrite: bool = False,
                       num_proc: int = 1, cf_kind: str = "paper") -> str:
    """Generate ``n`` valid groups per family and write them to ``out``; returns a summary.
    ``cf_kind`` "hard": hard-CF groups (``family`` 'all': the families that have one), gated
    by the simulator only (the static-cue gate runs where a config's groups are drawn)."""
    check_cf_kind(cf_kind)
    families = _families(family)
    if cf_kind == "hard":
        families = tuple(f for f in families if f in HARD_CF_FAMILIES)
        if not families:
            raise ValueError(f"no hard CF for family {family!r}; expected 'all' or one of "
                             f"{', '.join(HARD_CF_FAMILIES)}")
    if env_id is not None and len(families) != 1:
        raise ValueError("--env-id needs a single --family, not 'all'")
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise ValueError(f"num_proc must be a positive integer, got {num_proc!r}")
    for f in families:
        check_args(f, n, seed, env_id)
    out = check_out(out, overwrite)
    if num_proc > 1:
        with ProcessPoolExecutor(max_workers=num_proc) as pool:
            results = [generate_groups(f, n, seed, env_id=env_id, num_proc=num_proc,
                                       executor=pool, cf_kind=cf_kind) for f in families]
    else:
        results = [generate_groups(f, n, seed, env_id=env_id, cf_kind=cf_kind)
                   for f in families]
    return write_results(results, out)


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

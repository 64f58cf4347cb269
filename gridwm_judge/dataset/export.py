"""Build a profile into the scriptless Hugging Face Hub layout::

    DIR/data/<config>/test-00000-of-0000N.parquet   (images embedded)
    DIR/README.md                                     (card: YAML configs + dataset_info, prose)
    DIR/validation.json                               (checks, gate results, rejects, seeds)

Everything is written to a temporary folder beside DIR and moved into place at the end, so a
failed build leaves DIR as it was; a non-empty DIR is refused unless ``overwrite``.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridwm_judge.dataset import validation as checks
from gridwm_judge.dataset.profiles import check_configs, get_profile
from gridwm_judge.seeds import GENERATION_SEED, SAMPLING_SEED


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote and how long each config took."""

    out: Path
    profile: str
    configs: tuple[str, ...]
    rows: dict[str, int]
    seconds: dict[str, float]
    generation_seconds: float
    total_seconds: float
    validation: dict[str, Any] = field(repr=False)


def _check_out(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} is not empty; pass --overwrite to replace it")


def build_command(profile: str, out: Path, seed: int, sampling_seed: int,
                  configs: tuple[str, ...] | None) -> str:
    cmd = ["gridwm-judge", "build", "--profile", profile, "--out", str(out)]
    if seed != GENERATION_SEED:
        cmd += ["--seed", str(seed)]
    if sampling_seed != SAMPLING_SEED:
        cmd += ["--sampling-seed", str(sampling_seed)]
    if configs:
        cmd += ["--configs", ",".join(configs)]
    return shlex.join(cmd)


def _move_parquet(prepared: Path, dest: Path) -> int:
    """Move the builder's Parquet files to ``dest/test-XXXXX-of-NNNNN.parquet``; total bytes."""
    files = sorted(prepared.glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"the builder wrote no Parquet file under {prepared}")
    dest.mkdir(parents=True, exist_ok=True)
    size = 0
    for i, f in enumerate(files):
        target = dest / f"test-{i:05d}-of-{len(files):05d}.parquet"
        shutil.move(str(f), target)
        size += target.stat().st_size
    return size


def build_dataset(
    out: str | Path,
    profile: str = "base",
    *,
    seed: int = GENERATION_SEED,
    sampling_seed: int = SAMPLING_SEED,
    num_proc: int = 1,
    configs: list[str] | tuple[str, ...] | None = None,
    overwrite: bool = False,
    quiet: bool = True,
) -> BuildReport:
    """Build ``profile`` into ``out`` and return what was written (see the module docstring)."""
    import datasets

    from gridwm_judge import __version__
    from gridwm_judge.dataset import card
    from gridwm_judge.dataset.builder import GridWMJudge
    from gridwm_judge.dataset.generation import pool_for
    from gridwm_judge.prompts import PROMPT_VERSION

    prof = get_profile(profile)
    chosen = check_configs(prof, configs)
    if num_proc < 1:
        raise ValueError(f"num_proc must be >= 1, got {num_proc}")
    for name, value in (("seed", seed), ("sampling_seed", sampling_seed)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    out = Path(out).resolve()
    _check_out(out, overwrite)
    if quiet:
        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_error()
        logging.getLogger("datasets").setLevel(logging.ERROR)

    t_start = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    stage.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result should not be
    try:
        pool = pool_for(seed)
        pool.reset_usage()
        pool.prefetch([prof.plan(c) for c in chosen], num_proc=num_proc)
        t_gen = time.perf_counter() - t_start
        splits: dict[str, dict[str, int]] = {}
        seconds: dict[str, float] = {}
        for config in chosen:
            t0 = time.perf_counter()
            builder = GridWMJudge(config_name=config, profile=prof.name, seed=seed,
                                  sampling_seed=sampling_seed, cache_dir=str(stage / ".cache"))
            prepared = stage / ".prepared" / config
            builder.download_and_prepare(output_dir=str(prepared), file_format="parquet",
                                         num_proc=num_proc if num_proc > 1 else None)
            info = builder.info.splits["test"]
            splits[config] = {"num_examples": int(info.num_examples),
                              "num_bytes": int(info.num_bytes),
                              "download_size": _move_parquet(prepared, stage / "data" / config)}
            seconds[config] = time.perf_counter() - t0
        shutil.rmtree(stage / ".prepared", ignore_errors=True)
        shutil.rmtree(stage / ".cache", ignore_errors=True)

        report: dict[str, Any] = {
            "package": "gridwm-judge",
            "package_version": __version__,
            "datasets_version": datasets.__version__,
            "prompt_version": PROMPT_VERSION,
            "profile": prof.name,
            "seeds": {"generation": seed, "sampling": sampling_seed},
            "configs": {c: checks.check_config(stage, c, prof.plan(c).expected_rows)
                        for c in chosen},
            "generation": pool.report(),
        }
        bad = checks.problems(report)
        report["ok"] = not bad
        report["problems"] = bad
        checks.write(stage, report)
        if bad:
            raise ValueError(f"build of profile {prof.name!r} failed its checks: {'; '.join(bad)}")
        card.render(stage, splits=splits, validation=report, profile=prof,
                    build_command=build_command(prof.name, Path("gridwm-judge-data"), seed,
                                                sampling_seed, configs and chosen))
        _replace(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return BuildReport(out=out, profile=prof.name, configs=chosen,
                       rows={c: s["num_examples"] for c, s in splits.items()}, seconds=seconds,
                       generation_seconds=t_gen, total_seconds=time.perf_counter() - t_start,
                       validation=report)


def _replace(stage: Path, out: Path) -> None:
    """Move ``stage`` to ``out``; an existing ``out`` is set aside first and removed after."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{time.time_ns()}")
        out.rename(old)
    stage.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

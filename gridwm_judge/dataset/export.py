"""Build a profile into the scriptless Hugging Face Hub layout::

    DIR/data/<config>/test-00000-of-0000N.parquet   (images embedded)
    DIR/README.md                                     (card: YAML configs + dataset_info, prose)
    DIR/validation.json                               (checks, gate results, rejects, seeds)

Everything is written to a temporary folder beside DIR (``.DIR.building-*``) and moved into
place at the end, so a failed or interrupted build leaves DIR as it was; a non-empty DIR is
refused unless ``overwrite``. The staging folder holds a lock while its build lives, so the
next build into the same place removes the folders of builds that were killed (``kill -9``
leaves no chance to clean up) and never those of a build still running. Worker processes die
with the build (:mod:`gridwm_judge.workers`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.atomic import check_out_dir, make_folder, remove_made, replace_dir
from gridwm_judge.dataset import card, ceilings
from gridwm_judge.dataset import validation as checks
from gridwm_judge.dataset.generation import GroupPool
from gridwm_judge.dataset.png_store import PackStore
from gridwm_judge.dataset.profiles import Profile, check_configs, get_profile
from gridwm_judge.dataset.row_pool import RowPool, init_row_worker
from gridwm_judge.locks import try_lock
from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.schema import DATASET_VERSION, DEFAULT_NOCUE_STYLE, NOCUE_STYLES
from gridwm_judge.seeds import GENERATION_SEED, SAMPLING_SEED
from gridwm_judge.workers import owned_pool, workers_die_with_parent

STAGE_LOCK = ".building.lock"


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote and how long each config took.

    ``seconds``: per config, from the previous config's rows written to its own (the worker
    processes build the next configs' shards ahead, so a config's figure can be less than its
    own work; the build's figures are the totals)."""

    out: Path
    profile: str
    configs: tuple[str, ...]
    rows: dict[str, int]
    seconds: dict[str, float]
    generation_seconds: float
    total_seconds: float
    validation: dict[str, Any] = field(repr=False)
    images_encoded: int = 0
    """Distinct images PNG-encoded (each once, shared by every config and worker)."""
    seconds_before_ceilings: float = 0.0
    """Wall time up to the rows written and checked (the shortcut ceilings come after)."""
    ceilings_seconds: float = 0.0
    """Wall time measuring the shortcut ceilings (:mod:`gridwm_judge.dataset.ceilings`)."""


def build_command(profile: str, out: Path, seed: int, sampling_seed: int,
                  configs: tuple[str, ...] | None,
                  nocue_style: str = DEFAULT_NOCUE_STYLE) -> str:
    cmd = ["gridwm-judge", "build", "--profile", profile, "--out", str(out)]
    if seed != GENERATION_SEED:
        cmd += ["--seed", str(seed)]
    if sampling_seed != SAMPLING_SEED:
        cmd += ["--sampling-seed", str(sampling_seed)]
    if nocue_style != DEFAULT_NOCUE_STYLE:
        cmd += ["--nocue-style", nocue_style]
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


SHARDS_AHEAD = 12
"""Shards a :class:`RowPool` keeps submitted beyond two per worker: enough that the workers do
not wait while the main process writes a config's last rows or a config's large parts (A, E)
finish, few enough that the rows waiting to be written stay small (a base shard's rows are
20 MB at most: 16 waiting with two workers, 320 MB at worst)."""


def build_order(prof: Profile, configs: Sequence[str]) -> list[str]:
    """``configs`` in the order the build makes them: those cut in parts (A, E: a few long
    shards each) first, so the workers end on short shards and finish together (longest
    first). A long part last held the main process's writing, and the window of shards ahead
    with it, while the other worker sat idle. Files and reports keep ``configs``' order."""
    return sorted(configs, key=lambda c: prof.plan(c).shard_by != "part")


def _shard_jobs(prof: Profile, configs: list[str], pool: GroupPool, workers: int, *,
                nocue_style: str, sampling_seed: int, png_store: str
                ) -> Iterator[tuple[str, bytes, dict[str, Any]]]:
    """``(config, shard, kwargs)`` for a :class:`RowPool`: each config's shards as ``workers``
    processes take them, built as the builder's own ``_split_generators`` makes them."""
    from gridwm_judge.dataset.builder import for_workers, split_kwargs

    for config in configs:
        plan = prof.plan(config)
        kwargs = split_kwargs(plan, pool.groups(plan), nocue_style=nocue_style,
                              sampling_seed=sampling_seed, png_store=png_store)
        for shard in for_workers(kwargs.pop("shards"), workers):
            yield config, shard, kwargs


def build_dataset(
    out: str | Path,
    profile: Profile | str = "base",
    *,
    seed: int = GENERATION_SEED,
    sampling_seed: int = SAMPLING_SEED,
    num_proc: int = 1,
    configs: list[str] | tuple[str, ...] | None = None,
    overwrite: bool = False,
    quiet: bool = True,
    progress: Callable[[str], None] | None = None,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
) -> BuildReport:
    """Build ``profile`` into ``out`` and return what was written (see the module docstring).

    ``progress`` receives one plain line as each stage ends (groups generated, each config).
    ``nocue_style`` (``schema.NOCUE_STYLES``) is how NoCue hides its evidence in MiniGrid
    (``render.nocue_style``); it is recorded in the card, ``validation.json`` and the
    ``nocue_style`` column. With ``num_proc`` > 1 the rows are built in worker processes
    (:class:`RowPool`); MiniWorld's groups are drawn in spawned ones, and where Python does not
    fork (macOS; Linux from Python 3.14) every worker is started afresh: such workers import
    the calling script, so call it from a script under ``if __name__ == "__main__":`` (the
    ``gridwm-judge`` command needs nothing).
    """
    with workers_die_with_parent(quiet_ctrl_c=True), _plain_failures():
        return _build(out, profile, seed=seed, sampling_seed=sampling_seed, num_proc=num_proc,
                      configs=configs, overwrite=overwrite, quiet=quiet,
                      progress=progress or (lambda line: None), nocue_style=nocue_style)


def _build(out, profile, *, seed, sampling_seed, num_proc, configs, overwrite, quiet,
           progress, nocue_style) -> BuildReport:
    import datasets

    # imports datasets: only when building
    from gridwm_judge.dataset.builder import GridWMJudge, built_shard, in_workers

    prof = profile if isinstance(profile, Profile) else get_profile(profile)
    chosen = check_configs(prof, configs)
    if num_proc < 1:
        raise ValueError(f"num_proc must be >= 1, got {num_proc}")
    for name, value in (("seed", seed), ("sampling_seed", sampling_seed)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if nocue_style not in NOCUE_STYLES:
        raise ValueError(f"unknown --nocue-style {nocue_style!r}; expected one of "
                         f"{', '.join(NOCUE_STYLES)}")
    out = Path(out).resolve()
    check_out_dir(out, overwrite, ours=("validation.json", "data"), what="dataset folder")
    if quiet:
        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_error()
        logging.getLogger("datasets").setLevel(logging.ERROR)

    t_start = time.perf_counter()
    made = make_folder(out.parent)
    remove_dead_stages(out)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    lock = try_lock(stage / STAGE_LOCK)  # held for as long as this build lives
    assert lock is not None, "a fresh staging folder's lock is free"
    umask = os.umask(0)
    os.umask(umask)
    stage.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result should not be
    scratch: threading.Thread | None = None
    try:
        pool = GroupPool(seed)
        progress("generating the trajectory groups ...")   # tens of seconds for MiniWorld
        pool.prefetch([prof.plan(c) for c in chosen], num_proc=num_proc, bar=True)
        t_gen = time.perf_counter() - t_start
        progress(f"generated groups in {t_gen:.1f}s")
        splits: dict[str, dict[str, int]] = {}
        seconds: dict[str, float] = {}
        checked: dict[str, dict[str, Any]] = {}
        png_store = stage / ".png"  # images encoded once for every config and worker
        png_store.mkdir()
        order = build_order(prof, chosen)
        pooled = [c for c in order if in_workers(c, num_proc)]
        with contextlib.ExitStack() as stack:
            rows = None
            if pooled:   # one pool of workers builds every config's shards
                executor = stack.enter_context(owned_pool(ProcessPoolExecutor(
                    max_workers=num_proc, initializer=init_row_worker)))
                jobs = _shard_jobs(prof, pooled, pool, num_proc, nocue_style=nocue_style,
                                   sampling_seed=sampling_seed, png_store=str(png_store))
                rows = RowPool(executor, built_shard, jobs, ahead=2 * num_proc + SHARDS_AHEAD)
            for config in order:
                t0 = time.perf_counter()
                builder = GridWMJudge(config_name=config, profile=prof.name, profile_spec=prof,
                                      pool=pool, seed=seed, sampling_seed=sampling_seed,
                                      nocue_style=nocue_style, cache_dir=str(stage / ".cache"),
                                      png_store=str(png_store),
                                      row_pool=rows if config in pooled else None)
                prepared = stage / ".prepared" / config
                builder.download_and_prepare(output_dir=str(prepared), file_format="parquet",
                                             num_proc=None)
                splits_made = builder.info.splits
                info = splits_made.get("test") if splits_made is not None else None
                assert info is not None  # download_and_prepare records the split it wrote
                splits[config] = {"num_examples": int(info.num_examples),
                                  "num_bytes": int(info.num_bytes),
                                  "download_size": _move_parquet(prepared,
                                                                 stage / "data" / config)}
                seconds[config] = time.perf_counter() - t0
                progress(f"{config}: {splits[config]['num_examples']} rows in "
                         f"{seconds[config]:.1f}s")
                # read back while the workers build the next configs
                checked[config] = checks.check_config(stage, config,
                                                      prof.plan(config).expected_rows)
        splits = {c: splits[c] for c in chosen}   # in the profile's order, not the build's
        seconds = {c: seconds[c] for c in chosen}
        checked = {c: checked[c] for c in chosen}
        images_encoded = PackStore.count(png_store)
        # thousands of small files: removed beside the checks and ceilings, done before the
        # stage becomes the output
        scratch = threading.Thread(target=_remove, name="gwj-scratch", daemon=True,
                                   args=(stage / ".prepared", stage / ".cache", png_store))
        scratch.start()

        report: dict[str, Any] = {
            "package": "gridwm-judge",
            "package_version": __version__,
            "datasets_version": datasets.__version__,
            "prompt_version": PROMPT_VERSION,
            "dataset_version": DATASET_VERSION,
            "profile": prof.name,
            "seeds": {"generation": seed, "sampling": sampling_seed},
            "nocue_style": nocue_style,
            "configs": checked,
            "generation": pool.report(),
        }
        bad = checks.problems(report)
        t_rows = time.perf_counter() - t_start
        if not bad:
            progress("measuring the shortcut ceilings ...")
            report["shortcut_ceilings"] = ceilings.measure(stage, chosen, num_proc=num_proc)
        t_ceilings = time.perf_counter() - t_start - t_rows
        report["ok"] = not bad
        report["problems"] = bad
        checks.write(stage, report)
        scratch.join()
        if bad:
            raise ValueError(f"build of profile {prof.name!r} failed its checks: {'; '.join(bad)}")
        card.render(stage, splits=splits, validation=report, profile=prof,
                    build_command=build_command(prof.name, Path("gridwm-judge-data"), seed,
                                                sampling_seed, configs and chosen,
                                                nocue_style))
        replace_dir(stage, out)
        with contextlib.suppress(OSError):
            (out / STAGE_LOCK).unlink()
    except BaseException:
        if scratch is not None:
            scratch.join()
        shutil.rmtree(stage, ignore_errors=True)
        remove_made(made)  # a refused build leaves no folder it made
        raise
    finally:
        lock.release()
    # Once more, now the build is done: a killed build's last threads may have held its
    # stage's lock when this build started.
    with contextlib.suppress(OSError):
        remove_dead_stages(out)
    return BuildReport(out=out, profile=prof.name, configs=chosen,
                       rows={c: s["num_examples"] for c, s in splits.items()}, seconds=seconds,
                       generation_seconds=t_gen, total_seconds=time.perf_counter() - t_start,
                       validation=report, images_encoded=images_encoded,
                       seconds_before_ceilings=t_rows, ceilings_seconds=t_ceilings)


def _remove(*folders: Path) -> None:
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def remove_dead_stages(out: Path, min_age_s: float = 60.0) -> list[Path]:
    """Remove what killed builds into ``out`` left beside it; returns the folders removed.

    A ``.OUT.building-*`` folder is dead when nobody holds its lock (a folder without a lock
    file, from an older version, when older than ``min_age_s``); ``.OUT.old-*`` folders are
    previous outputs a killed build had set aside.
    """
    removed = []
    for path in sorted(out.parent.glob(f".{out.name}.building-*")):
        lock_path = path / STAGE_LOCK
        if not lock_path.exists():
            if path.is_dir() and time.time() - path.stat().st_mtime > min_age_s:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
            continue
        try:
            lock = try_lock(lock_path)
        except OSError:  # gone meanwhile, or not ours to open
            continue
        if lock is None:  # a live build holds it
            continue
        try:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            lock.release()
    for path in sorted(out.parent.glob(f".{out.name}.old-*")):
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


@contextlib.contextmanager
def _plain_failures():
    """Ctrl-C and OS errors reach the command line as what they are.

    An error raised while unwinding Ctrl-C (``datasets``' pool cleanup raises a TimeoutError
    when its workers are gone) is reported as the interruption; an OSError (a full disk)
    that ``datasets`` wraps in its own error is raised as itself, so it is one line.
    """
    hit = []

    def on_sigint(signum, frame):
        hit.append(signum)
        raise KeyboardInterrupt

    catch = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if catch:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    except Exception as exc:
        if hit:
            raise KeyboardInterrupt from exc
        cause = _os_error_in(exc)
        if cause is not None and cause is not exc:
            raise cause from exc
        raise
    finally:
        if catch:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _os_error_in(exc: BaseException | None) -> OSError | None:
    """The first OSError in ``exc``'s chain of causes, if any."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OSError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None

"""``eval --engine ray``: the local runner's requests asked by judge replicas on Ray.

Why Ray: it schedules actors over CPUs, GPUs and nodes and restarts a replica that dies (the
rows it held are asked again), so this package writes no scheduler. What is asked and stored
is the local runner's: rows are read from the dataset's Parquet files as a Ray Dataset, each
replica (a Ray Data actor holding one judge) turns its rows into requests with
:func:`~gridwm_judge.runner.evaluate.ask_row` and its responses into records with
:func:`~gridwm_judge.runner.evaluate.prediction_record`, so uids, item digests, request hashes
and parses equal those of ``--engine local``. Records stream back to the driver, which stores
each at once (fsynced, one line per uid: a row a restarted replica answers twice is kept once).
The driver reads uids and image counts (no image bytes) and holds records, never images:
those stay in Ray's object store and the replicas.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.dataset_io import SPLIT, available_configs
from gridwm_judge.install import install_line
from gridwm_judge.judges import split_spec
from gridwm_judge.judges.base import JudgeOptions, MissingDependencyError
from gridwm_judge.judges.http_judge import HTTPJudge, RateLimiter
from gridwm_judge.runner import ray_vllm
from gridwm_judge.runner.evaluate import (
    EvalConfig,
    PendingRow,
    ask_row,
    prediction_record,
)
from gridwm_judge.runner.manifest import RunManifest
from gridwm_judge.runner.store import PredictionStore
from gridwm_judge.task_table import task_spec

ENGINES = ("local", "ray")
CONNECT_TIMEOUT_S = 10.0  # the TCP probe of --ray-address (ray.init's own wait is longer)
_ROW_COLUMNS = ("uid", "prompt", "images", "answer", "prompt_style")


class RayUnreachableError(ValueError):
    """--ray-address (or RAY_ADDRESS) names no Ray cluster that answers."""


class ReplicaFailedError(RuntimeError):
    """A judge replica could not start, or died more often than Ray restarts it: one line
    naming the root cause instead of Ray's nested tracebacks."""


def root_cause(exc: BaseException) -> BaseException:
    """The deepest exception in ``exc``'s chain that is not Ray's own wrapper."""
    seen, found, todo = set(), exc, [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if not type(e).__module__.startswith("ray."):
            found = e
        todo += [c for c in (getattr(e, "cause", None), e.__cause__, e.__context__)
                 if isinstance(c, BaseException)]
    return found


def require_ray():
    """``ray`` with Ray Data, or MissingDependencyError with the install line."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "--engine ray needs 'ray[data]', which is not installed; install it with: "
            f"{install_line('ray')}"
        ) from exc
    return ray


def replica_cpus(cluster_cpus: float, replicas: int) -> float:
    """CPUs one replica reserves: at most one, leaving one CPU of the cluster to the Parquet
    reading tasks, so a 2-core machine never starves the reads that feed the replicas."""
    return round(max(0.1, min(1.0, (cluster_cpus - 1) / max(1, replicas))), 3)


def local_cpus() -> int:
    """CPUs of a local Ray started by eval: the machine's, at least 2 (one reads, one asks)."""
    return max(2, os.cpu_count() or 1)


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of ``host:port`` or ``ray://host:port``; None for ``auto`` / ``local``."""
    bare = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = bare.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse in ``timeout_s`` an address where nothing listens (ray.init would retry for a
    minute or more before saying so)."""
    where = _host_port(address)
    if where is None:
        return
    try:
        socket.create_connection(where, timeout=timeout_s).close()
    except OSError as exc:
        raise RayUnreachableError(
            f"cannot reach a Ray cluster at {address!r} ({exc.strerror or exc}); start one "
            "with `ray start --head` on the head node and give its address (host:6379), or "
            "leave out --ray-address and RAY_ADDRESS to start a local Ray"
        ) from exc


SOCKET_PATH_MAX = 107
"""Ray makes AF_UNIX sockets under its temporary folder; their paths may not be longer."""
_SOCKET_TAIL = len("/gwj-ray-xxxxxxxx/session_2026-12-05_14-01-47_226773_1234567/sockets/"
                   "plasma_store")


def local_temp_parent() -> str:
    """Where a local Ray's own temporary folder is made: RAY_TMPDIR if set (the user's place
    for Ray's files; objects Ray spills go there too) and short enough for Ray's socket paths,
    else /tmp (not TMPDIR, often too long for them)."""
    parent = os.environ.get("RAY_TMPDIR") or ""
    if not parent or len(parent) + _SOCKET_TAIL > SOCKET_PATH_MAX:
        parent = "/tmp" if os.name == "posix" else tempfile.gettempdir()
    return parent


@contextlib.contextmanager
def ray_session(address: str | None = None) -> Iterator[dict[str, Any]]:
    """Ray for the duration of the block: the one this process already joined (left running),
    the cluster at ``address`` / RAY_ADDRESS (joined, left running), or a local one started
    here with the dashboard and usage reporting off, stopped at the end. A local Ray keeps its
    session (logs, sockets, spilled objects) in a temporary folder of its own, removed once it
    has stopped, so runs leave no ``session_*`` folders behind. Yields provenance."""
    ray = require_ray()
    if ray.is_initialized():
        _quiet_ray_data()
        yield {"address": "joined", "ray_version": ray.__version__}
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # read by ray.init
    address = address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": "error"}
    temp_dir = None
    if address:
        check_reachable(address)
    else:
        temp_dir = tempfile.mkdtemp(prefix="gwj-ray-", dir=local_temp_parent())
        kwargs.update(num_cpus=local_cpus(), include_dashboard=False, _temp_dir=temp_dir)
    try:
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, TimeoutError) as exc:
            raise RayUnreachableError(f"cannot join the Ray cluster at {address!r}: "
                                      f"{str(exc).splitlines()[0][:200]}") from exc
        _spend_restart_warning()
        _quiet_ray_data()
        yield {"address": address or "local", "ray_version": ray.__version__}
    finally:
        ray.shutdown()  # also what a failed ray.init started
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)


def _spend_restart_warning() -> None:
    """Spend, with stderr muted, the ``core_worker.cc`` error Ray prints the first time this
    process creates a restartable actor whose constructor arguments are in the object store
    (ray-project/ray#53727), so that a successful run does not print it.

    Why: Ray Data gives every replica actor its function and context as ObjectRefs and makes it
    restartable (``max_restarts=-1``, which is how a killed replica comes back), so every
    ``--engine ray`` run would print that line, whatever the replica's own arguments are. The
    warning is moot there (Ray Data holds those refs until the run ends) and Ray prints it once
    per process, at actor creation, from the creating call itself: creating one such actor
    here (and dropping it), with file descriptor 2 on /dev/null for that one call, spends it and
    mutes nothing else. Done only where :func:`ray_session` itself called ``ray.init``."""
    import ray

    @ray.remote(num_cpus=0, max_restarts=1)
    class Spender:  # restartable, its constructor given an ObjectRef: what Ray warns about
        def __init__(self, ref: Any) -> None:
            pass

    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        Spender.remote(ray.put(None))  # its handle, dropped at once, ends the actor
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _quiet_ray_data() -> None:
    """No Ray Data progress bars or per-run banners: eval prints its own progress."""
    import logging

    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ctx.enable_auto_log_stats = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)


def config_files(dataset: str, config: str) -> list[Path]:
    """The Parquet files of ``config``'s test split in a local dataset folder, in the order
    ``datasets`` reads them (sorted), so ``--limit`` takes the same rows on both engines."""
    path = Path(dataset)
    if not path.is_dir():
        raise ValueError(
            f"--engine ray reads a local dataset folder (on a cluster, one every node sees); "
            f"{dataset!r} is not one: download it first, e.g. `hf download --repo-type dataset "
            f"{dataset} --local-dir DIR`, and give DIR")
    configs = available_configs(dataset)
    if config not in configs:
        raise ValueError(f"dataset {dataset!r} has no config {config!r}; it has: "
                         f"{', '.join(configs) or 'none'}")
    files = sorted((path / "data" / config).glob(f"{SPLIT}-*.parquet"))
    if not files:
        raise ValueError(f"dataset {dataset!r} has no Parquet files for config {config!r} "
                         f"(expected data/{config}/{SPLIT}-*.parquet)")
    return files


def index_table(files: list[Path]):
    """uid, representation and image count per row (images read as paths only, never bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = ["uid", "representation", "images.list.element.path"]
    return pa.concat_tables([pq.ParquetFile(f).read(columns=cols) for f in files])


@dataclass
class RayEngine:
    """``--engine ray``: ``replicas`` judge actors on the Ray at ``address`` (None: local)."""

    replicas: int = 1
    address: str | None = None
    pipeline_parallel_size: int = 1  # vllm: judges only

    def __post_init__(self) -> None:
        for flag, value in (("--replicas", self.replicas),
                            ("--pipeline-parallel-size", self.pipeline_parallel_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{flag} must be an integer >= 1, got {value!r}")
        self._files: dict[str, list[Path]] = {}
        self._index: dict[str, Any] = {}
        self._sending: dict[str, Any] = {}

    def check(self, cfg: EvalConfig) -> None:
        """Refuse settings that mean nothing (or are unsupported) for this judge on Ray."""
        vllm = split_spec(cfg.judge)[0] == "vllm"
        if self.pipeline_parallel_size != 1 and not vllm:
            raise ValueError(f"--pipeline-parallel-size means nothing for {cfg.judge} (only "
                             "for vllm: judges); drop it")
        if vllm and cfg.options.structured:
            ray_vllm.processor_config("m", cfg.options)  # refuses --structured by name

    def tables(self, cfg: EvalConfig) -> dict[str, Any]:
        require_ray()  # the install line before anything is read or written
        self.check(cfg)
        self._files = {t: config_files(cfg.dataset, task_spec(t).config) for t in cfg.tasks}
        self._index = {t: index_table(files) for t, files in self._files.items()}
        return dict(self._index)

    def sending(self) -> dict[str, Any]:
        """What the judge says its requests carried (run.json ``as_sent``), as a replica
        reported it."""
        return dict(self._sending)

    def provenance(self) -> dict[str, Any]:
        ray = require_ray()
        address = self.address or os.environ.get("RAY_ADDRESS") or "local"
        return {"name": "ray", "replicas": self.replicas, "address": address,
                "ray_version": ray.__version__}

    def ask(self, cfg: EvalConfig, options: JudgeOptions, manifest: RunManifest,
            pending: tuple[PendingRow, ...], store: PredictionStore, out: Path) -> int:
        if not pending:
            manifest.write()
            return 0
        with ray_session(self.address):
            import ray.exceptions

            try:
                return self._ask(cfg, options, manifest, pending, store, out)
            except ray.exceptions.RayError as exc:
                cause = root_cause(exc)
                text = (str(cause).strip().splitlines() or [""])[-1][:300]
                raise ReplicaFailedError(
                    f"a {cfg.judge} replica failed ({type(cause).__name__}: {text}); the "
                    f"{len(store)} stored answers are kept, rerun to resume") from exc

    def _ask(self, cfg, options, manifest, pending, store, out) -> int:
        import ray
        import ray.data

        # one rate limit (--rps, a server's Retry-After) for all replicas together
        limiter = ray.remote(RateLimiter).options(num_cpus=0).remote(options.rps)
        task_of = {str(f.resolve()): t for t, files in self._files.items() for f in files}
        columns = _common_columns(list(task_of))
        from ray.data.expressions import col

        wanted = frozenset(self._index[p.task].column("uid")[p.index].as_py() for p in pending)
        rows = (ray.data.read_parquet(list(task_of), include_paths=True)
                .select_columns([*columns, "path"])
                .filter(expr=col("uid").is_in(sorted(wanted)))  # a resume reads only the rest
                .repartition(target_num_rows_per_block=_rows_per_batch(options)))
        identity = {k: manifest.record.identity()[k] for k in ("judge", "judge_options")}
        if split_spec(cfg.judge)[0] == "vllm":
            settings = ray_vllm.judge_settings(split_spec(cfg.judge)[1], options, cfg.judge)
            self._sending = ray_vllm.judge_sending(split_spec(cfg.judge)[1], options, cfg.judge)
            answers = ray_vllm.build(
                rows, cfg, options,
                {**identity, "judge_settings": settings}, task_of, replicas=self.replicas,
                pipeline_parallel_size=self.pipeline_parallel_size)
            return _store_answers(answers, cfg, manifest, store, out, len(pending),
                                  self.replicas, known_settings=settings)
        cpus = replica_cpus(ray.cluster_resources().get("CPU", 1.0), self.replicas)
        answers = rows.map_batches(
            _Replica,
            fn_constructor_kwargs={"cfg": cfg, "options": options, "task_of": task_of,
                                   "pending": wanted, "identity": identity,
                                   "limiter": limiter},
            batch_size=_rows_per_batch(options),
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=self.replicas),
            num_cpus=cpus,
        )
        return _store_answers(answers, cfg, manifest, store, out, len(pending), self.replicas,
                              sending=self._sending)


def _rows_per_batch(options: JudgeOptions) -> int:
    """Rows a replica is handed at once: enough to keep its concurrent requests (workers) or
    its model's batch busy, few enough that a dead replica costs little and answers stream."""
    return max(options.workers, options.batch_size)


def _common_columns(files: list[str]) -> list[str]:
    """The row columns a replica reads that every file has (answer for the oracle judge,
    prompt_style for tasks with prompt styles)."""
    import pyarrow.parquet as pq

    have = set(_ROW_COLUMNS)
    for f in files:
        have &= set(pq.read_schema(f).names)
    missing = [c for c in ("uid", "prompt", "images") if c not in have]
    if missing:
        raise ValueError(f"Parquet files lack column(s) {', '.join(missing)}: {files[0]}")
    return [c for c in _ROW_COLUMNS if c in have]


class SharedLimiter:
    """An HTTP judge's rate limiter on a replica, backed by one :class:`RateLimiter` actor that
    every replica of the run asks: ``--rps`` and a server's ``Retry-After`` hold for all
    replicas together (times are wall-clock seconds: the replicas of a cluster share them)."""

    def __init__(self, actor: Any):
        self.actor = actor

    def wait(self) -> None:
        import ray

        ref: ray.ObjectRef[float] = self.actor.reserve.remote()  # RateLimiter.reserve
        delay = ray.get(ref)
        if delay > 0:
            time.sleep(delay)

    def hold(self, seconds: float) -> None:
        import ray

        ray.get(self.actor.hold.remote(seconds))


class _Replica:
    """One judge on a Ray actor: rows in, prediction records (JSON lines) out."""

    def __init__(self, cfg: EvalConfig, options: JudgeOptions, task_of: Mapping[str, str],
                 pending: frozenset[str], identity: Mapping[str, Any], limiter: Any = None):
        from gridwm_judge.judges import make_judge

        self.cfg, self.task_of, self.pending = cfg, dict(task_of), pending
        self.judge = make_judge(cfg.judge, options)
        if limiter is not None and isinstance(self.judge, HTTPJudge):
            self.judge.limiter = SharedLimiter(limiter)
        self.settings = self.judge.settings()
        self.identity = {**identity, "judge_settings": self.settings}
        self.settings_json = json.dumps(self.settings, sort_keys=True)

    def __call__(self, batch):
        import pyarrow as pa

        asked = {}

        def requests():
            for row in batch.to_pylist():
                if row["uid"] not in self.pending:
                    continue
                task = self.task_of[str(Path(row["path"]).resolve())]
                a = ask_row(task, row, self.cfg, self.identity, self.judge.needs_gold)
                asked[a.request.uid] = a
                yield a.request

        records = []
        for resp in self.judge.judge(requests()):
            a = asked.pop(resp.uid)
            rec = prediction_record(self.cfg.judge, a.request, a.digest, resp)
            records.append(json.dumps(rec.to_json(), sort_keys=True))
        n = len(records)
        sending = json.dumps(getattr(self.judge, "sending", dict)(), sort_keys=True)
        return pa.table({"record": records, "settings": [self.settings_json] * n,
                         "needs_gold": [bool(self.judge.needs_gold)] * n,
                         "sending": [sending] * n})

    def __del__(self) -> None:
        judge = getattr(self, "judge", None)
        if judge is not None:
            judge.close()


def _store_answers(answers, cfg: EvalConfig, manifest: RunManifest, store: PredictionStore,
                   out: Path, total: int, replicas: int,
                   known_settings: dict[str, Any] | None = None,
                   sending: dict[str, Any] | None = None) -> int:
    """Store each record as its batch comes back. run.json gets the judge settings before
    the first record is stored: ``known_settings``, else those the first replica reports
    (each replica reports its own; replicas that disagree are refused)."""
    from tqdm import tqdm

    on_terminal = cfg.progress and sys.stderr.isatty()
    if cfg.progress and not on_terminal:
        print(f"eval {cfg.judge}: asking {total} requests on Ray ({replicas} replica(s)) ...",
              file=sys.stderr, flush=True)
    bar = tqdm(total=total, desc=f"eval {cfg.judge} (ray)", unit="req", file=sys.stderr,
               disable=not on_terminal, dynamic_ncols=True)
    new = errors = 0
    settings: str | None = None
    if known_settings is not None:
        manifest.settle(known_settings, False)
        settings = json.dumps(known_settings, sort_keys=True)
    try:
        for batch in answers.iter_batches(batch_size=None, batch_format="pyarrow"):
            for row in batch.to_pylist():
                reported = row.get("settings") or settings
                if settings is None:
                    assert reported is not None  # every replica's row carries its settings
                    settings = reported
                    manifest.settle(json.loads(settings), bool(row["needs_gold"]))
                elif reported != settings:
                    raise ValueError(f"replicas of {cfg.judge} report different judge settings "
                                     f"({settings} vs {reported}); refusing to mix them")
                if row.get("sending") and sending is not None:  # the latest a replica knows
                    sending.clear()
                    sending.update(json.loads(row["sending"]))
                if row.get("record"):
                    record = json.loads(row["record"])
                else:  # a row the vLLM processor failed (it skips postprocess)
                    record = ray_vllm.record_of(row, cfg.judge)
                if store.append(record):
                    new += 1
                    errors += record["status"] == "error"
                    bar.update(1)
                    bar.set_postfix(errors=errors, refresh=False)
    finally:
        bar.close()
    return new

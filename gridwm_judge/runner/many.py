"""``eval-many SPEC.yaml``: several judges over one dataset, a run folder each, one Ray.

Why a spec file: comparing ten judges is one job with one dataset and one cluster, and each
judge has its own options (endpoint, workers, budgets). The whole file is checked, every
entry turned into an :class:`~gridwm_judge.runner.evaluate.EvalConfig` and checked, before
anything runs, so a typo in the tenth entry does not surface after nine judges' hours. The
judges then run one after the other on the same Ray (each with its ``replicas``), and each run
folder is an ordinary ``eval`` run: resumable, and read by ``report`` like any other.

    dataset: ./gridwm-standard        # required
    tasks: all                        # required: a comma list, or all
    out: runs                         # where run folders go (<out>/<name>), default "."
    engine: ray                       # or local; default ray
    replicas: 1                       # default replicas per judge
    ray_address: null                 # or host:6379 (else RAY_ADDRESS, else a local Ray)
    judges:
      - judge: openai:Qwen2.5-VL-7B   # required
        name: qwen7b                  # run folder <out>/<name> (default: from the spec)
        base_url: http://127.0.0.1:8000/v1
        workers: 8
        replicas: 2                   # and pipeline_parallel_size for vllm: judges
        max_tokens: {C: 64}
      - judge: openai:gpt-5           # eval's reasoning options, per judge
        base_url: https://api.openai.com/v1
        reasoning_effort: low
        reasoning_budget: 4096
      - judge: anthropic:claude-sonnet-4-6
        batch: true                   # through Message Batches: submitted, not waited for;
                                      # rerunning eval-many collects (and submits what is left)
      - judge: baseline:pixel-heuristic
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gridwm_judge.judges.base import JudgeOptions
from gridwm_judge.runner.batch import BatchOptions
from gridwm_judge.runner.evaluate import EvalConfig, EvalSummary, run_eval, tasks_meant_by_all
from gridwm_judge.runner.ray_engine import ENGINES, RayEngine, ray_session
from gridwm_judge.task_table import ALL_TASKS, parse_task_list

TOP_FIELDS = {"dataset": str, "tasks": str, "out": str, "engine": str, "replicas": int,
              "ray_address": str, "judges": list}
OPTION_FIELDS: dict[str, type | tuple[type, ...]] = {
    "base_url": str, "workers": int, "rps": (int, float), "timeout": (int, float),
    "retries": int, "batch_size": int, "seed": int, "structured": bool,
    "max_model_len": int, "max_pixels": int, "tensor_parallel_size": int, "device": str,
    "token_field": str, "reasoning_effort": str, "reasoning_budget": int,
    "chat_template_kwargs": dict,
}
ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "judge": str, "name": str, "tasks": str, "replicas": int, "pipeline_parallel_size": int,
    "representation": str, "batch": bool,
    "limit": int, "max_tokens": dict, **OPTION_FIELDS,
}


@dataclass(frozen=True)
class PlannedRun:
    """One judge of the spec, checked: its eval settings and its replicas."""

    name: str
    cfg: EvalConfig
    replicas: int
    pipeline_parallel_size: int = 1


@dataclass(frozen=True)
class ManyPlan:
    runs: tuple[PlannedRun, ...]
    engine: str
    ray_address: str | None


def _typed(where: str, field: str, value: Any, kind) -> Any:
    ok = isinstance(value, kind) and not (isinstance(value, bool) and kind in (int, (int, float)))
    if not ok:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ValueError(f"{where}: field {field!r} must be {names}, got {value!r}")
    return value


def _fields(where: str, obj: Any, allowed: Mapping[str, Any], required: tuple[str, ...]) -> dict:
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected a mapping of fields, got {type(obj).__name__}")
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r}; expected some of "
                         f"{', '.join(allowed)}")
    missing = [k for k in required if k not in obj]
    if missing:
        raise ValueError(f"{where}: missing field {missing[0]!r}")
    return {k: _typed(where, k, v, allowed[k]) for k, v in obj.items() if v is not None}


def _run_name(judge: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", judge).strip("-.") or "judge"


def plan(spec: Mapping[str, Any], source: str = "spec") -> ManyPlan:
    """Check every field of every entry (ValueError naming the entry and the field)."""
    top = _fields(source, spec, TOP_FIELDS, ("dataset", "tasks", "judges"))
    engine = top.get("engine", "ray")
    if engine not in ENGINES:
        raise ValueError(f"{source}: field 'engine' must be one of {', '.join(ENGINES)}, "
                         f"got {engine!r}")
    if not top["judges"]:
        raise ValueError(f"{source}: field 'judges' lists no judge")
    root = Path(top.get("out", "."))
    runs: list[PlannedRun] = []
    for i, entry in enumerate(top["judges"]):
        where = f"{source}: judges[{i}]"
        if isinstance(entry, dict) and isinstance(entry.get("judge"), str):
            where += f" ({entry['judge']})"
        fields = _fields(where, entry, ENTRY_FIELDS, ("judge",))
        try:
            runs.append(_planned(fields, top, root, engine))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from exc
    seen: dict[Path, str] = {}
    for run in runs:
        if run.cfg.out in seen:
            raise ValueError(f"{source}: judges {seen[run.cfg.out]!r} and {run.name!r} would "
                             f"write the same run folder {run.cfg.out}; give each a 'name'")
        seen[run.cfg.out] = run.name
    return ManyPlan(tuple(runs), engine, top.get("ray_address"))


def _planned(fields: dict, top: dict, root: Path, engine: str) -> PlannedRun:
    judge = fields["judge"]
    raw_tasks = fields.get("tasks", top["tasks"])
    tasks = parse_task_list(raw_tasks)
    if raw_tasks.strip().lower() == "all":
        tasks = tasks_meant_by_all(judge, top["dataset"])
    budgets = {s.name: s.max_tokens for s in ALL_TASKS}
    for task, n in fields.get("max_tokens", {}).items():
        key = str(task).upper()
        if key not in budgets:
            raise ValueError(f"field 'max_tokens' names unknown task {task!r}")
        budgets[key] = _typed("max_tokens", str(task), n, int)
    kwargs = {k: fields[k] for k in OPTION_FIELDS if k in fields and k != "timeout"}
    if "timeout" in fields:
        kwargs["timeout_s"] = float(fields["timeout"])
    if "rps" in kwargs:
        kwargs["rps"] = float(kwargs["rps"])
    replicas = fields.get("replicas", top.get("replicas", 1))
    pp = fields.get("pipeline_parallel_size", 1)
    if replicas < 1 or pp < 1:
        raise ValueError(f"fields 'replicas' and 'pipeline_parallel_size' must be >= 1, got "
                         f"{replicas} and {pp}")
    batch = BatchOptions(wait=False) if fields.get("batch") else None
    if batch is not None and ("replicas" in fields or pp != 1):
        raise ValueError("a batch judge is sent from this process: 'replicas' and "
                         "'pipeline_parallel_size' mean nothing with 'batch: true'")
    if engine == "local" and (replicas != 1 or pp != 1 or "ray_address" in top):
        raise ValueError("'replicas' / 'pipeline_parallel_size' / 'ray_address' mean nothing "
                         "for engine local")
    name = fields.get("name", _run_name(judge))
    cfg = EvalConfig(dataset=top["dataset"], tasks=tasks, judge=judge, out=root / name,
                     representation=fields.get("representation"), limit=fields.get("limit"),
                     max_tokens=budgets, options=JudgeOptions(**kwargs), batch=batch)
    cfg.check()
    if engine == "ray" and batch is None:
        RayEngine(replicas, None, pp).check(cfg)
    return PlannedRun(name, cfg, replicas, pp)


def load_spec(path: Path) -> ManyPlan:
    """Read and check SPEC.yaml."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"spec file {str(path)!r} does not exist") from None
    except UnicodeDecodeError:
        raise ValueError(f"spec file {str(path)!r} is not UTF-8 text") from None
    except OSError as exc:
        raise ValueError(f"cannot read spec file {str(path)!r}: "
                         f"{exc.strerror or type(exc).__name__}") from None
    try:
        spec = yaml.load(text, Loader=_unique_key_loader())  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        raise ValueError(f"spec file {str(path)!r} is not valid YAML: {_yaml_problem(exc)}"
                         ) from None
    if spec is None:
        raise ValueError(f"spec file {str(path)!r} is empty; it lists the judges to run "
                         f"(field reference: {FIELD_REFERENCE})")
    return plan(spec, str(path))


FIELD_REFERENCE = "python -c 'import gridwm_judge.runner.many as m; print(m.__doc__)'"
"""How to print this module's docstring, the spec's field reference."""


def _unique_key_loader():
    """A ``yaml.SafeLoader`` that refuses a key given twice in one mapping (PyYAML keeps the
    last silently: a second ``judges:`` would drop the first list's runs)."""
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _value in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"the key {key!r} is given twice", key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return Loader


def _yaml_problem(exc: Exception) -> str:
    """What PyYAML found wrong and where (line and column counted from 1), on one line."""
    import yaml

    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.context:
        problem = f"{problem} ({exc.context})"
    return where + " ".join(str(problem).split())


def run_many(many: ManyPlan, progress: bool = True,
             on_done: Callable[[PlannedRun, EvalSummary], None] | None = None
             ) -> list[tuple[PlannedRun, EvalSummary]]:
    """Run each judge in turn (one Ray for all with engine ray); summaries in spec order."""
    done: list[tuple[PlannedRun, EvalSummary]] = []

    def each() -> None:
        for run in many.runs:
            engine = (RayEngine(run.replicas, many.ray_address, run.pipeline_parallel_size)
                      if many.engine == "ray" and run.cfg.batch is None else None)
            summary = run_eval(replace(run.cfg, progress=progress), engine)
            done.append((run, summary))
            if on_done is not None:
                on_done(run, summary)

    if many.engine == "ray":
        with ray_session(many.ray_address):
            each()
    else:
        each()
    return done

"""``gridwm-judge eval``: run a judge over a dataset into a resumable RUN_DIR."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from gridwm_judge.command_line import add_command, options_of
from gridwm_judge.judges.base import (
    REASONING_EFFORTS,
    TOKEN_FIELDS,
    JudgeOptions,
    MissingDependencyError,
)
from gridwm_judge.redact import redact
from gridwm_judge.runner.batch import BatchOptions
from gridwm_judge.runner.evaluate import REASKABLE, EvalConfig, run_eval, tasks_meant_by_all
from gridwm_judge.runner.many import FIELD_REFERENCE, load_spec, run_many
from gridwm_judge.runner.ray_engine import ENGINES, RayEngine, ReplicaFailedError
from gridwm_judge.task_table import ALL_TASKS, parse_task_list

EXAMPLES = """examples:
  gridwm-judge eval --dataset ./gridwm-smoke --tasks c,d --judge baseline:pixel-heuristic \\
      --out runs/px
  gridwm-judge eval --dataset ./gridwm-smoke --tasks c --judge openai:Qwen2.5-VL-7B \\
      --base-url http://127.0.0.1:8000/v1 --workers 8 --rps 20 --out runs/qwen
  gridwm-judge eval --dataset ./gridwm-smoke --tasks all --judge openai:gpt-5 \
      --base-url https://api.openai.com/v1 --reasoning-effort low --reasoning-budget 4096 \
      --out runs/gpt-5
  gridwm-judge eval --dataset ./gridwm-smoke --tasks all --judge anthropic:claude-sonnet-4-6 \
      --out runs/claude
  gridwm-judge eval --dataset ./gridwm-smoke --tasks all --judge hf:./my-tiny-vlm --out runs/tiny
  gridwm-judge eval --dataset ./gwj --tasks all --judge vllm:Qwen/Qwen2.5-VL-7B-Instruct \
      --engine ray --replicas 8 --out runs/qwen7b          # 8 GPUs, one engine each
  gridwm-judge eval-many judges.yaml                      # several judges, one Ray

judges: vllm:MODEL, openai:MODEL (--base-url; key from OPENAI_API_KEY or GRIDWM_API_KEY),
anthropic:MODEL (key from ANTHROPIC_API_KEY), gemini:MODEL (key from GEMINI_API_KEY or
GOOGLE_API_KEY), hf:PATH_OR_ID,
baseline:{always-yes,always-no,random,oracle,pixel-heuristic,prompt-only} and the shortcut
judges baseline:{first-frame,last-frame,mask-artifact,least-change} (with --tasks all they
run every task they have a rule for that the dataset holds, MiniWorld's and the controls'
too; naming another task is refused).
Rerunning the same command resumes: it asks the uids missing from RUN_DIR/predictions.jsonl
and those whose request errored (nothing came back); --reask adds empty or truncated answers.
eval exits 1 while errored requests remain and prints the command that asks them again.
"""


RUN_REFUSED = (MissingDependencyError, ReplicaFailedError)
"""One line, exit 2: the judge's backend (or ray) is not installed; a ray replica cannot start."""
RUN_INTERRUPTED = "finished requests are saved, rerun to resume"


def register(subparsers) -> None:
    p = add_command(
        subparsers, "eval", run,
        refused=RUN_REFUSED, interrupted=RUN_INTERRUPTED,
        help="run a judge over dataset tasks (resumable predictions.jsonl)",
        description="Run a judge over task configs of a dataset; writes RUN_DIR/predictions.jsonl "
        "(one line per uid, fsynced) and RUN_DIR/run.json.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", required=True, help="local dataset folder or Hub repo id")
    p.add_argument(
        "--tasks", required=True, help="comma list of tasks (a,b,...) or configs, or 'all'"
    )
    p.add_argument("--judge", required=True, help="BACKEND:NAME, e.g. baseline:pixel-heuristic")
    p.add_argument(
        "--out", required=True, type=Path, help="run folder (created; resumed if present)"
    )
    p.add_argument(
        "--representation",
        choices=("composite", "split"),
        default=None,
        help="only rows of this representation (rows without one are kept)",
    )
    p.add_argument(
        "--limit", type=int, default=None, help="at most N rows per task (dataset order)"
    )
    p.add_argument("--workers", type=int, default=4,
                   help="concurrent HTTP requests (openai, anthropic, gemini)")
    p.add_argument("--rps", type=float, default=None,
                   help="request rate limit per second (openai, anthropic, gemini)")
    p.add_argument(
        "--base-url", default=None,
        help="openai: the OpenAI-compatible endpoint, e.g. http://host:8000/v1 (required); "
        "anthropic / gemini: a proxy or test server instead of the provider's API",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request")
    p.add_argument("--retries", type=int, default=4, help="retries on 429/5xx/529/timeouts")
    p.add_argument("--batch-size", type=int, default=8, help="batch size (hf)")
    p.add_argument(
        "--seed", type=int, default=0, help="seed (random baseline, server-side sampling seed)"
    )
    p.add_argument(
        "--reasoning-effort", default=None, choices=REASONING_EFFORTS,
        help="reasoning effort sent to the API (openai: reasoning_effort; anthropic: "
        "output_config.effort; gemini: thinking_level); part of the run's identity",
    )
    p.add_argument(
        "--reasoning-budget", type=int, default=0, metavar="TOKENS",
        help="tokens for thinking: added to each task's limit where the API counts reasoning "
        "inside it (openai, anthropic, gemini); anthropic: the thinking budget, gemini: "
        "thinking_budget; recorded in run.json",
    )
    p.add_argument(
        "--token-field", default="auto", choices=TOKEN_FIELDS,
        help="openai: the token limit's name; auto sends max_tokens and switches to "
        "max_completion_tokens (o-series, GPT-5) when the server's 400 reply asks for it",
    )
    p.add_argument(
        "--chat-template-kwargs", default=None, type=_json_object, metavar="JSON",
        help="openai (vLLM/SGLang servers): chat_template_kwargs sent with every request, "
        "e.g. '{\"enable_thinking\": false}' for Qwen3; part of the run's identity",
    )
    p.add_argument(
        "--structured",
        action="store_true",
        help="constrain answers to the task format (vllm structured outputs); off by default",
    )
    p.add_argument("--max-model-len", type=int, default=None, help="vllm context length")
    p.add_argument(
        "--max-pixels",
        type=int,
        default=None,
        help="per-image pixel cap: every image is scaled down (aspect kept) before any backend "
        "sees it; recorded in run.json",
    )
    p.add_argument(
        "--tensor-parallel-size",
        type=int,
        default=1,
        help="vllm: GPUs one model is split over (tensor parallel)",
    )
    p.add_argument(
        "--device", default=None, help="hf device (default: cuda via accelerate if present)"
    )
    for spec in ALL_TASKS:
        t = spec.name.lower()
        p.add_argument(
            f"--max-tokens-{t}",
            f"--max-tokens-{spec.name}",
            dest=f"max_tokens_{t}",
            type=int,
            default=spec.max_tokens,
            help=f"max new tokens for task {spec.name}" + "".join(
                f"; {style} rows get {st.budget_factor}x" for style, st in spec.styles.items()
                if st.budget_factor != 1),
        )
    p.add_argument(
        "--reask",
        default="",
        metavar="STATUSES",
        help=f"also ask again the uids whose stored answer has one of these statuses (comma "
        f"list of {', '.join(REASKABLE)}); errored requests are always asked again",
    )
    p.add_argument("--batch", action="store_true",
                   help="ask the rows left through the provider's batch interface (openai:, "
                        "anthropic:, gemini: judges; about half the price, results within 24 "
                        "h): submitted, then waited for; run the same command again to collect "
                        "or resume")
    p.add_argument("--no-wait", action="store_true",
                   help="with --batch: return once the batches are submitted")
    p.add_argument("--cancel-batch", action="store_true",
                   help="cancel the run's live batches and collect what had finished")
    p.add_argument("--poll-s", type=float, default=30.0,
                   help="with --batch: seconds between status checks while waiting")
    p.add_argument("--prices", default=None, metavar="FILE",
                   help="prices file that run.json's cost is computed by (default: the "
                        "shipped prices.json; a model it does not list has cost unknown)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_engine_options(p)
    register_many(subparsers)


def register_many(subparsers) -> None:
    p = add_command(
        subparsers, "eval-many", run_many_command,
        refused=RUN_REFUSED, interrupted=RUN_INTERRUPTED,
        help="run several judges over one dataset (one run folder each, one Ray)",
        description="Run every judge of SPEC.yaml over its dataset, one run folder each, on "
        "one Ray cluster (or locally); the whole file is checked before anything runs. "
        f"Rerunning resumes each run. Field reference: {FIELD_REFERENCE}",
    )
    p.add_argument("spec", type=Path, metavar="SPEC.yaml", help="the judges to run")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    p.add_argument("--dry-run", action="store_true",
                   help="check the spec and list the runs; run nothing")


def run_many_command(args: argparse.Namespace) -> int:
    many = load_spec(args.spec)
    for run in many.runs:
        print(f"{run.name}: {run.cfg.judge} on {', '.join(run.cfg.tasks)} -> {run.cfg.out}"
              + (f" ({run.replicas} replica(s))" if many.engine == "ray" else ""))
    if args.dry_run:
        return 0

    def done(run, summary) -> None:
        print(f"eval {run.cfg.judge}: {summary.line()}", flush=True)

    results = run_many(many, progress=not args.no_progress, on_done=done)
    folders = " ".join(shlex.quote(str(run.cfg.out)) for run, _ in results)
    print(f"next: gridwm-judge report {folders} --out REPORT_DIR")
    failed = [run.name for run, summary in results if summary.errors]
    if failed:
        print(f"eval-many: errored requests remain in {', '.join(failed)}; rerun "
              f"`gridwm-judge eval-many {shlex.quote(str(args.spec))}` to ask them again",
              file=sys.stderr)
        return 1
    return 0


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """--engine, --replicas, --ray-address (shared by eval and eval-many)."""
    p.add_argument(
        "--engine", choices=ENGINES, default="local",
        help="local: in this process; ray: judge replicas on Ray (the ray extra: pip install "
        "-e '.[ray]' in a clone), rows read from the dataset's Parquet files",
    )
    p.add_argument(
        "--replicas", type=int, default=None,
        help="ray: judge replicas (actors), each with its own --workers / --batch-size "
        "(default 1)",
    )
    p.add_argument(
        "--pipeline-parallel-size", type=int, default=None,
        help="ray, vllm: judges: pipeline stages of each replica's engine (GPUs per replica = "
        "this x --tensor-parallel-size; default 1)",
    )
    p.add_argument(
        "--ray-address", default=None,
        help="ray: address of a running cluster (host:6379, or RAY_ADDRESS); default: start a "
        "local Ray for this command and stop it after",
    )


def _batch_options(args: argparse.Namespace, engine: RayEngine | None) -> BatchOptions | None:
    """``--batch`` and its companions; refused where they mean nothing."""
    if not (args.batch or args.cancel_batch):
        if args.no_wait:
            raise ValueError("--no-wait means nothing without --batch; add --batch or drop it")
        return None
    if engine is not None:
        raise ValueError("--batch sends the rows to the provider from this process; drop "
                         "--engine ray")
    if args.poll_s <= 0:
        raise ValueError(f"--poll-s must be positive, got {args.poll_s}")
    return BatchOptions(wait=not args.no_wait, cancel=args.cancel_batch, poll_s=args.poll_s)


def engine_of(args: argparse.Namespace) -> RayEngine | None:
    """The engine the flags ask for; ray-only flags given with --engine local are refused."""
    pp = getattr(args, "pipeline_parallel_size", None)
    if args.engine == "local":
        given = [f for f, v in (("--replicas", args.replicas), ("--ray-address", args.ray_address),
                                ("--pipeline-parallel-size", pp)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)} mean(s) nothing for --engine local; add "
                             "--engine ray or drop them")
        return None
    return RayEngine(replicas=1 if args.replicas is None else args.replicas,
                     address=args.ray_address, pipeline_parallel_size=1 if pp is None else pp)


def _json_object(text: str) -> dict:
    """``--chat-template-kwargs``: a JSON object, or one clear line."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def _rerun(args: argparse.Namespace) -> str:
    """The command line to ask again, as typed, with any credential masked (and said so: no
    key from --base-url on the terminal)."""
    command = shlex.join(["gridwm-judge", *args.argv])
    shown = redact(command)
    return shown + (" (credentials masked: put them back)" if shown != command else "")


def run(args: argparse.Namespace) -> int:
    engine = engine_of(args)  # a ray-only flag with --engine local is refused first
    options = JudgeOptions(
        timeout_s=args.timeout,
        **options_of(args, "base_url", "workers", "rps", "retries", "batch_size", "seed",
                     "structured", "max_model_len", "max_pixels", "tensor_parallel_size",
                     "device", "reasoning_effort", "reasoning_budget", "token_field",
                     "chat_template_kwargs"),
    )
    tasks = parse_task_list(args.tasks)
    if args.tasks.strip().lower() == "all":
        tasks = tasks_meant_by_all(args.judge, args.dataset)
    cfg = EvalConfig(
        **options_of(args, "dataset", "judge", "out", "representation", "limit"),
        tasks=tasks,
        max_tokens={s.name: getattr(args, f"max_tokens_{s.name.lower()}") for s in ALL_TASKS},
        options=options,
        progress=not args.no_progress,
        reask=tuple(x.strip() for x in args.reask.split(",") if x.strip()),
        prices=args.prices,
        batch=_batch_options(args, engine),
    )
    summary = run_eval(cfg) if engine is None else run_eval(cfg, engine)
    if summary.dropped_partial_bytes:
        print(
            f"note: dropped a partial trailing line ({summary.dropped_partial_bytes} bytes) "
            "left by an interrupted run; that request was asked again",
            file=sys.stderr,
        )
    print(f"eval {args.judge}: {summary.line()}")
    if summary.errors:
        print(
            f"eval: {summary.errors} request(s) errored (nothing came back); they are not "
            f"scored. Ask them again with: {_rerun(args)}",
            file=sys.stderr,
        )
        return 1
    waited = cfg.batch is not None and cfg.batch.wait and not cfg.batch.cancel
    unanswered = summary.total - summary.done if waited else 0
    if unanswered:
        print(f"eval: {unanswered} row(s) have no answer yet (their batch lines failed or "
              f"expired); ask them again with: {_rerun(args)}", file=sys.stderr)
        return 1
    return 0

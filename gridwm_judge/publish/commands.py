"""``gridwm-judge publish`` and ``gridwm-judge leaderboard``."""

from __future__ import annotations

import argparse
from pathlib import Path

from gridwm_judge.command_line import add_command


def _size(n: int) -> str:
    return f"{n / 1e3:,.1f} kB" if n < 100_000 else f"{n / 1e6:,.1f} MB"


def _publish(args: argparse.Namespace) -> int:
    from gridwm_judge.publish.entries import gather
    from gridwm_judge.publish.results_repo import (
        LOCAL_MODEL,
        LOCAL_RESULTS,
        plan_publish,
        publish_to_hub,
        write_local,
    )

    if args.dry_run and args.local:
        raise ValueError("--dry-run and --local: choose one (--local writes the files, "
                         "--dry-run lists them)")
    if args.benchmark_revision and not (args.model_repo or args.benchmark_repo):
        raise ValueError("--benchmark-revision goes into a model repo's .eval_results: add "
                         "--model-repo (or --benchmark-repo), or leave it out")
    if args.no_pr and not (args.model_repo or args.benchmark_repo):
        raise ValueError("--no-pr: only a model repo's .eval_results go as a pull request; "
                         "add --model-repo (or --benchmark-repo), or leave it out")
    entries = gather(args.runs)
    plan = plan_publish(entries, args.results_repo, model_repo=args.model_repo,
                        with_model=bool(args.model_repo or args.benchmark_repo),
                        benchmark_repo=args.benchmark_repo, revision=args.benchmark_revision)
    rows = ", ".join(f"{n} {table} rows" for table, n in plan.rows.items())
    judges = ", ".join(dict.fromkeys(e.judge for e in entries))
    if args.dry_run:
        from huggingface_hub import get_token

        print(f"would publish {len(entries)} run(s) ({judges}) to dataset repo "
              f"{plan.results_repo} in one commit: {rows}; token "
              + ("found" if get_token() else "NOT found: log in with `hf auth login` or set "
                 "HF_TOKEN before publishing"))
        adds, _ = plan.commit([])
        for name, data in adds.items():
            print(f"  {name}  {_size(len(data))}")
        print("  (and the card lists the other runs' files the repo already holds; this "
              "publish's runs' earlier files are replaced)")
        for name, data in plan.model_files.items():
            how = "a direct commit" if args.no_pr else "a pull request"
            print(f"\nwould open {how} on model repo {plan.model_repo} adding {name}:\n"
                  + data.decode().rstrip())
        return 0
    if args.local:
        out = write_local(plan, args.local)
        print(f"wrote {len(plan.run_files) + 2} files ({rows}) to {out / LOCAL_RESULTS}; "
              f"load them with datasets.load_dataset({str(out / LOCAL_RESULTS)!r}, "
              "'results')")
        if plan.model_files:
            print(f"wrote {', '.join(plan.model_files)} for {plan.model_repo} to "
                  f"{out / LOCAL_MODEL}")
        return 0
    done = publish_to_hub(plan, no_pr=args.no_pr, private=args.private)
    print(f"published {len(entries)} run(s) ({rows}) to {done.results_url}")
    if done.model_url:
        print(f"{'committed' if args.no_pr else 'opened'} the model's .eval_results on "
              f"{done.model_url}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from gridwm_judge.publish.hub_io import fetch_results_repo, push_space
    from gridwm_judge.publish.leaderboard_html import write_leaderboard

    made = write_leaderboard(args.sources, args.out, headline=args.headline,
                             resolve=fetch_results_repo)
    judges = sum(len(s.rows) for s in made.sections)
    print(f"wrote {made.html} and {made.markdown}: {len(made.sections)} ranking(s), "
          f"{judges} judge(s) ranked; open {made.html} in a browser")
    if args.push_space:
        space = push_space(Path(made.html).parent, args.push_space)
        print(f"pushed the leaderboard to Space {space.repo_id}: {space.url}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers, "publish", _publish, refused=(PermissionError,),
        help="publish scored runs to a results dataset repo (and a model repo's .eval_results)",
        description="Add each RUN's figures (the flat results with judge, dataset version and "
        "digest), its run record (as sent, usage), its answers and its per-group "
        "discrimination to a Hub dataset repo in one commit, so load_dataset(REPO, "
        "'results') is one table across every published judge. A run is keyed by judge and "
        "dataset digest: publishing it again replaces its rows. With --model-repo (or "
        "--benchmark-repo) also write .eval_results/gridwm-judge.yaml for the judge's model "
        "repo, opened as a pull request. RUN is a folder with scores.json: a scored run "
        "folder or a `gridwm-judge score --out` folder.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="scored run or score folders")
    p.add_argument("--results-repo", required=True, metavar="ORG/NAME",
                   help="the Hub dataset repo that collects the results (created if needed)")
    p.add_argument("--model-repo", default=None, metavar="ORG/MODEL",
                   help="the judge's model repo for .eval_results (default for an hf: or "
                        "vllm: judge: its Hub id; any other judge must name one)")
    p.add_argument("--benchmark-repo", default=None, metavar="ORG/NAME",
                   help="the Hub dataset repo the benchmark was pushed to (the entries' "
                        "dataset.id; default: the Hub dataset the runs loaded)")
    p.add_argument("--benchmark-revision", default=None, metavar="SHA",
                   help="the benchmark dataset's commit the runs answered, when known")
    p.add_argument("--no-pr", action="store_true",
                   help="commit .eval_results to the model repo directly, not as a pull request")
    p.add_argument("--private", action="store_true", help="create the results repo as private")
    p.add_argument("--dry-run", action="store_true",
                   help="list the files and rows a publish would commit, without the Hub")
    p.add_argument("--local", default=None, metavar="DIR",
                   help="write the files into DIR (results/ and model/) instead of the Hub")

    lb = add_command(
        subparsers, "leaderboard", _leaderboard, refused=(PermissionError,),
        help="one static HTML page (and a Markdown twin) ranking judges from runs or results",
        description="Rank judges by one published figure (a task id of eval.yaml, e.g. "
        "task_c_hard-idr_raw), one ranking per dataset digest, with CIs, the groups of judges "
        "the paired tests cannot separate, the shortcut ceiling and the oracle as reference "
        "rows, the paper's published Table 13 rows where paper_task_d_r is present, and "
        "filters by config and family. SOURCE is a run or score folder (with scores.json), a "
        "results repo folder (`publish --local DIR` wrote DIR/results) or a Hub results repo "
        "ORG/NAME.",
    )
    lb.add_argument("sources", nargs="+", metavar="SOURCE",
                    help="run folders, score folders, results repo folders or Hub ids")
    lb.add_argument("--out", required=True, help="folder for index.html and leaderboard.md")
    lb.add_argument("--headline", default=None, metavar="TASK_ID",
                    help="the figure to rank by (default: the hard counterfactuals' IDR_raw "
                         "where present, else Task C's, else the paper's D-R)")
    lb.add_argument("--push-space", default=None, metavar="ORG/NAME",
                    help="also publish the page as a static Hugging Face Space")

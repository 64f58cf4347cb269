"""`gridwm-judge import-inspect` and `gridwm-judge push-metrics`."""

from __future__ import annotations

import argparse

from gridwm_judge.command_line import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    i = add_command(
        subparsers, "import-inspect", _import_inspect,
        help="turn an inspect_ai log of a gridwm-judge task into a run folder",
        description="Write RUN_DIR/predictions.jsonl and RUN_DIR/run.json from an inspect log "
                    "(inspect eval gridwm_judge/task_c ...), ready for `gridwm-judge score`.",
    )
    i.add_argument("log", help="an inspect log file (.eval or .json)")
    i.add_argument("--out", required=True, help="run folder to write")
    i.add_argument("--overwrite", action="store_true", help="replace predictions in --out")

    p = add_command(
        subparsers, "push-metrics", _push_metrics, refused=(PermissionError,),  # no Hub login
        help="publish the evaluate metric modules as Hub Spaces",
        description="One Space per metric module (NAMESPACE/idr, ...), so that "
                    "evaluate.load('NAMESPACE/idr') works.",
    )
    p.add_argument("--namespace", required=True, help="Hub user or organisation")
    p.add_argument("--only", default=None, help="comma list of modules (default: all)")
    p.add_argument("--private", action="store_true", help="create the Spaces as private")
    p.add_argument("--dry-run", action="store_true", help="print what would be uploaded")


def _import_inspect(args: argparse.Namespace) -> int:
    from gridwm_judge.integrations.inspect_convert import convert_log

    print(convert_log(args.log, args.out, overwrite=args.overwrite).line())
    return 0


def _push_metrics(args: argparse.Namespace) -> int:
    from gridwm_judge.integrations import hub_metrics

    names = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    if args.dry_run:
        for up in hub_metrics.plan(args.namespace, names):
            print(f"would create Space {up.repo_id} (sdk {hub_metrics.SPACE_KEYS['sdk']}) "
                  f"from {up.source}: {', '.join(up.files)}")
        return 0
    for res in hub_metrics.push_metrics(args.namespace, names=names, private=args.private):
        print(f"pushed {res.repo_id}: {res.url}  (evaluate.load({res.repo_id!r}))")
    return 0

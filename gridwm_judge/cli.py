"""The `gridwm-judge` command line.

Each part of the pipeline owns its sub-commands in its own module, which exposes
``register(subparsers)``; this file only lists those modules. A sub-command's handler
returns an exit code; a ``ValueError``/``FileExistsError``/``FileNotFoundError`` raised
for bad input is printed as one clear line (exit 2) instead of a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add sub-commands (each defines `register(subparsers)`).
COMMAND_MODULES = (
    "gridwm_judge.sim.commands",
    "gridwm_judge.dataset.commands",
    "gridwm_judge.runner.commands",
    "gridwm_judge.scoring.commands",
    "gridwm_judge.report.commands",
    "gridwm_judge.quickstart",
    "gridwm_judge.integrations.commands",
)


def build_parser() -> argparse.ArgumentParser:
    from gridwm_judge import __version__

    parser = argparse.ArgumentParser(
        prog="gridwm-judge",
        description="Test whether VLM judges change their verdict for the right reason.",
    )
    parser.add_argument("--version", action="version", version=f"gridwm-judge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # to print a command to rerun
    try:
        return int(args.handler(args) or 0)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        print(f"gridwm-judge {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

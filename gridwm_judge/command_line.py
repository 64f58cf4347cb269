"""What the sub-command modules share: how a command is added with the function that runs it.

Every ``register(subparsers)`` adds its commands with :func:`add_command`, which records the
function that runs the command and how ``gridwm_judge.cli.main`` reports the ways it may stop:
an exception type in ``refused`` (a Hub that refuses the token, a backend whose optional
dependency is missing) is one line ``gridwm-judge CMD: error: ...`` with exit 2, like bad
input; Ctrl-C is one line saying what is kept (``interrupted``), exit 130.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

INTERRUPTED = "nothing half-written is left"
"""What a command interrupted by Ctrl-C leaves, unless it says otherwise."""


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    run: Callable[[argparse.Namespace], int | None],
    *,
    refused: tuple[type[BaseException], ...] = (),
    interrupted: str = INTERRUPTED,
    **parser_options,
) -> argparse.ArgumentParser:
    """The parser of sub-command ``name`` (``parser_options``: help, description, ...), run
    by ``run(args)``, whose return value is the exit status (None is 0)."""
    parser = subparsers.add_parser(name, **parser_options)
    parser.set_defaults(handler=run, refused=tuple(refused), interrupted=interrupted)
    return parser


def options_of(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The parsed values of the options ``names`` (their ``dest``), as keyword arguments of the
    same names: for a library call whose parameters the options mirror."""
    return {name: getattr(args, name) for name in names}

"""The `gridwm-judge` command line.

Each part of the pipeline owns its sub-commands in its own module, which exposes
``register(subparsers)`` and adds each command with :func:`gridwm_judge.command_line.add_command`;
this file only lists those modules, and sets what every command shares:

- ``--help`` shows each option's default (added here once, not in each ``register``);
- a parse error (an unknown flag, a bad choice, a missing argument) is one line naming the
  sub-command, the problem and a close match where one is near, with ``--help`` for the rest;
- a ``ValueError``/``FileExistsError``/``FileNotFoundError`` raised for bad input, or an
  exception the command declares ``refused``, is one clear line (exit 2), any other
  ``OSError`` (a full disk, no permission) one line saying what failed where (exit 1), and
  Ctrl-C one line saying what is kept (exit 130) instead of a traceback.
  Commands write files to a temporary name and rename them, so neither leaves anything
  half-written;
- worker processes forked while a command runs die with it (:mod:`gridwm_judge.workers`);
- output uses a few non-ASCII signs (``±``, ``–``, ``†``): a terminal whose encoding lacks one
  shows an escape for it (``\\xb1``), never an error after the work is done.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import re
import sys
from collections.abc import Callable
from typing import NoReturn

from gridwm_judge import __version__
from gridwm_judge.command_line import INTERRUPTED
from gridwm_judge.workers import workers_die_with_parent

# Modules that add sub-commands (each defines `register(subparsers)`).
COMMAND_MODULES = (
    "gridwm_judge.worlds.commands",
    "gridwm_judge.dataset.commands",
    "gridwm_judge.runner.commands",
    "gridwm_judge.release.commands",
    "gridwm_judge.scoring.commands",
    "gridwm_judge.scoring.plan_commands",
    "gridwm_judge.report.commands",
    "gridwm_judge.publish.commands",
    "gridwm_judge.quickstart",
    "gridwm_judge.integrations.commands",
)
EXIT_BAD_INPUT, EXIT_OS_ERROR, EXIT_INTERRUPTED = 2, 1, 130
BAD_INPUT = (ValueError, FileExistsError, FileNotFoundError)
"""Raised for bad input: one line, exit 2 (as is what a command's ``refused`` names)."""


class _ShowDefaults:
    """Appends ``(default: X)`` to an option's help unless its help already names a default.

    Required options, positionals and flags (default False) have nothing to show.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            action.help == argparse.SUPPRESS
            or not action.option_strings
            or action.required
            or action.default is argparse.SUPPRESS
            or action.default is False
            or isinstance(action, (argparse._HelpAction, argparse._VersionAction))
            or "default" in text.lower()
        ):
            return action.help
        shown = "none" if action.default is None else "%(default)s"
        return f"{text} (default: {shown})".lstrip()


Formatter = Callable[..., argparse.HelpFormatter]
"""What ``ArgumentParser.formatter_class`` holds: usually a HelpFormatter class."""


def _with_defaults(formatter: Formatter) -> Formatter:
    """``formatter`` made to show defaults (one that is not a HelpFormatter class is kept)."""
    if (not isinstance(formatter, type) or not issubclass(formatter, argparse.HelpFormatter)
            or issubclass(formatter, _ShowDefaults)):
        return formatter
    return type(f"Defaults{formatter.__name__}", (_ShowDefaults, formatter), {})


def _subparser_actions(parser: argparse.ArgumentParser):
    return [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]


def _show_defaults(parser: argparse.ArgumentParser) -> None:
    """Give every (sub-)parser a formatter that shows defaults, keeping its own layout."""
    parser.formatter_class = _with_defaults(parser.formatter_class)
    for action in _subparser_actions(parser):
        for sub in set(action.choices.values()):
            _show_defaults(sub)


_CHOICE = re.compile(r"invalid choice: '?([^' ]*)'? \(choose from (.*)\)")


def close_match(parser: argparse.ArgumentParser, message: str) -> str:
    """`` (did you mean 'X'?)`` for a mistyped choice or flag named in an argparse error that
    is near a valid one, else ""."""
    m = _CHOICE.search(message)
    if m:
        wrong, valid = m.group(1), [c.strip(" '") for c in m.group(2).split(",")]
    elif message.startswith("unrecognized arguments: "):
        flags = [w for w in message.split()[2:] if w.startswith("--")]
        wrong, valid = (flags[0] if flags else ""), list(parser._option_string_actions)
    else:
        return ""
    typed = wrong.split("=")[0]
    longer = [v for v in valid if v.startswith(typed) and v != typed]  # a shortened flag
    near = longer[:1] if len(longer) == 1 else difflib.get_close_matches(typed, valid, n=1,
                                                                         cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if wrong and near else ""


class OneLineParser(argparse.ArgumentParser):
    """A parser whose errors are one line (the sub-command, the problem, a close match, where
    the rest is) instead of a usage block before the line that matters. A flag is taken only
    as written: argparse's prefix matching would read a mistyped or future flag as another
    one (``eval --batch-s`` as ``--batch-size``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}{close_match(self, message)}; "
                     f"see {self.prog} --help\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="gridwm-judge",
        description="Test whether VLM judges change their verdict for the right reason.",
    )
    parser.add_argument("--version", action="version", version=f"gridwm-judge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(subparsers)
    _show_defaults(parser)
    return parser


def _chosen_subparser(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The deepest sub-command parser the command line chose (for its usage line)."""
    while True:
        actions = _subparser_actions(parser)
        if not actions:
            return parser
        action = actions[0]
        name = getattr(args, action.dest, None) if action.dest != argparse.SUPPRESS else None
        if name not in action.choices:
            return parser
        parser = action.choices[name]


def os_error_line(exc: OSError) -> str:
    """One line for an OSError: what failed, where, and what to do about a full disk."""
    where = f" ({exc.filename})" if exc.filename else ""
    what = exc.strerror or str(exc) or type(exc).__name__
    hint = ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        hint = "; free some space and rerun (files already finished are kept)"
    return f"{what}{where}{hint}"


def _escape_what_cannot_be_shown() -> None:
    """Print a character the terminal's encoding lacks as an escape instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    prefix, args = "gridwm-judge", None
    _escape_what_cannot_be_shown()
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:
            _chosen_subparser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
        prefix = f"gridwm-judge {args.command}"
        args.argv = list(sys.argv[1:] if argv is None else argv)  # to print a command to rerun
        with workers_die_with_parent():
            return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted; {getattr(args, 'interrupted', INTERRUPTED)}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if isinstance(exc, (*BAD_INPUT, *getattr(args, "refused", ()))):
            print(f"{prefix}: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if isinstance(exc, OSError):
            print(f"{prefix}: error: {os_error_line(exc)}", file=sys.stderr)
            return EXIT_OS_ERROR
        raise


if __name__ == "__main__":
    sys.exit(main())

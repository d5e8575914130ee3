"""The ``pathlogic`` command line. Each subcommand lives in ``pylogic/commands/<name>.py`` and
exposes ``add_parser(subparsers)`` (which sets ``func``) ; user errors are printed here, once,
without a traceback."""
from __future__ import annotations

import argparse
import importlib
import re
import sys

from pylogic.errors import PathlogicError

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("run", "check", "analyze", "facts", "query", "compare_engines",
            "predicates", "validate", "ifconvert", "optimize")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pathlogic",
        description="Datalog-driven path-sensitive analysis of predicated code.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"pylogic.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pylogic.commands.{name}":
                continue  # not built yet
            raise
        module.add_parser(sub)
    return parser


#: Options taking a comma-separated integer list, whose value may start with a minus sign.
INT_LIST_OPTIONS = ("--args", "--input", "--inputs")
_NEGATIVE_LIST = re.compile(r"^-\d[0-9a-fA-Fx]*(,\s*-?[0-9a-fA-Fx]+)+,?$")


def join_negative_lists(argv: list[str]) -> list[str]:
    """``--inputs -1,5`` -> ``--inputs=-1,5`` (argparse would read ``-1,5`` as an option; a
    single ``-3`` it already accepts as a value)."""
    out, k = [], 0
    while k < len(argv):
        if argv[k] in INT_LIST_OPTIONS and k + 1 < len(argv) and _NEGATIVE_LIST.match(argv[k + 1]):
            out.append(f"{argv[k]}={argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


def main(argv: list[str] | None = None) -> int:
    argv = join_negative_lists(list(sys.argv[1:] if argv is None else argv))
    try:
        args = build_parser().parse_args(argv)   # imports every command: may be interrupted
        return int(args.func(args) or 0)
    except PathlogicError as exc:
        print(f"pathlogic: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pathlogic: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

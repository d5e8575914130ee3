"""The ``pathlogic`` command line. Each subcommand lives in ``pylogic/commands/<name>.py`` and
exposes ``add_parser(subparsers)`` (which sets ``func``) ; user errors are printed here, once,
without a traceback."""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import sys

from pylogic.errors import PathlogicError, printable_name

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("run", "check", "import_pir", "analyze", "facts", "query", "explain", "report", "compare_engines",
            "predicates", "validate", "ifconvert", "optimize", "passes", "export")


#: The help of a Datalog ``--engine`` option a command gives none (``engines.engine_choices``).
ENGINE_HELP = ("Datalog engine (default %(default)s: the first available of souffle, clingo, "
               "duckdb; they give the same rows)")


def build_parser() -> argparse.ArgumentParser:
    from pylogic import __version__
    parser = argparse.ArgumentParser(
        prog="pathlogic",
        description="Datalog-driven path-sensitive analysis of predicated code.")
    parser.add_argument("--version", action="version", version=f"pathlogic {__version__}")
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
    for command in sub.choices.values():
        _plain_help(command)
    return parser


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Help text as a terminal shows it: the reST ``code`` of docstrings as `code`, and the
    Datalog ``--engine`` option explained where a command left it bare."""
    if parser.description:
        parser.description = parser.description.replace("``", "`")
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            action.help = action.help.replace("``", "`")
        if "--engine" in action.option_strings and not action.help and \
                action.choices and "auto" in action.choices:
            action.help = ENGINE_HELP


#: Options taking a comma-separated integer list, whose value may start with a minus sign.
INT_LIST_OPTIONS = ("--args", "--input", "--inputs")
_NEGATIVE_LIST = re.compile(r"^-\d[0-9a-fA-Fx]*(,\s*-?[0-9a-fA-Fx]+)+,?$")


#: Options whose value is a list of flags of another tool (``validate --ldflags -lz``).
FLAG_VALUE_OPTIONS = ("--ldflags",)


def join_negative_lists(argv: list[str]) -> list[str]:
    """``--inputs -1,5`` -> ``--inputs=-1,5`` (argparse would read ``-1,5`` as an option; a
    single ``-3`` it already accepts as a value); ``--ldflags -lz`` -> ``--ldflags=-lz``."""
    out, k = [], 0
    while k < len(argv):
        if k + 1 < len(argv) and (
                argv[k] in FLAG_VALUE_OPTIONS
                or argv[k] in INT_LIST_OPTIONS and _NEGATIVE_LIST.match(argv[k + 1])):
            out.append(f"{argv[k]}={argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


def _to_devnull(fd: int) -> None:
    """Point ``fd`` at /dev/null (what is still buffered for it is then dropped quietly)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


class _PipeGuard:
    """``sys.stdout`` for one command: when the reader goes away (``pathlogic ... | head -1``),
    the rest of the output is discarded (stdout becomes /dev/null) instead of raising, so the
    command finishes and exits with its real status, with no traceback."""

    def __init__(self, stream, binary: bool = False):
        self._stream = stream
        if not binary and hasattr(stream, "buffer"):
            self.buffer = _PipeGuard(stream.buffer, binary=True)

    def _silence(self) -> None:
        try:
            _to_devnull(self._stream.fileno())
        except (OSError, ValueError, AttributeError):  # not a real file (tests capture it)
            pass

    def write(self, data):
        try:
            return self._stream.write(data)
        except BrokenPipeError:
            self._silence()
            return len(data)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._silence()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status: the command's, 1 after an error (``pathlogic: ...`` on
    stderr; an error class may carry its own ``exit_status``), 2 for a usage error, 130 when
    interrupted.

    Called without ``argv`` it is the process's own command (the ``pathlogic`` program, ``python
    -m pylogic.cli``), which ends with it: what is still alive is then frozen (``gc.freeze``),
    so the interpreter's exit does not go over it in a last collection (1.2 s after ``analyze``
    of the #32 corpus; the memory goes back to the system with the process)."""
    ending = argv is None
    argv = join_negative_lists(list(sys.argv[1:] if argv is None else argv))
    stdout = sys.stdout
    sys.stdout = guard = _PipeGuard(stdout)
    try:
        args = build_parser().parse_args(argv)   # imports every command: may be interrupted
        return int(args.func(args) or 0)
    except PathlogicError as exc:
        print(f"pathlogic: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_status", 1))
    except KeyboardInterrupt:
        print("pathlogic: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stderr's reader went away too: nothing left to tell anyone
        for fd in (1, 2):
            _to_devnull(fd)
        return 1
    except OSError as exc:
        # a safety net: commands check their outputs before working (issue #30 item 3), but a
        # path may still fail later (disk full, a directory removed meanwhile): one line
        if exc.filename is None:
            raise
        from pylogic.analysis.output import os_error_message
        print(f"pathlogic: {printable_name(os_error_message(exc))}", file=sys.stderr)
        return 1
    finally:
        guard.flush()
        sys.stdout = stdout
        if ending:
            gc.freeze()


if __name__ == "__main__":
    sys.exit(main())

"""One thin module per subcommand; shared argument types below (a bad value is a usage error
naming the option, never a traceback or a silently odd run)."""
from __future__ import annotations

import argparse


def _integer(text: str, minimum: int, rule: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{rule}, not {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``--jobs``, ``--fuel``, limits)."""
    return _integer(text, 1, "must be at least 1")


def nonnegative_int(text: str) -> int:
    """An integer >= 0."""
    return _integer(text, 0, "must not be negative")


def positive_float(text: str) -> float:
    """A number > 0 (timeouts, in seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value

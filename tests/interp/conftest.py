"""Helpers for the interpreter tests: parse PIR text and run it."""
import pytest

from pylogic.interp import run_module
from pylogic.ir.parser import parse_module


def run_pir(text: str, **kwargs):
    """Parse ``text`` and run it; keyword arguments go to ``run_module``."""
    return run_module(parse_module(text, "test.pir"), **kwargs)


def main_body(body: str, params: str = "") -> str:
    """A module whose ``main`` is one block holding ``body`` (which must end in a terminator)."""
    return f"func main({params}) {{\nentry:\n{body}\n}}\n"


@pytest.fixture
def run():
    return run_pir

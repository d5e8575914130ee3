"""The PIR examples of docs/pir.md and docs/passes.md (every fenced ```pir block) parse, verify and,
where they have a ``main``, run as their comments say, so the documentation cannot rot.

Directions a block may carry in its comment lines (docs/pir.md explains them to readers):
``; args: 1,2`` and ``; input: 3,4`` (the run's arguments and input values), ``; expect prints:
1 2`` (the values of its ``print`` instructions), ``; expect error: TEXT`` (the run stops on a
run-time error containing TEXT; without it the run must complete normally), and ``; passes:
P1,P2`` (``pathlogic optimize --passes P1,P2 --validate`` on the block is ``identical``).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.commands.run import parse_int_list
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.load import load_text

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ("pir.md", "passes.md")
BLOCK = re.compile(r"^```pir\n(.*?)^```", re.M | re.S)


def examples() -> list:
    found = []
    for page in PAGES:
        text = (DOCS / page).read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            found.append(pytest.param(match.group(1), id=f"{page}:{line}"))
    return found


def direction(text: str, key: str):
    """The value of ``; KEY: value`` in the block, or None."""
    found = re.search(rf"^\s*;\s*{re.escape(key)}:[ \t]*(.*)$", text, re.M)
    return found.group(1).strip() if found else None


def test_every_page_has_examples():
    counts = {page: len(BLOCK.findall((DOCS / page).read_text())) for page in PAGES}
    assert counts["pir.md"] >= 6 and counts["passes.md"] >= 14, counts


@pytest.mark.parametrize("text", examples())
@pytest.mark.slow
def test_example_parses_verifies_and_runs(text):
    module = load_text(text, "doc.pir")            # parse + verify (raises with file:line:col)
    if not any(f.name in ("main", "@main") for f in module.functions):
        return
    args = parse_int_list(direction(text, "args") or "", "args")
    inputs = parse_int_list(direction(text, "input") or "", "input")
    result = run_module(module, args=args, inputs=inputs)
    error = direction(text, "expect error")
    if error is None:
        assert result.error is None, str(result.error)
    else:
        assert result.error is not None and error in str(result.error), str(result.error)
    prints = direction(text, "expect prints")
    if prints is not None:
        assert result.prints == [int(v) for v in prints.split()]
    passes = direction(text, "passes")
    if passes:
        new = optimize(module, passes.split(","), "doc.pir", engine="clingo").module
        check = compare_modules(module, new, [(args, inputs)])
        assert check.verdict == "identical", check

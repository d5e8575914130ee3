"""benchmarks/scale.py's Soufflé memory: its own process's peak, not the spawning worker's (Linux
keeps a process's peak resident set across exec, so RUSAGE_CHILDREN's ru_maxrss of a program a
large Python process starts is at least that process's resident set)."""
from __future__ import annotations

import resource
import shutil

import pytest

from benchmarks import scale

pytestmark = pytest.mark.skipif(
    shutil.which("souffle") is None or shutil.which("time", path="/usr/bin") is None,
    reason="needs souffle on PATH and /usr/bin/time")


def test_souffle_peak_is_its_own():
    from facts_gen.extract import empty_facts, extract_module
    from pylogic.analysis import catalog
    from pylogic.engines import load_program, run_checked
    from pylogic.ir.model import Module
    from pylogic.ir.synthetic import function_from_cfg
    program = load_program(catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"])
    labels, succs = scale.make_cfg("chain", 50)
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "t.pir", facts)
    ballast = bytearray(300 << 20)
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))   # resident, not just reserved
    souffle = shutil.which("souffle")
    rows, mb = scale.engine_with_peak(program, "souffle", facts)
    inherited = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert inherited >= 300          # what the old figure read: the ballast, not Soufflé
    assert mb is not None and 0 < mb < 150, mb
    assert rows == run_checked(program, None, "clingo", facts)
    assert shutil.which("souffle") == souffle        # PATH restored
    del ballast

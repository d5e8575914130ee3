"""Facts on demand (issue #27 item 4): a pass's rows come from extracting only the fact families
its programs read (``catalog.inputs_read``) and the facts its ``needs`` name, and they are the
rows the whole extraction gives for every relation it needs."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import facts_gen.extract as extract
import pylogic.analysis.run as run_mod
from facts_gen.extract import FAMILIES, RELATIONS
from pylogic.analysis import catalog
from pylogic.analysis.passes import run_pass
from pylogic.ir.load import load_directory
from pylogic.transforms.registry import PASSES

ROOT = Path(__file__).resolve().parents[2]
#: short gcc torture programs whose passes change much (/work/refactor-before-t80.json)
TORTURE_SAMPLE = ("20021010-1.c", "medce-1.c")


@pytest.fixture(scope="module")
def programs():
    found = [(p.module, p.relpath) for p in load_directory(ROOT / "examples").programs]
    from benchmarks.optimize import PREPARE_FLAGS, TORTURE
    from pylogic.ir.llvm.clang import prepare_c
    from pylogic.ir.llvm.importer import import_llvm
    from tests.support import clang_path
    if clang_path() is not None and os.path.isdir(TORTURE):
        for name in TORTURE_SAMPLE:
            path = os.path.join(TORTURE, name)
            found.append((import_llvm(prepare_c(path, PREPARE_FLAGS), path)[0], name))
    return found


def _needed(needs, module, relpath, monkeypatch, whole: bool):
    with monkeypatch.context() as m:
        if whole:
            m.setattr(run_mod, "families_for", lambda relations: tuple(FAMILIES))
        rows = run_mod.module_rows(module, relpath, relations=needs, engine="clingo")
    return {rel: sorted(rows[rel]) for rel in needs}


@pytest.mark.parametrize("needs", sorted({p.needs for p in PASSES.values()}),
                         ids=lambda needs: "+".join(sorted(n for n, p in PASSES.items()
                                                           if p.needs == needs)))
@pytest.mark.slow
def test_a_pass_gets_the_rows_of_the_whole_extraction(programs, needs, monkeypatch):
    for module, relpath in programs:
        assert (_needed(needs, module, relpath, monkeypatch, whole=False)
                == _needed(needs, module, relpath, monkeypatch, whole=True)), relpath


def test_a_pass_that_reads_facts_gets_them():
    """``needs`` may name input relations (``sccp`` reads ``rpo``, ``cbe`` ``branch_compare``)."""
    for name, spec in PASSES.items():
        outputs = [r for r in spec.needs if r not in RELATIONS]
        reads = {r for r in spec.needs if r in RELATIONS} | catalog.inputs_read(outputs)
        extracted = {r for f in extract.families_for(reads) for r in FAMILIES[f]}
        assert reads <= extracted, name


def test_inputs_read_follows_includes():
    """dominance.dl reads the CFG through lib/dominator_tree.dl; pre.dl reads value flow."""
    assert {"edge", "rpo"} <= catalog.inputs_read(["idom"]) <= set(FAMILIES["cfg"])
    assert "vf_expr" in catalog.inputs_read(["pre_m_insert"])
    assert catalog.inputs_read([]) == frozenset()


def test_simplify_reads_no_value_flow_vng_or_interprocedural_facts(programs, monkeypatch):
    """``simplify`` needs only ``idom``: the costly extractors must not run."""
    def boom(*a, **k):
        raise AssertionError("simplify paid for facts it does not read")
    for name in ("value_flow_facts", "readonly_globals", "return_fits", "function_contents",
                 "vng_facts", "interprocedural_facts", "instruction_facts"):
        monkeypatch.setattr(extract, name, boom)
    assert PASSES["simplify"].needs == ("idom",)
    for module, relpath in programs:
        run_pass("simplify", module, relpath, engine="clingo")

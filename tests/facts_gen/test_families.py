"""Fact families (facts_gen/extract.py): each relation has one extractor, and extracting some
families gives exactly the rows the whole extraction gives for their relations (issue #27
item 4: a pass pays only for the facts its programs read)."""
from __future__ import annotations

from pathlib import Path

import pytest

from facts_gen.extract import (DEFAULT_FAMILIES, FAMILIES, RELATIONS, empty_facts, extract_module,
                               families_for, restrict_facts)
from pylogic.ir.load import load_directory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def examples():
    return [(p.module, p.relpath) for p in load_directory(ROOT / "examples").programs]


def test_every_relation_has_exactly_one_family():
    owned = [rel for rels in FAMILIES.values() for rel in rels]
    assert sorted(owned) == sorted(RELATIONS)
    assert len(owned) == len(set(owned))


def test_families_for_names_the_writers_and_always_the_module():
    assert families_for([]) == ("module",)
    assert families_for(["rpo", "edge"]) == ("module", "cfg")
    assert families_for(["vf_expr", "instr", "decides"]) == (
        "module", "instructions", "value_flow", "interprocedural")
    with pytest.raises(ValueError, match="idom"):
        families_for(["idom"])


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_one_family_gives_the_rows_of_the_whole_extraction(examples, family):
    for module, relpath in examples:
        whole = extract_module(module, relpath, families=tuple(FAMILIES))
        part = extract_module(module, relpath, families=(family,))
        assert set(part) == set(FAMILIES["module"]) | set(FAMILIES[family])
        for rel in part:
            assert part[rel] == whole[rel], (relpath, rel)


def test_by_relations_and_the_default(examples):
    module, relpath = examples[0]
    assert set(extract_module(module, relpath, relations=["rpo"])) == set(
        FAMILIES["module"] + FAMILIES["cfg"])
    default = extract_module(module, relpath)
    assert list(default) == list(RELATIONS) == list(empty_facts())
    assert all(not default[rel] for rel in FAMILIES["vng"])     # the VNG only on request
    assert "vng" not in DEFAULT_FAMILIES



def test_kept_functions_alone_give_the_restricted_whole_extraction(examples):
    """``keep``: only the functions asked get their own facts, the rest of the rows are those of
    the whole extraction restricted to them (a pass's later rounds ask for what they changed)."""
    tried = 0
    for module, relpath in examples:
        names = [fn.name for fn in module.defined_functions()]
        for wanted in (set(names[::2]), set(names[1:2]), set()):
            ids = {f"{relpath}::{n}" for n in wanted}
            whole = extract_module(module, relpath, families=tuple(FAMILIES))
            part = extract_module(module, relpath, families=tuple(FAMILIES), keep=ids.__contains__)
            assert restrict_facts(part, ids.__contains__) == restrict_facts(whole, ids.__contains__)
            assert {r[0] for r in part["function"]} == ids
            tried += len(names) > len(wanted)
    assert tried


def test_block_size_is_each_blocks_instruction_count(examples):
    # correlation.dl finds a block's last instruction at index block_size - 1 (_qend, _csplit)
    for module, relpath in examples:
        facts = extract_module(module, relpath, families=("cfg", "instructions"))
        last: dict = {}
        for f, _i, b, k, _op in facts["instr"]:
            last[f, b] = max(last.get((f, b), -1), k)
        assert sorted(facts["block_size"]) == sorted((f, b, k + 1) for (f, b), k in last.items())
        assert sorted(row[:2] for row in facts["block_size"]) == sorted(facts["block"])

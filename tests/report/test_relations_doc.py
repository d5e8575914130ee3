"""docs/relations.md is generated from the shipped programs and must be current; every relation
facts_gen writes is declared in schema.dl (read through the Datalog front end) with the same
arity, and vice versa."""
from __future__ import annotations

import random

from facts_gen.extract import RELATIONS, empty_facts, extract_module
from pylogic.analysis import catalog
from pylogic.engines import load_program
from pylogic.ir.model import Module
from pylogic.ir.synthetic import function_from_cfg, random_cfg
from pylogic.report.relations_doc import DOC, declarations, render


def test_relations_doc_is_current():
    assert DOC.read_text() == render(), "run: python -m pylogic.report.relations_doc"


def test_every_public_relation_has_a_meaning():
    missing = [(f, d["name"]) for f, ds in declarations().items() for d in ds if not d["meaning"]]
    assert missing == []


def test_every_declared_input_is_extracted_with_its_arity():
    schema = load_program(catalog.datalog_dir() / "schema.dl")
    assert list(schema.inputs) == list(RELATIONS)
    labels, succs = random_cfg(random.Random(7), 12)
    facts = extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "x.pir")
    assert set(facts) == set(schema.inputs) == set(empty_facts())
    for name, rows in facts.items():
        for row in rows:
            assert len(row) == schema.relations[name].arity, name
    for core in ("function", "block", "entry", "exit", "edge"):
        assert facts[core], core

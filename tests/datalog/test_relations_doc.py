"""docs/relations.md is generated from datalog/*.dl and must be current; every relation facts_gen
writes is declared in schema.dl with the same arity, and vice versa."""
from __future__ import annotations

import random

from facts_gen.extract import empty_facts, extract_module, schema_relations
from pylogic.ir.model import Module
from pylogic.ir.synthetic import function_from_cfg, random_cfg
from pylogic.report.relations_doc import DOC, render


def test_relations_doc_is_current():
    assert DOC.read_text() == render(), "run: python -m pylogic.report.relations_doc"


def test_every_declared_input_is_extracted_with_its_arity():
    schema = schema_relations()
    labels, succs = random_cfg(random.Random(7), 12)
    facts = extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "x.pir")
    assert set(facts) == set(schema) == set(empty_facts())
    for name, rows in facts.items():
        for row in rows:
            assert len(row) == len(schema[name]), name
    for core in ("function", "block", "entry", "exit", "edge"):
        assert facts[core], core

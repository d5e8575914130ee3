"""Fact-set test cases of the shipped Datalog programs (STYLE.md: Soufflé's test layout):
``tests/datalog/<family>/<case>/*.facts``, the ``<case>.pir`` they were extracted from, and
``<case>/expected/<relation>.csv``, compared after sorting. One place for reading the expected
rows and for checking that the committed facts are still what facts_gen writes."""
from __future__ import annotations

from pathlib import Path

from facts_gen.extract import extract_module
from pylogic.analysis import catalog
from pylogic.engines import load_program_cached
from pylogic.engines.csv_io import read_output
from pylogic.ir.parser import parse_file

HERE = Path(__file__).parent


class FactCases:
    """The cases of one family (``tests/datalog/<family>/``) for the program ``file``."""

    def __init__(self, family: str, file: str, also: tuple[str, ...] = ()):
        self.dir = HERE / family
        self.program = catalog.datalog_dir() / file
        self.also = tuple(catalog.datalog_dir() / f for f in also)   # opt-in programs with cases
        self.names = sorted(p.name for p in self.dir.iterdir() if p.is_dir())

    def expected(self, case: str, pattern: str = "*.csv") -> dict:
        relations = {}
        for program in (*self.also, self.program):
            relations.update(load_program_cached(program).relations)
        return {p.stem: sorted(read_output(p, relations[p.stem]))
                for p in (self.dir / case / "expected").glob(pattern)}

    def check_facts_current(self, case: str) -> None:
        """The committed .facts are the extraction of the committed .pir (no stale inputs)."""
        pir = self.dir / case / f"{case}.pir"
        facts = extract_module(parse_file(pir), pir.name)
        for path in (self.dir / case).glob("*.facts"):
            rows = [tuple(line.split("\t")) for line in path.read_text().splitlines()]
            assert rows == [tuple(str(v) for v in r) for r in facts[path.stem]], path.name

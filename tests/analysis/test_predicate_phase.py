"""The predicate-statistics phase of analyze (issue #12 item 2): --jobs runs functions in
parallel under their budgets with the same rows, in the same order, as one job; progress ticks
once per function."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.analysis.directory import analyze_directory

ROOT = Path(__file__).resolve().parents[2]


def untimed(rows):
    return [{k: v for k, v in r.items() if not k.startswith("seconds")} for r in rows]


@pytest.mark.slow
def test_jobs_give_the_same_predicate_rows(tmp_path):
    ticks = []

    class Recorder:
        def stage(self, name, total=0, unit=""):
            ticks.append(("stage", name))

        def note(self, _):
            pass

        def __call__(self, done, total):
            ticks.append((done, total))

    one = analyze_directory(ROOT / "examples", tmp_path / "a", engine="clingo",
                            if_convert_first=True, jobs=1)
    two = analyze_directory(ROOT / "examples", tmp_path / "b", engine="clingo",
                            if_convert_first=True, jobs=2, progress=Recorder())
    assert one.predicates and untimed(one.predicates) == untimed(two.predicates)
    assert [r["function"] for r in two.predicates] == sorted(
        (r["function"] for r in two.predicates),
        key=[r["function"] for r in one.predicates].index)
    after = ticks[ticks.index(("stage", "predicate statistics")) + 1:]
    counts = [t for t in after if t[0] != "stage"]
    assert counts[-1] == (len(two.predicates), len(two.predicates))

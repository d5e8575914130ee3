"""benchmarks/exec_auto.py: per program the three engines timed from cold caches, their results
compared, and the worst auto/best ratio summarised."""
from pathlib import Path

import pytest

pytest.importorskip("llvmlite")

from benchmarks import exec_auto  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_measure_an_example_on_every_engine():
    path = ROOT / "examples" / "loop_call.pir"
    row = exec_auto.measure(("loop_call.pir", "example", str(path)), exec_auto.ENGINES, 1)
    assert not row.get("different")
    assert row["instructions"] > 0 and row["cases"] == 1
    assert row["native_engines"] == ["native"] and row["interp_engines"] == ["interp"]
    assert row["best"] == min(row["interp"], row["native"])
    assert row["ratio"] == round(row["auto"] / max(row["best"], 1e-9), 3)


def test_summary_counts_only_programs_above_the_floor():
    rows = [{"program": "a", "interp": 1.0, "native": 2.0, "auto": 1.5, "best": 1.0,
             "ratio": 1.5},
            {"program": "b", "interp": 0.001, "native": 0.02, "auto": 0.004, "best": 0.001,
             "ratio": 4.0},
            {"program": "c", "interp": 3.0, "native": 1.0, "auto": 1.05, "best": 1.0,
             "ratio": 1.05, "different": ["auto"]},
            {"program": "d", "skipped": "floating point"}]
    s = exec_auto.summarise(rows, 1.10, 0.02)
    assert (s["programs"], s["timed"], s["counted"]) == (4, 3, 2)
    assert s["worst_ratio"] == 1.5 and s["worst_program"] == "a"
    assert s["over_limit"] == ["a"] and s["different"] == ["c"]
    assert s["total_seconds"] == {"interp": 4.001, "native": 3.02, "auto": 2.554}

"""Issue #27 item 7: ``runs/`` is a record, not a dump: committed run files are summaries, under
10 MB in all (raw per-version outputs are made again by the benchmarks, into ignored folders)."""
from __future__ import annotations

from pathlib import Path

RUNS = Path(__file__).resolve().parents[2] / "runs"


def test_runs_stay_under_ten_megabytes():
    sizes = {p.name: p.stat().st_size for p in RUNS.iterdir() if p.is_file()}
    assert sum(sizes.values()) < 10_000_000, sorted(sizes.items(), key=lambda kv: -kv[1])[:5]


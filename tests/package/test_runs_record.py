"""Issue #27 item 7: ``runs/`` is a record, not a dump: committed run files are summaries, under
10 MB in all (raw per-version outputs are made again by the benchmarks, into ignored folders),
and each says the command that reproduces it."""
from __future__ import annotations

import json
from pathlib import Path

RUNS = Path(__file__).resolve().parents[2] / "runs"


def test_runs_stay_under_ten_megabytes():
    sizes = {p.name: p.stat().st_size for p in RUNS.iterdir() if p.is_file()}
    assert sum(sizes.values()) < 10_000_000, sorted(sizes.items(), key=lambda kv: -kv[1])[:5]


def test_every_run_file_says_the_command_that_reproduces_it():
    # benchmarks.common.command_line writes it; a file from before says "command_note" too
    files = sorted(RUNS.glob("*.json"))
    assert files
    missing = []
    for path in files:
        record = json.loads(path.read_text())
        if not (isinstance(record, dict) and (record.get("command") or record.get("commands"))):
            missing.append(path.name)
    assert not missing, f"runs/ files without a top-level \"command\": {missing}"

"""``analyze`` replaces its output directory all at once (issue #11 item 4): an interrupt at any
moment leaves the previous output byte-identical and no partial directory behind; a bad
``--out`` is a one-line error before any work."""
from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pylogic.analysis import directory
from pylogic.analysis.output import output_directory
from pylogic.errors import PathlogicError

ROOT = Path(__file__).resolve().parents[2]


def snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_interrupt_while_writing_keeps_the_old_output(tmp_path, monkeypatch):
    out = tmp_path / "out"
    directory.analyze_directory(ROOT / "examples", out, engine="clingo")
    before = snapshot(out)
    real = directory.write_facts

    def interrupted(facts, where):
        real(facts, where)
        raise KeyboardInterrupt

    monkeypatch.setattr(directory, "write_facts", interrupted)
    with pytest.raises(KeyboardInterrupt):
        directory.analyze_directory(ROOT / "examples", out, engine="clingo")
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_output_directory_replaces_only_on_success(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with output_directory(out) as tmp:
            (tmp / "new.txt").write_text("new")
            raise RuntimeError
    assert snapshot(out) == {"old.txt": b"old"}
    with output_directory(out) as tmp:
        (tmp / "new.txt").write_text("new")
    assert snapshot(out) == {"new.txt": b"new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]


@pytest.mark.slow
def test_bad_out_paths_are_one_line_errors(tmp_path):
    afile = tmp_path / "f"
    afile.write_text("x")
    for bad in (afile, afile / "sub"):
        with pytest.raises(PathlogicError):
            directory.analyze_directory(ROOT / "examples", bad, engine="clingo")
    proc = subprocess.run([sys.executable, "-m", "pylogic.cli", "analyze", str(ROOT / "examples"),
                           "--out", str(afile / "sub")], capture_output=True, text=True)
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "not a directory" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.4, 0.8, 1.2, 1.6, 2.5])
def test_sigint_at_several_moments(tmp_path, delay):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "examples", src)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "pylogic.cli", "analyze", str(src), "--out", str(out),
           "--engine", "clingo", "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True)
    before = snapshot(out)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    after = snapshot(out)
    # the old output, or (the signal came after the commit) a complete new one: the same files,
    # the same bytes but for summary.json's timings; never a mix, never a leftover directory
    timings = {"summary.json"}
    new = {k: v for k, v in after.items() if k not in timings}
    assert after == before or new == {k: v for k, v in before.items() if k not in timings}
    if proc.returncode == 0:
        assert set(after) == set(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]


#: Run in a fresh interpreter with Ctrl-C unblocked and handled, as in a user's process: in full
#: suite runs some earlier test leaves SIGINT blocked or ignored in the pytest process (the
#: check failed there 4 times in 5, in process and in a child that inherits the state).
SIGNAL_DURING_COMMIT = r"""
import os, signal, sys
from pathlib import Path
from pylogic.analysis import output
from pylogic.analysis.output import output_directory
# a user's process: Ctrl-C unblocked and handled (a fresh interpreter inherits the suite's
# signal mask and ignored signals, and some earlier test leaves SIGINT blocked or ignored)
inherited = (sorted(int(x) for x in signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])),
             signal.signal(signal.SIGINT, signal.default_int_handler))
out = Path(sys.argv[1]) / "out"
out.mkdir()
(out / "old.txt").write_text("old")
real, calls = os.replace, []
def replace(a, b):
    calls.append((a, b))
    real(a, b)
    if len(calls) == 1:                       # old moved away, new not yet in place
        signal.raise_signal(signal.SIGINT)
output.os.replace = replace
try:
    with output_directory(out) as tmp:
        (tmp / "new.txt").write_text("new")
except KeyboardInterrupt:
    files = sorted(p.name for p in out.iterdir())
    print("interrupted after", len(calls), "renames;", files, (out / "new.txt").read_text())
    sys.exit(0)
print("not interrupted; inherited blocked signals and SIGINT handler:", inherited)
sys.exit(1)
"""


def test_a_signal_during_the_commit_waits_for_it(tmp_path):
    """SIGINT between moving the old output away and renaming the new one into place is held
    until both renames and the clean-up are done: then it interrupts."""
    proc = subprocess.run([sys.executable, "-c", SIGNAL_DURING_COMMIT, str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "interrupted after 2 renames; ['new.txt'] new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_interrupt_while_loading_commands_is_not_a_traceback(monkeypatch, capsys):
    from pylogic import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["analyze", "x"]) == 130
    assert capsys.readouterr().err == "pathlogic: interrupted\n"


def test_facts_output_is_replaced_at_once(tmp_path, monkeypatch):
    out = tmp_path / "facts"
    directory.facts_directory(ROOT / "examples", out)
    before = snapshot(out)
    assert "edge.facts" in before

    def interrupted(facts, where):
        (Path(where) / "edge.facts").write_text("partial\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(directory, "write_facts", interrupted)
    with pytest.raises(KeyboardInterrupt):
        directory.facts_directory(ROOT / "examples", out)
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts"]

"""Issue #30 item 3: an output location that cannot be written (permission denied, not only "is a
file") ends every command with exit status 1, one ``pathlogic:`` line naming the path and the
reason, no traceback and nothing left behind; checked before the work.

Tests run as root here, and root ignores permission bits: the unwritable directory is a
``chmod 0o555`` one for other users, and ``/sys`` (sysfs: mkdir is refused even to root) for root;
the test is skipped when neither refuses a write."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pylogic.analysis.output import unwritable
from pylogic.cli import main

GOOD = "func main() {\nentry:\n    x = mov 2\n    print x\n    ret 0\n}\n"
GOOD_DL = ".decl e(x: symbol, y: symbol)\n.input e\n.decl r(x: symbol)\n.output r\nr(y) :- e(_, y).\n"


@pytest.fixture
def locked(tmp_path):
    """A directory nothing can be created in (its listing is checked unchanged afterwards)."""
    if os.geteuid() != 0:
        target = tmp_path / "locked"
        target.mkdir()
        target.chmod(0o555)
        yield target
        target.chmod(0o755)
        return
    target = Path("/sys")
    if not target.is_dir() or unwritable(target) is None:
        pytest.skip("no directory refuses writes to root here")
    yield target


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "good.pir").write_text(GOOD)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "good.pir").write_text(GOOD)
    (tmp_path / "good.dl").write_text(GOOD_DL)
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "e.facts").write_text("a\tb\n")
    return tmp_path


#: (id, argv: "{in}" the inputs' directory, "{out}" the unwritable directory)
CASES = [
    ("analyze", ["analyze", "{in}/dir", "--out", "{out}/o"]),
    ("analyze-nested", ["analyze", "{in}/dir", "--out", "{out}/a/b/o"]),
    ("facts", ["facts", "{in}/dir", "--out", "{out}/o"]),
    ("report", ["report", "{in}/run", "--out", "{out}/o"]),
    ("query-out", ["query", "{in}/good.dl", "--facts", "{in}/facts", "--out", "{out}/o"]),
    ("optimize-html", ["optimize", "{in}/good.pir", "--passes", "dce", "--html", "{out}/o"]),
    ("optimize-out-file", ["optimize", "{in}/good.pir", "--passes", "dce", "--out", "{out}/o.pir"]),
    ("optimize-out-dir", ["optimize", "{in}/dir", "--passes", "dce", "--out", "{out}/o"]),
    ("import", ["import", "{in}/good.pir", "-o", "{out}/o.pir"]),
    ("export", ["export", "{in}/good.pir", "--llvm", "-o", "{out}/o.ll"]),
    ("if-convert", ["if-convert", "{in}/good.pir", "-o", "{out}/o.pir"]),
    ("run-profile", ["run", "{in}/good.pir", "--profile", "{out}/p.json"]),
]


@pytest.mark.parametrize("argv", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_unwritable_output_one_line_nothing_left(inputs, locked, capsys, argv):
    if argv[0] == "report":   # a finished analyze run to render
        assert main(["analyze", str(inputs / "dir"), "--out", str(inputs / "run"), "--quiet"]) == 0
        capsys.readouterr()
    before = sorted(os.listdir(locked))
    args = [a.replace("{in}", str(inputs)).replace("{out}", str(locked)) for a in argv]
    got = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert got == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pathlogic:"), err
    path = next(a for a in args if a.startswith(str(locked)))
    assert path in lines[0], err                                    # names the path
    reason = unwritable(locked)
    assert reason and reason in lines[0], err                       # and the reason
    assert sorted(os.listdir(locked)) == before                    # nothing left behind
    assert not [p for p in inputs.rglob(".*") if "partial" in p.name or "probe" in p.name]


def test_a_write_failing_after_the_check_is_one_line(inputs, capsys, monkeypatch):
    """The check passed but the write fails (disk full, a directory replaced meanwhile): still one
    line, and the partial file removed."""
    def full(*_a, **_k):
        raise OSError(28, "No space left on device", "somewhere")
    monkeypatch.setattr(os, "replace", full)
    out = inputs / "o.pir"
    got = main(["import", str(inputs / "good.pir"), "-o", str(out)])
    err = capsys.readouterr().err
    assert got == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [f"pathlogic: error: {out}: cannot write: No space left on device"]
    assert sorted(p.name for p in inputs.iterdir()) == ["dir", "facts", "good.dl", "good.pir"]


def test_cli_turns_a_late_os_error_about_a_path_into_one_line(capsys, monkeypatch):
    """The safety net in ``main``: an OSError naming a file that escapes a command."""
    import pylogic.commands.check as check

    def late(_args):
        raise PermissionError(13, "Permission denied", "/x/.out.partial-1")
    monkeypatch.setattr(check, "run", late)
    got = main(["check", "nowhere.pir"])
    err = capsys.readouterr().err
    assert got == 1
    assert err.strip().splitlines() == ["pathlogic: /x/.out.partial-1: Permission denied"]

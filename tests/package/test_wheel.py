"""The wheel ships every Datalog program (``datalog/`` as ``pylogic/datalog``), so a plain
``pip install .`` (not editable) can run ``pathlogic analyze``; and the one locator finds it."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pylogic.analysis import catalog

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # what is packaged, not compiled: the Cython build (pylogic.compiled_modules) is CI's smoke
    # install's to check, and takes minutes
    env = dict(os.environ, PATHLOGIC_PURE_PYTHON="1")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(out), str(ROOT)], capture_output=True, text=True,
                          cwd=out, env=env)
    if proc.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{proc.stdout}\n{proc.stderr}")
    (found,) = out.glob("pathlogic-*.whl")
    return found


@pytest.mark.slow
def test_every_shipped_datalog_file_is_in_the_wheel(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = sorted(p.relative_to(ROOT / "datalog").as_posix()
                     for p in (ROOT / "datalog").rglob("*.dl"))
    assert len(shipped) >= 10
    missing = [p for p in shipped if f"pylogic/datalog/{p}" not in names]
    assert missing == []
    assert "pylogic/analysis/catalog.py" in names and "facts_gen/extract.py" in names


def test_catalogued_programs_exist_and_load():
    assert catalog.datalog_dir().is_dir()
    for analysis in catalog.CATALOG:
        assert analysis.path.is_file(), analysis.file
        assert analysis.outputs, analysis.name
    for file in catalog.BUNDLES.values():
        assert (catalog.datalog_dir() / file).is_file()


def test_every_top_level_program_is_catalogued_or_a_bundle():
    top = {p.name for p in catalog.datalog_dir().glob("*.dl")}
    known = {a.file for a in catalog.CATALOG} | set(catalog.BUNDLES.values()) | {"schema.dl"}
    assert top - known == set(), "add new analyses to pylogic/analysis/catalog.py"
    assert known - top == set()

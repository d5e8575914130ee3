"""The analysis cache (issue #17 item 4): a second ``analyze`` of an unchanged corpus runs no
engine and writes the same outputs; a changed file re-does only its own work; failures are not
cached; a damaged entry is a miss."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pylogic.analysis import run as run_mod
from pylogic.analysis.cache import Cache
from pylogic.analysis.directory import analyze_directory
from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]


def tree(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file() and p.name != "summary.json"}


@pytest.fixture
def corpus(tmp_path):
    src = tmp_path / "in"
    shutil.copytree(ROOT / "examples", src)
    return src


def no_engine(*_a, **_k):
    raise AssertionError("an engine ran although every result was cached")


@pytest.mark.slow
def test_second_run_runs_no_engine_and_writes_the_same(corpus, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = analyze_directory(corpus, tmp_path / "o1", engine="clingo", cache=Cache(cache))
    assert first.summary()["engine_calls"]
    monkeypatch.setattr(run_mod, "run_checked", no_engine)
    second = analyze_directory(corpus, tmp_path / "o2", engine="clingo", cache=Cache(cache))
    s = second.summary()
    assert s["engine_calls"] == [] and not second.failed
    assert s["cache"]["analyses"] == {"hits": len(s["functions"]), "misses": 0}
    assert s["cache"]["load"]["misses"] == 0
    assert tree(tmp_path / "o1") == tree(tmp_path / "o2")
    assert s["functions"] == first.summary()["functions"]
    assert s["predicates"] == first.summary()["predicates"]


@pytest.mark.slow
def test_predicate_matrices_are_cached(corpus, tmp_path, monkeypatch):
    """A second run reads every function's relation matrix back (no BDD, no SAT) and writes
    the same OUT/report/matrices.json."""
    from pylogic.analysis import directory
    cache = tmp_path / "cache"
    first = analyze_directory(corpus, tmp_path / "o1", engine="clingo", cache=Cache(cache),
                              matrices=True)
    assert any(isinstance(m, list) and m for m in first.matrices.values())
    monkeypatch.setattr(directory, "predicate_matrices", no_engine)
    second = analyze_directory(corpus, tmp_path / "o2", engine="clingo", cache=Cache(cache),
                               matrices=True)
    assert second.summary()["cache"]["matrix"] == {"hits": len(first.matrices), "misses": 0}
    assert second.matrices == first.matrices
    assert tree(tmp_path / "o1") == tree(tmp_path / "o2")


@pytest.mark.slow
def test_a_changed_file_redoes_only_its_functions(corpus, tmp_path):
    cache = Cache(tmp_path / "cache")
    analyze_directory(corpus, tmp_path / "o1", engine="clingo", cache=cache)
    victim = corpus / "pcp_branchy.pir"
    text = victim.read_text()
    victim.write_text(text.replace("    ret z", "    dead = mov 7\n    ret z", 1))
    again = Cache(tmp_path / "cache")
    result = analyze_directory(corpus, tmp_path / "o2", engine="clingo", cache=again)
    s = result.summary()
    changed = [f["function"] for f in s["functions"] if f["function"].startswith("pcp_branchy.pir::")]
    assert s["cache"]["load"] == {"hits": len(list(corpus.glob("*.pir"))) - 1, "misses": 1}
    assert s["cache"]["analyses"]["misses"] == 1 == len(changed)
    analyze_directory(corpus, tmp_path / "o3", engine="clingo")
    assert tree(tmp_path / "o2") == tree(tmp_path / "o3")


@pytest.mark.slow
def test_failures_are_not_cached_and_damaged_entries_are_misses(corpus, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    real = run_mod.run_checked
    monkeypatch.setattr(run_mod, "run_checked", no_engine)
    broken = analyze_directory(corpus, tmp_path / "o1", engine="clingo", cache=Cache(cache_dir),
                               timeout=None)
    assert broken.failed
    assert not any(p.is_file() for p in (cache_dir / "analyses").rglob("*"))
    monkeypatch.setattr(run_mod, "run_checked", real)
    good = analyze_directory(corpus, tmp_path / "o2", engine="clingo", cache=Cache(cache_dir))
    assert not good.failed and good.summary()["cache"]["analyses"]["hits"] == 0
    for entry in (cache_dir / "analyses").rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"not a pickle")
    again = analyze_directory(corpus, tmp_path / "o3", engine="clingo", cache=Cache(cache_dir))
    assert not again.failed and again.summary()["cache"]["analyses"]["hits"] == 0
    assert tree(tmp_path / "o2") == tree(tmp_path / "o3")


@pytest.mark.slow
def test_cli_cache_options(corpus, tmp_path, capsys, monkeypatch):
    cache = tmp_path / "c"
    assert main(["analyze", str(corpus), "--out", str(tmp_path / "o1"), "--cache", str(cache),
                 "--engine", "clingo", "--quiet"]) == 0
    assert main(["analyze", str(corpus), "--out", str(tmp_path / "o2"), "--cache", str(cache),
                 "--engine", "clingo", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "cache: " in out and "0 engine calls" in out
    assert main(["analyze", str(corpus), "--out", str(tmp_path / "o3"), "--no-cache",
                 "--engine", "clingo", "--quiet"]) == 0
    summary = json.loads((tmp_path / "o3" / "summary.json").read_text())
    assert summary["cache"] == {"root": None} and summary["engine_calls"]
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path / "env"))
    assert main(["analyze", str(corpus), "--out", str(tmp_path / "o4"), "--engine", "clingo",
                 "--quiet"]) == 0
    assert (tmp_path / "env" / "analyses").is_dir()


def test_a_changed_header_reloads_the_c_file(tmp_path):
    """A .c file's load is keyed by the #include "..." files it reaches, too."""
    import shutil as _shutil
    if _shutil.which("clang-14") is None and _shutil.which("clang") is None:
        pytest.skip("clang not installed")
    src = tmp_path / "in"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "k.h").write_text("#define K 3\n")
    (src / "inc" / "top.h").write_text('#include "k.h"\n')
    (src / "main.c").write_text('#include "inc/top.h"\nint main(void) { return K; }\n')
    cache = tmp_path / "cache"
    analyze_directory(src, tmp_path / "o1", engine="clingo", cache=Cache(cache))
    again = analyze_directory(src, tmp_path / "o2", engine="clingo", cache=Cache(cache))
    assert again.summary()["cache"]["load"] == {"hits": 1, "misses": 0}
    (src / "inc" / "k.h").write_text("#define K (3 + 4)\n")       # two levels down
    changed = analyze_directory(src, tmp_path / "o3", engine="clingo", cache=Cache(cache))
    assert changed.summary()["cache"]["load"] == {"hits": 0, "misses": 1}
    assert (tmp_path / "o3" / "facts").exists()


@pytest.mark.slow
def test_if_conversion_is_cached_with_its_check(corpus, tmp_path, monkeypatch):
    """A second --if-convert run converts nothing, runs no engine and no interpreter check,
    and writes the same outputs and if-conversion records."""
    from pylogic.analysis import directory
    cache = tmp_path / "cache"
    first = analyze_directory(corpus, tmp_path / "o1", engine="clingo", if_convert_first=True,
                              cache=Cache(cache))
    monkeypatch.setattr(run_mod, "run_checked", no_engine)
    monkeypatch.setattr(directory, "compare_modules", no_engine)
    second = analyze_directory(corpus, tmp_path / "o2", engine="clingo", if_convert_first=True,
                               cache=Cache(cache))
    s = second.summary()
    assert not second.failed and s["engine_calls"] == []
    assert s["cache"]["if-convert"] == {"hits": len(list(corpus.glob("*.pir"))), "misses": 0}
    assert second.if_conversion == first.if_conversion
    assert tree(tmp_path / "o1") == tree(tmp_path / "o2")


def test_shipped_programs_are_parsed_once(tmp_path, monkeypatch):
    """With a cache, a catalog program's checked form is read back instead of parsed again."""
    from pylogic.analysis import catalog
    from pylogic.engines import program as front_end  # catalog imports the parser from it on use
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path))
    monkeypatch.delenv("PATHLOGIC_PROGRAM_CACHE", raising=False)  # follows PATHLOGIC_CACHE
    monkeypatch.setattr(catalog, "_SHIPPED", {})
    first = catalog.get("ppg").program()
    assert list((tmp_path / "programs").rglob("*"))
    monkeypatch.setattr(catalog, "_SHIPPED", {})
    monkeypatch.setattr(front_end, "load_program_cached", no_engine)  # parsing is not allowed
    again = catalog.get("ppg").program()
    assert sorted(again.outputs) == sorted(first.outputs)
    assert again is not first
    monkeypatch.setenv("PATHLOGIC_CACHE", "off")
    with pytest.raises(AssertionError):
        catalog.get("dominance").program()                            # off: parsed, not read


def test_another_installation_of_the_same_source_gets_its_own_paths(tmp_path, monkeypatch):
    """A checked program holds its files' paths (the ``souffle`` engine runs Soufflé on them):
    read back from a cache an installation elsewhere filled (same source, same key otherwise),
    it must name this installation's files. Found at stop 51: a wheel's run had cached
    ``site-packages/pylogic/datalog/correlation.dl`` and a source checkout's ``analyze
    --correlation --engine souffle`` then failed on every file, 'cannot open file'."""
    from pylogic.analysis import catalog
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PATHLOGIC_PROGRAM_CACHE", raising=False)  # follows PATHLOGIC_CACHE
    mains = {}
    for where in ("one", "two"):
        shutil.copytree(catalog.datalog_dir(), tmp_path / where / "datalog")
        monkeypatch.setattr(catalog, "datalog_dir", lambda w=where: tmp_path / w / "datalog")
        monkeypatch.setattr(catalog, "_SHIPPED", {})
        program = catalog.get("ppg").program()
        mains[where] = program.main_file
        assert all(str(tmp_path / where) in str(f) for f in program.files), program.files
    assert mains["one"] != mains["two"]
    assert list((tmp_path / "cache" / "programs").rglob("*"))

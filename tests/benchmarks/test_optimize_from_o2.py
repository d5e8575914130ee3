"""``benchmarks/optimize.py --from O2`` (issue #28 item 3): clang-14 -O2 without the vectorizers is a
version of its own, checked against the -O0 original; our pipelines run on its import, every
later version is checked against the original too and records what it removes beyond the start.
And ``--native`` (item 4): each version exported (``pathlogic export --llvm``), compiled and run
natively with the interpreter's output. The slow part runs a fixed sample of 25 programs (every
real benchmark and two csmith programs) through the start, a pipeline and the export."""
from __future__ import annotations

import dataclasses
import os
import pytest

from benchmarks import native_timing
from benchmarks import optimize as harness
from pylogic.interp.native import run_with
from pylogic.ir.model import Imm, Ret
from pylogic.transforms import registry
from tests.support import needs_clang

#: a loop whose phis become copies after -O2: ``coalesce`` has something to remove
LOOP = r"""
#include <stdio.h>
static int step(int a, int b) { return a * 3 + b; }
volatile int n = 50;
int main(void) {
    int a = 1, b = 2, s = 0;
    for (int i = 0; i < n; i++) { int t = a; a = b; b = step(t, i) & 1023; s += a ^ b; }
    printf("%d\n", s);
    return s & 7;
}
"""


def _break_returns(module, rows, **_):
    """A deliberately wrong "pass": main returns 99."""
    fns = []
    for fn in module.functions:
        if fn.name in ("@main", "main") and not fn.extern:
            fn = dataclasses.replace(fn, blocks=tuple(dataclasses.replace(b, instrs=tuple(
                Ret(value=Imm(99)) if isinstance(i, Ret) else i for i in b.instrs))
                for b in fn.blocks))
        fns.append(fn)
    return dataclasses.replace(module, functions=tuple(fns)), None


@pytest.fixture
def broken_pass(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "break-ret",
                        registry.Pass("break-ret", _break_returns, (), "test stub"))


def _versions(record):
    return {v["pipeline"]: v for v in record["versions"]}


@needs_clang
def test_from_o2_start_is_checked_and_later_versions_report_what_they_remove(tmp_path, broken_pass):
    (tmp_path / "loop.c").write_text(LOOP)
    items = [("loop.c", "c", str(tmp_path / "loop.c")),
             ("loop_call.pir", "example", os.path.join(harness.EXAMPLES, "loop_call.pir"))]
    ours = [["coalesce"], ["break-ret"]]
    llvm = ["instcombine"]
    records, _ = harness.run(items, ours, llvm, fuel=1_000_000, start="O2")
    c, pir = records
    v = _versions(c)
    assert list(v) == ["original", "start:O2", "ours:coalesce", "ours:break-ret", "opt:instcombine"]
    assert v["original"]["verdict"] == "reference"
    assert v["start:O2"]["verdict"] == "identical"
    # -O2 inlined step() and removed the loop's memory traffic: fewer instructions than -O0
    assert v["start:O2"]["instructions"] < v["original"]["instructions"]
    assert v["ours:coalesce"]["verdict"] == "identical"
    assert v["ours:break-ret"]["verdict"] == "different"   # checked against the original
    assert "beyond_start" not in v["ours:break-ret"]
    for label in ("ours:coalesce", "opt:instcombine"):
        gain = v[label]["beyond_start"]
        assert set(gain) == set(harness.BEYOND)
        for k in harness.BEYOND:
            assert gain[k] == v["start:O2"][k] - v[label][k]
    assert v["ours:coalesce"]["moves"] < v["start:O2"]["moves"]
    assert v["ours:coalesce"]["beyond_start"]["instructions"] > 0
    # a .pir example has no C to start from: every later row says why
    pv = _versions(pir)
    assert pv["start:O2"]["verdict"] == "not compared"
    assert pv["ours:coalesce"]["detail"].startswith("start O2 not identical")

    labels = harness.labels_of(ours, llvm, "O2")
    summary = harness.summarise(records, labels)["beyond_start"]
    assert summary["start"] == "start:O2"
    p = summary["pipelines"]["ours:coalesce"]
    assert p["programs"] == 1 and p["instructions"]["fewer"] == 1
    assert summary["pipelines"]["ours:break-ret"]["programs"] == 0
    best = summary["best_of_ours"]
    assert best["chosen"] == {"ours:coalesce": 1} and best["more"] == 0


@needs_clang
def test_main_from_o2_records_the_command_and_the_start(tmp_path, capsys, monkeypatch):
    (tmp_path / "loop.c").write_text(LOOP)
    out = tmp_path / "runs" / "o.json"
    items = [("loop.c", "c", str(tmp_path / "loop.c"))]
    monkeypatch.setattr(harness, "corpus", lambda *a, **k: items)
    assert harness.main(["--from", "O2", "--ours", "coalesce", "--jobs", "1",
                         "--out", str(out), "--quiet"]) == 0
    from benchmarks.common import read_record
    payload = read_record(out)
    assert payload["command"].endswith("--from O2 --ours coalesce --jobs 1 --out "
                                       f"{out} --quiet")
    assert payload["start"].startswith("start:O2: clang-14 -S -emit-llvm -O2 -fno-vectorize "
                                       "-fno-slp-vectorize")
    assert payload["pipelines"]["llvm"] == [harness.llvm_label(s)
                                            for s in harness.DEFAULT_LLVM_AFTER_START]
    text = capsys.readouterr().out
    assert "removed beyond start:O2" in text
    # --resummarise finds the start's label in the versions (run_labels)
    before = payload["summary"]["beyond_start"]
    assert harness.main(["--resummarise", str(out)]) == 0
    assert read_record(out)["summary"]["beyond_start"] == before


@pytest.mark.slow
@needs_clang
def test_native_times_every_version_with_the_interpreters_output(tmp_path, monkeypatch):
    (tmp_path / "loop.c").write_text(LOOP)
    monkeypatch.setattr(harness, "NATIVE_REPEAT", 2)
    records, _ = harness.run([("loop.c", "c", str(tmp_path / "loop.c"))], [["coalesce"]], [],
                             fuel=1_000_000, start="O2")
    (r,) = records
    for v in r["versions"]:
        assert v["native_output"] == "identical", v
        assert v["native_seconds"] >= 0
    assert r["native_clang_O2"]["native_output"] == "identical"
    native = harness.native_summary(records, harness.labels_of([["coalesce"]], [], "O2"))
    assert native["programs"] == 1 and native["output_different"] == []


@needs_clang
def test_native_timing_catches_a_wrong_output(tmp_path):
    module, _, _ = harness.start_o2(str(_write(tmp_path, LOOP)))
    ref = run_with("interp", module, entry="main", fuel=1_000_000)
    assert native_timing.time_module(module, (ref.stdout_bytes, ref.exit_status), 1)[
        "native_output"] == "identical"
    assert native_timing.time_module(module, (ref.stdout_bytes + b"x", ref.exit_status), 1)[
        "native_output"] == "different"


def _write(tmp_path, text, name="p.c"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ---- the fixed sample (slow) ------------------------------------------------------------------

def _sample():
    from benchmarks.real_corpus import programs
    from benchmarks.corpus import csmith_program
    out = [(name.replace("/", "-"), "real", path) for name, path in programs()]
    for seed in (2, 3):
        try:
            p = csmith_program(seed, harness.DEFAULT_WORKDIR)
        except Exception:  # csmith absent: the real programs alone
            p = None
        if p is not None:
            out.append((f"csmith-{seed}.c", "csmith", p))
    return out


SAMPLE = _sample()
#: what runs after O2 in the sample: cheap passes that still change most programs
SAMPLE_PIPELINE = ["simplify", "coalesce"]


@pytest.fixture
def native_start_and_ours(monkeypatch):
    """``--native 1`` for the two versions the sample test checks natively, the start and ours.
    The original's export and the C program compiled by clang (``native_clang_O2``) would be
    timed too, but this test asserts neither (a wrong output there is a record, not a failure):
    a third of the sample's exports, compiles and native runs (about 24 s of its 92 s CPU,
    fast42). Both are checked on LOOP by
    ``test_native_times_every_version_with_the_interpreters_output``."""
    monkeypatch.setattr(harness, "NATIVE_REPEAT", 1)
    monkeypatch.setattr(harness, "_native_c", lambda path, ref: {})
    version = harness._version

    def checked_natively_unless_original(label, side, *args):
        if side != "input":
            return version(label, side, *args)
        with pytest.MonkeyPatch.context() as original:
            original.setattr(harness, "NATIVE_REPEAT", 0)
            return version(label, side, *args)
    monkeypatch.setattr(harness, "_version", checked_natively_unless_original)


@pytest.mark.slow
@needs_clang
@pytest.mark.parametrize("name,kind,path", SAMPLE, ids=[n for n, _, _ in SAMPLE])
def test_sample_from_o2_is_identical_and_round_trips_through_export(name, kind, path,
                                                                    native_start_and_ours):
    """The start and our version after it: identical to the -O0 original in the interpreter,
    and exported, compiled and run natively (``--native 1``) with the original's output."""
    assert len(SAMPLE) >= 20
    record = harness.evaluate(name, kind, path, [SAMPLE_PIPELINE], [], fuel=50_000_000,
                              start="O2")
    v = _versions(record)
    for label in ("start:O2", harness.ours_label(SAMPLE_PIPELINE)):
        assert v[label]["verdict"] == "identical", (label, v[label]["detail"])
        assert v[label]["native_output"] == "identical", (label, v[label])
    assert "native_output" not in v["original"] and record["native_clang_O2"] == {}

"""benchmarks/optimize.py: our pipelines and LLVM's from one prepared .ll, each version checked
against the original on the interpreter; the JSON rows, verdicts and totals."""
from __future__ import annotations

import dataclasses
import json
import os

import pytest

from benchmarks import optimize as harness
from benchmarks.common import read_record
from pylogic.ir.model import Imm, Ret
from pylogic.transforms import registry
from tests.support import needs_clang

TINY_A = r"""
#include <stdio.h>
int main(void) {
    int s = 0;
    for (int i = 0; i < 20; i++) s += (i & 1) ? i : 2 * i;
    printf("%d\n", s);
    return 0;
}
"""
TINY_B = r"""
static int pick(int x) { if (x > 3) return x - 1; else return x + 1; }
int main(void) {
    int t = 0;
    for (int i = 0; i < 8; i++) t += pick(i);
    return t == 32 ? 0 : 1;
}
"""


def _break_returns(module, rows, **_):
    """A deliberately wrong "pass": main returns 99."""
    fns = []
    for fn in module.functions:
        if fn.name in ("@main", "main") and not fn.extern:
            blocks = tuple(dataclasses.replace(b, instrs=tuple(
                Ret(value=Imm(99)) if isinstance(i, Ret) else i for i in b.instrs))
                for b in fn.blocks)
            fn = dataclasses.replace(fn, blocks=blocks)
        fns.append(fn)
    return dataclasses.replace(module, functions=tuple(fns)), None


@pytest.fixture
def broken_pass(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "break-ret",
                        registry.Pass("break-ret", _break_returns, (), "test stub"))


@needs_clang
@pytest.mark.slow
def test_harness_rows_and_verdicts(tmp_path, broken_pass):
    (tmp_path / "a.c").write_text(TINY_A)
    (tmp_path / "b.c").write_text(TINY_B)
    items = [("a.c", "c", str(tmp_path / "a.c")), ("b.c", "c", str(tmp_path / "b.c")),
             ("loop_call.pir", "example", os.path.join(harness.EXAMPLES, "loop_call.pir"))]
    ours = [["if-convert"], ["break-ret"], ["no-such-pass"]]
    llvm = ["sccp,adce"]
    records, left = harness.run(items, ours, llvm, fuel=1_000_000)
    assert left == 0 and [r["program"] for r in records] == ["a.c", "b.c", "loop_call.pir"]
    for r in records:
        v = {x["pipeline"]: x for x in r["versions"]}
        assert list(v) == ["original", "ours:if-convert", "ours:break-ret", "ours:no-such-pass",
                           "opt:sccp,adce"]
        assert v["original"]["verdict"] == "reference"
        assert v["ours:if-convert"]["verdict"] == "identical"
        assert v["ours:break-ret"]["verdict"] == "different"
        assert "return value" in v["ours:break-ret"]["detail"]
        assert v["ours:no-such-pass"]["verdict"] == "not compared"
        assert v["ours:no-such-pass"]["detail"].startswith("unknown pass")
        for k in harness.METRICS + ("static_size",):
            assert isinstance(v["ours:if-convert"][k], int)
        assert v["original"]["instructions"] > 0 and v["original"]["branches"] > 0
        if r["kind"] == "example":
            assert v["opt:sccp,adce"]["verdict"] == "n/a"
        else:
            assert v["opt:sccp,adce"]["verdict"] == "identical"
    labels = harness.labels_of(ours, llvm)
    summary = harness.summarise(records, labels)
    assert summary["pipelines_never_run"] == ["ours:no-such-pass"]
    # break-ret differs everywhere: no program has every version identical
    assert summary["programs_all_identical"] == 0
    assert summary["verdicts"]["ours:break-ret"] == {"different": 3}
    pair = summary["totals_pairwise"]["opt:sccp,adce"]
    assert pair["programs"] == 2 and pair["original"]["instructions"] > 0
    without = harness.summarise(records, harness.labels_of([["if-convert"]], llvm))
    assert without["programs_all_identical"] == 2  # the .pir example has no LLVM version
    orig = sum(r["versions"][0]["instructions"] for r in records[:2])
    assert without["totals_over_all_identical"]["original"]["instructions"] == orig
    assert without["programs_ours_identical"] == 3


def test_not_compared_when_the_original_runs_out_of_fuel():
    rec = harness.evaluate("loop_call.pir", "example",
                           os.path.join(harness.EXAMPLES, "loop_call.pir"),
                           [["if-convert"]], ["sccp,adce"], fuel=50)
    assert rec["status"] == "original not run"
    assert "fuel" in rec["versions"][0]["detail"]
    assert all(v["verdict"] == "not compared" for v in rec["versions"])
    # the passes are still timed (issue #28: speed on every program); a .pir has no LLVM text
    ours = rec["versions"][1]
    assert ours["pipeline"] == "ours:if-convert" and ours["detail"] == "original not run"
    assert ours["cpu_seconds"] >= 0 and len(ours["sha256"]) == 64
    assert "cpu_seconds" not in rec["versions"][2]


def test_speed_median_is_given_over_every_timed_program_and_over_those_that_ran():
    # a program whose original exhausts the fuel is timed and counts in the median; the
    # median over the programs whose original ran is the second figure (issue #28 item 1)
    def rec(name, ours, opt, status="ok"):
        return {"program": name, "status": status, "versions": [
            {"pipeline": "ours:pre-m", "verdict": "identical", "detail": "", "cpu_seconds": ours},
            {"pipeline": "opt:gvn", "cpu_seconds": opt}]}
    records = [rec("a", 1.0, 1.0), rec("b", 2.0, 1.0), rec("c", 3.0, 1.0),
               rec("d", 40.0, 1.0, "original not run"), rec("e", 50.0, 1.0, "original not run")]
    row = harness.speed_summary(records, ["original", "ours:pre-m", "opt:gvn"])["ours:pre-m"]
    got = row["counterpart"]
    assert (got["programs"], got["median_ratio"]) == (5, 3.0)
    assert (got["programs_original_ran"], got["median_ratio_original_ran"]) == (3, 2.0)


def test_pass_timeout_counts_cpu_and_is_listed(monkeypatch):
    import time
    with pytest.raises(harness.PipelineTimeout, match="CPU"):
        with harness._time_limit(0.2):
            t = time.perf_counter()
            while time.perf_counter() - t < 30:
                pass
    def spinning(*args, **kwargs):          # a pipeline that takes CPU time until stopped
        t = time.perf_counter()
        while time.perf_counter() - t < 30:
            pass
    monkeypatch.setattr(harness, "optimize", spinning)
    monkeypatch.setattr(harness, "PASS_TIMEOUT", 0.05)
    rec = harness.evaluate("loop_call.pir", "example", os.path.join(harness.EXAMPLES, "loop_call.pir"),
                           [["if-convert"]], [])
    assert "timed out" in rec["versions"][1]["detail"]
    fast = {"program": "b", "versions": [{"pipeline": "ours:sccp", "verdict": "identical",
                                          "detail": "", "cpu_seconds": harness.SLOW + 1},
                                         {"pipeline": "opt:sccp,adce", "cpu_seconds": 0.5}]}
    speed = harness.speed_summary([rec | {"versions": [dict(rec["versions"][1],
                                                            pipeline="ours:sccp")]}, fast],
                                  ["original", "ours:sccp", "opt:sccp,adce"])
    assert speed["ours:sccp"]["over_60s"] == [["loop_call.pir", rec["versions"][1]["detail"]],
                                              ["b", harness.SLOW + 1]]


@pytest.mark.slow
def test_main_writes_json_and_table(tmp_path, capsys, monkeypatch):
    readings = iter([0.7, 0.9])         # the host's speed before and after (host_python_seconds)
    monkeypatch.setattr(harness, "host_python_seconds", lambda: next(readings))
    out = tmp_path / "optimize-t.json"
    assert harness.main(["--examples", "--ours", "if-convert", "--llvm", "sccp,adce",
                         "--jobs", "1", "--quiet", "--name", "t", "--out", str(out)]) == 0
    data = read_record(out)
    assert data["preparation"] == harness.preparation() and "mem2reg,lowerswitch" in data["preparation"]
    assert "lowerswitch" in data["llvm_normalisation"]
    assert data["pipelines"] == {"ours": ["ours:if-convert"], "llvm": ["opt:sccp,adce"]}
    assert {r["program"] for r in data["programs"]} >= {"pas_fig3b.pir", "loop_call.pir"}
    # the whole output beside the summary: the passes' own records only there
    raw = json.loads((tmp_path / "raw" / "optimize-t.json").read_text())
    assert [r["program"] for r in raw["programs"]] == [r["program"] for r in data["programs"]]
    ours = [v for r in raw["programs"] for v in r["versions"] if v["pipeline"] == "ours:if-convert"]
    assert ours and all("passes" in v for v in ours if v["verdict"] == "identical")
    assert not any("passes" in v for r in data["programs"] for v in r["versions"])
    assert harness.summarise(raw["programs"], harness.labels_of([["if-convert"]], ["sccp,adce"])) \
        == data["summary"]
    assert data["machine"]["python_loop_seconds"] == [0.7, 0.9]
    printed = capsys.readouterr().out
    assert "preparation: clang-14" in printed and "pairwise" in printed
    assert "Python loop took 0.7 s before the programs and 0.9 s after" in printed
    assert "pas_fig3b.pir" in printed


def test_parse_range():
    assert harness.parse_range("1-3,7") == [1, 2, 3, 7]
    assert harness.parse_range("0") == [] and harness.parse_range("") == []


def test_torture_sample_by_count_all_or_globs(tmp_path):
    for name in ("20001130-1.c", "20001130-2.c", "pr68506.c", "big.c"):
        (tmp_path / name).write_text("int main(void) { return 0; }\n" + ("/*x*/" * 400 if name == "big.c" else ""))
    d = str(tmp_path)
    names = lambda ps: [os.path.basename(p) for p in ps]
    assert names(harness.torture_sample("pr68506.c,20001130-*", directory=d)) == \
        ["20001130-1.c", "20001130-2.c", "pr68506.c"]
    assert len(harness.torture_sample("all", directory=d)) == 4
    assert "big.c" not in names(harness.torture_sample("4", directory=d))   # N: short ones only
    assert "big.c" in names(harness.torture_sample("4", directory=d, max_bytes=0))  # any size
    assert harness.torture_sample("0", directory=d) == []


def test_parity_reasons():
    from benchmarks.optimize import parity_of

    def rec(ours, both, alone, alone_verdict="identical"):
        return {"program": "p", "versions": [
            {"pipeline": "ours:sccp", "verdict": "identical", "static_size": ours},
            {"pipeline": "opt:sccp,adce", "verdict": "identical", "static_size": both},
            {"pipeline": "opt:sccp", "verdict": alone_verdict, "static_size": alone}]}
    pair = ("ours:sccp", "opt:sccp,adce", "opt:sccp")
    assert parity_of(rec(10, 11, 12), *pair)["verdict"] == "smaller"
    assert parity_of(rec(10, 10, 12), *pair)["verdict"] == "equal"
    assert "dead code elimination" in parity_of(rec(12, 10, 12), *pair)["reason"]
    assert "value ranges" in parity_of(rec(12, 10, 11), *pair)["reason"]
    fewer = rec(12, 10, 11)
    fewer["versions"][0]["loads"], fewer["versions"][2]["loads"] = 5, 3
    assert "constant globals" in parity_of(fewer, *pair)["reason"]
    assert "unexplained" in parity_of(rec(12, 10, 11, "different"), *pair)["reason"]
    r = rec(12, 10, 11)
    r["versions"][1]["verdict"] = "not compared"
    assert parity_of(r, *pair) is None


def test_each_pipeline_runs_in_a_process_of_its_own(monkeypatch):
    """What one pipeline leaves in its process is not there for the next (opt-14 runs each
    pipeline in a process of its own), and a pipeline whose process dies gets a row."""
    seen, original = [], harness.optimize

    def remembering(module, pipeline, *args, **kwargs):
        seen.append(pipeline)               # in the pipeline's own process only
        if pipeline == ["die"]:
            os._exit(3)
        return original(module, pipeline, *args, **kwargs)

    monkeypatch.setattr(harness, "known_names", lambda: {"if-convert", "die"})
    monkeypatch.setattr(harness, "optimize", remembering)
    rec = harness.evaluate("loop_call.pir", "example", os.path.join(harness.EXAMPLES, "loop_call.pir"),
                           [["if-convert"], ["die"], ["if-convert"]], [])
    v = rec["versions"]
    assert [x["pipeline"] for x in v] == ["original", "ours:if-convert", "ours:die",
                                          "ours:if-convert"]
    assert v[1]["verdict"] == v[3]["verdict"] == "identical"
    assert v[2]["detail"] == ("pass crashed: the process ended without a result (exit status 3: "
                              "killed, e.g. out of memory, or crashed)")
    assert seen == []                       # this process ran none of them


def test_time_repeat_keeps_the_least_cpu_and_wants_the_same_output(monkeypatch):
    """``--time-repeat N``: the first run's result, the least CPU of the N; an output that differs
    between the runs (ours by its sha256, opt-14's by its text) or a failing repeat is the row's
    error, not a timing."""
    def runs(*timings):
        it = iter(timings)
        return lambda: {"result": "m", "timing": dict(next(it))}
    monkeypatch.setattr(harness, "TIME_REPEAT", 3)
    got = harness._repeated(runs({"cpu_seconds": 0.3, "sha256": "a"}, {"cpu_seconds": 0.2,
                                  "sha256": "a"}, {"cpu_seconds": 0.25, "sha256": "a"}),
                            "ours:x", "ours")
    assert got == {"result": "m", "timing": {"cpu_seconds": 0.2, "sha256": "a"}}
    bad = harness._repeated(runs({"cpu_seconds": 0.3, "sha256": "a"}, {"cpu_seconds": 0.2,
                                  "sha256": "b"}, {"cpu_seconds": 0.1, "sha256": "a"}),
                            "ours:x", "ours")
    assert bad["error"]["pipeline"] == "ours:x"
    assert bad["error"]["detail"] == "output differs between repeated runs"
    texts = iter(["; ModuleID = '/tmp/a/in.ll'\nout1", "; ModuleID = '/tmp/b/in.ll'\nout1"])
    monkeypatch.setattr(harness, "TIME_REPEAT", 2)
    assert harness._repeated(lambda: {"result": next(texts), "timing": {"cpu_seconds": 0.02}},
                             "opt:gvn", "llvm")["result"].endswith("out1")
    monkeypatch.setattr(harness, "TIME_REPEAT", 3)
    texts = iter(["out1", "out1", "out2"])
    llvm = harness._repeated(lambda: {"result": next(texts), "timing": {"cpu_seconds": 0.02}},
                             "opt:gvn", "llvm")
    assert llvm["error"]["side"] == "llvm"
    failing = iter([{"result": "m", "timing": {"cpu_seconds": 0.1, "sha256": "a"}},
                    {"error": {"pipeline": "ours:x", "detail": "pass crashed"}}])
    assert harness._repeated(lambda: next(failing), "ours:x", "ours")["error"]["detail"] \
        == "pass crashed"
    monkeypatch.setattr(harness, "TIME_REPEAT", 1)
    once = iter([{"result": "m", "timing": {"cpu_seconds": 0.3, "sha256": "a"}}])
    assert harness._repeated(lambda: next(once), "ours:x", "ours")["timing"]["cpu_seconds"] == 0.3


def test_time_repeat_on_a_program(monkeypatch):
    """Each of our pipelines runs TIME_REPEAT times, each in a process of its own."""
    calls = []
    original = harness._run_ours

    def counting(*args, **kwargs):
        calls.append(args[1])
        return original(*args, **kwargs)
    monkeypatch.setattr(harness, "_run_ours", counting)
    monkeypatch.setattr(harness, "TIME_REPEAT", 2)
    rec = harness.evaluate("loop_call.pir", "example", os.path.join(harness.EXAMPLES, "loop_call.pir"),
                           [["if-convert"]], [])
    assert calls == [["if-convert"], ["if-convert"]]
    assert rec["versions"][1]["verdict"] == "identical" and rec["versions"][1]["cpu_seconds"] >= 0

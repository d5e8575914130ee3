"""The differential Datalog fuzzer (issue #29): random stratified programs of every construct of
the dialect table (``benchmarks/datalog_programs.py``) run on the embedded engines (clingo,
duckdb, python) and on Soufflé's interpreter when ``souffle`` is on PATH; every output relation is
compared. Per engine a program gives rows, a refusal (a located ``pathlogic:`` error: counted,
not a disagreement) or an error (anything else: an unlocated error, an exception, a crash or a
hang; always a bug). Programs Soufflé itself rejects are counted and not compared. Every
program the engines agree on is then explained (``run_explain``, ``pathlogic explain``'s
``Explainer`` over an embedded engine's model; ``--no-explain`` skips it): every output row's
tree and a few why-nots, a located refusal counted, a disagreement always a bug.

    python -m benchmarks.datalog_fuzz --programs 2000 --seed 1            # clingo, duckdb, python
    PATH=/work/souffle-src/build/src:$PATH python -m benchmarks.datalog_fuzz --programs 2000

writes ``runs/datalog-fuzz.json``: per construct, programs tried, agreed, refused per engine,
disagreements and errors, explain's counts, with the first reproducers. Each engine runs in a forked
child with a time limit, so a crash (clingo's SIGFPE) is counted instead of ending the run."""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.datalog_programs import CONSTRUCTS, FuzzProgram, RandomChoices, generate

EMBEDDED = ["clingo", "duckdb", "python"]
OUT = Path(__file__).resolve().parent.parent / "runs" / "datalog-fuzz.json"


def souffle_binary() -> str | None:
    return shutil.which("souffle")


def write_program(prog: FuzzProgram, workdir: Path) -> tuple[Path, Path]:
    """``prog.dl`` and ``facts/NAME.facts`` (tab-separated, as Soufflé reads them)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "prog.dl"
    path.write_text(prog.text, encoding="utf-8")
    facts = workdir / "facts"
    facts.mkdir(exist_ok=True)
    for rel, rows in prog.facts.items():
        (facts / f"{rel}.facts").write_text("".join("\t".join(str(v) for v in r) + "\n"
                                                    for r in rows), encoding="utf-8")
    return path, facts


def _rows(result: dict) -> dict:
    return {rel: sorted(tuple(str(v) for v in row) for row in rows) for rel, rows in result.items()}


def run_embedded(prog: FuzzProgram, engine: str, workdir: Path) -> dict:
    """``{"kind": "rows", "rows": ...}``, ``{"kind": "refused", ...}`` or ``{"kind": "error"}``."""
    from pylogic.engines import load_program, run_checked
    from pylogic.errors import DatalogError
    path, facts = write_program(prog, workdir)
    try:
        checked = load_program(path)
        return {"kind": "rows", "rows": _rows(run_checked(checked, facts, engine))}
    except DatalogError as exc:
        if exc.loc is not None and exc.loc.line:
            return {"kind": "refused", "message": f"{exc.loc.line}:{exc.loc.col}: {exc.message}"}
        return {"kind": "error", "message": f"unlocated: {exc.message}"}
    except Exception as exc:  # noqa: BLE001 - any exception is a bug the fuzzer reports
        return {"kind": "error", "message": f"{type(exc).__name__}: {exc}"}


def run_souffle(prog: FuzzProgram, workdir: Path, souffle: str, timeout: float = 300) -> dict:
    """Soufflé's interpreter on the program text itself (not through our front end): rows, or
    ``rejected`` (Soufflé's own error: the program is not valid Soufflé), or ``error``."""
    path, facts = write_program(prog, workdir)
    out = workdir / "souffle-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    try:
        proc = subprocess.run([souffle, "-F", str(facts), "-D", str(out), str(path)],
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"kind": "timeout", "message": f"souffle: no answer within {timeout} s"}
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0 or "Error" in stderr:
        kind = "rejected" if proc.returncode > 0 and "Error" in stderr else "error"
        return {"kind": kind, "message": f"exit {proc.returncode}: {stderr.strip()[:400]}"}
    rows = {}
    for f in out.glob("*.csv"):
        text = f.read_bytes().decode("utf-8", "surrogateescape")
        rows[f.stem] = sorted(tuple(line.split("\t")) for line in text.split("\n")[:-1])
    return {"kind": "rows", "rows": rows}


#: rows that do not hold asked ``why_not`` per output relation (each answer is checked)
WHY_NOT_ROWS = 2


def _absent_rows(rows: list, model_rows, n: int) -> list[tuple]:
    """Up to ``n`` rows of the same shape as ``rows`` that ``model_rows`` does not hold: a held
    row with one column taken from another held row (deterministic: the first such)."""
    out = []
    for row in rows:
        for col in range(len(row)):
            for other in rows:
                cand = row[:col] + (other[col],) + row[col + 1:]
                if cand not in model_rows and cand not in out:
                    out.append(cand)
                    if len(out) == n:
                        return out
                    break
    return out


def run_explain(prog: FuzzProgram, workdir: Path, engine: str = "clingo") -> dict:
    """``pathlogic explain`` as an oracle over ``engine``'s model of ``prog`` (the model the CLI
    builds: ``analysis.explain.explainer``): every row of every output relation explained, and
    ``WHY_NOT_ROWS`` absent rows per relation asked why not. ``{"kind": "explained", "rows",
    "why_not"}``; ``"refused"``: a located ``explain: ... unsupported`` error (counted, not a
    bug); ``"disagreement"``: "engine and explanation disagree", any other error, or a why-not
    that finds every body literal of a rule holding (the row would be derived): always a bug."""
    from pylogic.analysis.explain import explainer
    from pylogic.engines import load_program
    from pylogic.errors import DatalogError
    path, facts = write_program(prog, workdir)
    done = {"rows": 0, "why_not": 0}
    try:
        checked = load_program(path)
        outputs = sorted(checked.outputs)
        if not outputs:
            return {"kind": "explained", **done}
        try:
            ex = explainer(checked, outputs, facts_dir=facts, engine=engine)
        except DatalogError as exc:   # the engine refuses the program: nothing to explain
            if exc.message.startswith("explain:"):
                raise
            return {"kind": "skipped", "message": exc.message, **done}
        for rel in outputs:
            rows = list(ex.model.get(rel, ()))
            for row in rows:
                tree = ex.explain(rel, row)
                if tree["row"] != list(row):
                    return {"kind": "disagreement", "message": f"tree of {rel}{row} is of "
                            f"{tree['rel']}{tuple(tree['row'])}", **done}
                done["rows"] += 1
            if rel in checked.inputs:
                continue
            for row in _absent_rows(rows, ex.model.get(rel, ()), WHY_NOT_ROWS):
                for answer in ex.why_not(rel, row, depth=1):
                    if answer.get("missing") is None and answer["reason"].startswith("every"):
                        return {"kind": "disagreement", "message": f"why_not {rel}{row}: "
                                f"{answer['rule']} {answer['reason']}", **done}
                done["why_not"] += 1
    except DatalogError as exc:
        msg = exc.message
        if msg.startswith("explain:") and "disagree" not in msg and "support" in msg:
            where = f"{exc.loc.line}:{exc.loc.col}: " if exc.loc is not None and exc.loc.line \
                else "unlocated: "
            return {"kind": "refused", "message": where + msg, **done}
        return {"kind": "disagreement", "message": msg, **done}
    except Exception as exc:  # noqa: BLE001 - any exception is a bug the fuzzer reports
        return {"kind": "disagreement", "message": f"{type(exc).__name__}: {exc}", **done}
    return {"kind": "explained", **done}


def _in_child(fn, timeout: float) -> dict:
    """``fn()`` in a forked child (a crash or a hang is an outcome, not the end of the run)."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(fn())
        except BaseException as exc:  # noqa: BLE001
            send.send({"kind": "error", "message": f"{type(exc).__name__}: {exc}"})
    proc = ctx.Process(target=child)
    proc.start()
    send.close()
    deadline = time.monotonic() + timeout
    got = None
    while got is None and time.monotonic() < deadline:
        if recv.poll(1):
            got = recv.recv()
        elif not proc.is_alive():          # died without an answer: a crash
            proc.join()
            return {"kind": "error", "message": f"crash (exit {proc.exitcode})"}
    proc.join(1 if got is not None else 0)
    if proc.is_alive():
        proc.kill()
        proc.join()
    if got is None:   # a hang, or a machine too loaded: counted apart, not as an error
        return {"kind": "timeout", "message": f"no answer within {timeout} s"}
    return got


def run_all(prog: FuzzProgram, engines: list[str], workdir: Path, souffle: str | None = None,
            isolate: bool = False, timeout: float = 300) -> dict:
    """Every engine's outcome on ``prog`` (``souffle`` too, given its binary)."""
    outcomes = {}
    for engine in engines:
        wd = workdir / engine
        if isolate:
            outcomes[engine] = _in_child(lambda: run_embedded(prog, engine, wd), timeout)
        else:
            outcomes[engine] = run_embedded(prog, engine, wd)
    if souffle:
        outcomes["souffle"] = run_souffle(prog, workdir / "souffle", souffle, timeout)
    return outcomes


def verdict(outcomes: dict) -> list[str]:
    """The problems in ``outcomes``: an embedded engine's errors, and rows that differ from
    Soufflé's where it gave rows, else between the embedded engines. Empty: agreed (or
    refused). A program Soufflé rejects is not compared."""
    problems = [f"{e}: {o['message']}" for e, o in outcomes.items()
                if o["kind"] == "error" and e != "souffle"]
    souffle = outcomes.get("souffle", {}).get("kind")
    if souffle in ("rejected", "error", "timeout"):
        return problems
    with_rows = {e: o["rows"] for e, o in outcomes.items() if o["kind"] == "rows"}
    ref = "souffle" if souffle == "rows" else next(iter(with_rows), None)
    for e, rows in with_rows.items():
        for rel in sorted(set(rows) | set(with_rows[ref])):
            mine, theirs = rows.get(rel, []), with_rows[ref].get(rel, [])
            if mine != theirs:
                problems.append(f"{e} differs from {ref} on {rel}: {diff(mine, theirs)}")
    return problems


def diff(a, b) -> str:
    a, b = set(a or []), set(b or [])
    return f"extra {sorted(a - b)[:5]}, missing {sorted(b - a)[:5]}"


def explain_verdict(prog: FuzzProgram, outcomes: dict, workdir: Path, timeout: float) -> dict:
    """``run_explain`` (in a child, with the engines' time limit) over the model of an embedded
    engine that gave rows, for a program whose engines agreed."""
    engine = next((e for e in ("clingo", "duckdb") if outcomes.get(e, {}).get("kind") == "rows"),
                  None)
    if engine is None:
        return {"kind": "skipped"}
    return _in_child(lambda: run_explain(prog, workdir / "explain", engine), timeout)


def fuzz(programs: int, seed: int, engines: list[str], souffle: str | None,
         timeout: float, constructs: list[str] | None = None, progress=None,
         explain: bool = True) -> dict:
    """Run ``programs`` programs (constructs in turn); ``progress(result)`` every 50. With
    ``explain``, every agreed program is explained too (``run_explain``)."""
    constructs = constructs or CONSTRUCTS
    stats = {c: {"tried": 0, "agreed": 0, "compared_with_souffle": 0, "souffle_rejected": 0,
                 "souffle_errors": 0, "timeouts": 0, "refused": {e: 0 for e in engines},
                 "errors": 0, "disagreements": 0,
                 "refusal_reasons": {},
                 **({"explain": {"explained": 0, "refused": 0, "disagreements": 0,
                                 "timeouts": 0, "rows": 0, "why_not": 0,
                                 "refusal_reasons": {}}} if explain else {})}
             for c in constructs}
    findings = []
    with tempfile.TemporaryDirectory(prefix="datalog-fuzz-") as tmp:
        warm_up = FuzzProgram("warm-up", ".decl r(x: number)\n.output r\nr(1).\n")
        for engine in engines:     # imported once, before the forks (not once per child)
            run_embedded(warm_up, engine, Path(tmp) / "warm-up")
        for k in range(programs):
            construct = constructs[k % len(constructs)]
            prog = generate(RandomChoices(seed * 1_000_003 + k), construct)
            outcomes = run_all(prog, engines, Path(tmp) / str(k % 4), souffle, isolate=True,
                               timeout=timeout)
            st = stats[construct]
            st["tried"] += 1
            for e in engines:
                if outcomes[e]["kind"] == "refused":
                    st["refused"][e] += 1
                    reason = outcomes[e]["message"].split(": ", 1)[-1][:90]
                    st["refusal_reasons"][f"{e}: {reason}"] = \
                        st["refusal_reasons"].get(f"{e}: {reason}", 0) + 1
            souffle_kind = outcomes.get("souffle", {}).get("kind")
            st["timeouts"] += sum(o["kind"] == "timeout" for o in outcomes.values())
            st["souffle_rejected"] += souffle_kind == "rejected"
            st["souffle_errors"] += souffle_kind == "error"
            problems = verdict(outcomes)
            if problems:
                kind = "errors" if any(o["kind"] == "error" for e, o in outcomes.items()
                                       if e != "souffle") else "disagreements"
                st[kind] += 1
                print(f"finding: {construct} program {k}: {problems[:2]}", file=sys.stderr,
                      flush=True)
                if len(findings) < 40:
                    findings.append({"construct": construct, "program": k,
                                     "problems": problems[:4], "reproducer": prog.reproducer()})
            elif sum(o["kind"] == "rows" for o in outcomes.values()) >= 2:
                st["agreed"] += 1
                st["compared_with_souffle"] += souffle_kind == "rows"
                if explain:
                    _count_explain(st["explain"], explain_verdict(
                        prog, outcomes, Path(tmp) / str(k % 4), timeout), construct, k, prog,
                        findings)
            if (k + 1) % 50 == 0:
                print(f"{k + 1} programs, {len(findings)} findings", file=sys.stderr, flush=True)
                if progress:
                    progress(_summary(stats, findings))
    return _summary(stats, findings)


def _count_explain(st: dict, got: dict, construct: str, k: int, prog: FuzzProgram,
                   findings: list) -> None:
    """One program's ``run_explain`` outcome into the construct's ``explain`` counts."""
    kind = got["kind"]
    st["rows"] += got.get("rows", 0)
    st["why_not"] += got.get("why_not", 0)
    if kind == "explained":
        st["explained"] += 1
    elif kind == "refused":
        st["refused"] += 1
        reason = got["message"].split(": ", 1)[-1][:90]
        st["refusal_reasons"][reason] = st["refusal_reasons"].get(reason, 0) + 1
    elif kind == "timeout":
        st["timeouts"] += 1
    elif kind != "skipped":      # a disagreement, or an error of the child
        st["disagreements"] += 1
        print(f"finding: explain {construct} program {k}: {got.get('message')}",
              file=sys.stderr, flush=True)
        if len(findings) < 40:
            findings.append({"construct": construct, "program": k, "explain": True,
                             "problems": [got.get("message", kind)],
                             "reproducer": prog.reproducer()})


def _top(reasons: dict) -> dict:
    return dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:6])


def _summary(stats: dict, findings: list) -> dict:
    """The run so far, with the most frequent refusals only (a summary, not a log)."""
    out = {}
    for c, st in stats.items():
        out[c] = dict(st, refusal_reasons=_top(st["refusal_reasons"]))
        if "explain" in st:
            out[c]["explain"] = dict(st["explain"],
                                     refusal_reasons=_top(st["explain"]["refusal_reasons"]))
    return {"stats": out, "findings": list(findings)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engines", default=",".join(EMBEDDED))
    ap.add_argument("--no-souffle", action="store_true", help="even with souffle on PATH")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per engine and program")
    ap.add_argument("--construct", action="append", choices=CONSTRUCTS)
    ap.add_argument("--no-explain", action="store_true",
                    help="do not explain the rows of agreed programs")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    souffle = None if args.no_souffle else souffle_binary()
    engines = args.engines.split(",")
    from benchmarks.common import children_cpu, command_line
    t0 = time.process_time() + children_cpu()

    def write(result: dict) -> dict:
        totals = {k: sum(s[k] for s in result["stats"].values())
                  for k in ("tried", "agreed", "compared_with_souffle", "souffle_rejected",
                            "souffle_errors", "timeouts", "errors", "disagreements")}
        totals["refused"] = {e: sum(s["refused"][e] for s in result["stats"].values())
                             for e in engines}
        if not args.no_explain:
            totals["explain"] = {k: sum(s["explain"][k] for s in result["stats"].values())
                                 for k in ("explained", "refused", "disagreements", "timeouts",
                                           "rows", "why_not")}
        version = souffle and next((ln.strip() for ln in subprocess.run(
            [souffle, "--version"], capture_output=True, text=True).stdout.splitlines()
            if ln.startswith("Version")), souffle)
        doc = {"command": command_line("benchmarks.datalog_fuzz", argv),
               "souffle": version or None, "engines": engines, "seed": args.seed,
               "cpu_seconds": round(time.process_time() + children_cpu() - t0, 1),
               "totals": totals, **result}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return totals

    totals = write(fuzz(args.programs, args.seed, engines, souffle, args.timeout, args.construct,
                        progress=write, explain=not args.no_explain))
    print(json.dumps(totals))
    return 1 if totals["errors"] or totals["disagreements"] or \
        totals.get("explain", {}).get("disagreements") else 0


if __name__ == "__main__":
    sys.exit(main())

"""The real-program corpus: small benchmarks from llvm-test-suite, vendored in ``benchmarks/real``.

``benchmarks/real/manifest.json`` is the one record of what was taken (suite, program, upstream
path and commit) and of every change made to it (exact text substitutions, each with its
reason: sizes reduced so the reference interpreter runs each program in well under a minute,
and, in the Stanford programs, dead floating-point declarations removed). Floating-point
programs are listed there and not vendored (the importer reads integer code only; the harness
excludes float IR, ``benchmarks.corpus.FLOAT_IR``).

    python3 -m benchmarks.real_corpus vendor --from /path/to/llvm-test-suite/.git
    python3 -m benchmarks.real_corpus check [--out runs/real-corpus.json]

``vendor`` rewrites ``benchmarks/real/<suite>/<program>.c`` (upstream text + the listed
substitutions, each of which must match exactly once) and copies the license and notice files.
``check`` imports each program (``pathlogic check``), runs it (``pathlogic run``, the reference
interpreter) and compares stdout and exit status with a native ``clang-14 -O0`` build; it
records the dynamic PIR instructions and the interpreter's time per program.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from benchmarks.common import command_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(ROOT, "benchmarks", "real")
MANIFEST = os.path.join(REAL, "manifest.json")
DEFAULT_OUT = os.path.join(ROOT, "runs", "real-corpus.json")
#: fuel of the interpreter runs of ``check`` (the programs are sized to stay far below)
FUEL = 50_000_000


def manifest() -> dict:
    with open(MANIFEST) as fh:
        return json.load(fh)


def upstream_path(entry: dict, m: dict) -> str:
    return f"{m['upstream_dir']}/{entry.get('upstream', entry['suite'] + '/' + entry['program'])}"


def local_path(entry: dict) -> str:
    return os.path.join(REAL, entry["suite"], entry["program"])


def changes_of(entry: dict, m: dict) -> list:
    """Every substitution of a program, in order (the shared Stanford ones first)."""
    shared = m["stanford_floats"]["changes"] if entry.get("stanford_floats") else []
    return list(shared) + list(entry.get("changes", ()))


def programs() -> list[tuple[str, str]]:
    """``[(name, path)]`` of the vendored integer programs (``Suite/prog.c``), in manifest order."""
    m = manifest()
    return [(f"{e['suite']}/{e['program']}", local_path(e)) for e in m["programs"]
            if not e.get("float")]


def not_imported() -> list[dict]:
    """The programs left out, with the reason (floating point)."""
    return [{"program": f"{e['suite']}/{e['program']}", "reason": "floating point"}
            for e in manifest()["programs"] if e.get("float")]


def apply_changes(text: str, changes: list, where: str) -> str:
    for old, new, _why in changes:
        n = text.count(old)
        if n != 1:
            raise SystemExit(f"{where}: {old!r} occurs {n} times upstream (expected once)")
        text = text.replace(old, new)
    return text


def vendor(gitdir: str) -> int:
    m = manifest()

    def show(path: str) -> str:
        return subprocess.run(["git", "--git-dir", gitdir, "show", f"{m['commit']}:{path}"],
                              check=True, capture_output=True, text=True).stdout
    for entry in m["programs"]:
        if entry.get("float"):
            continue
        src = upstream_path(entry, m)
        text = apply_changes(show(src), changes_of(entry, m), src)
        os.makedirs(os.path.dirname(local_path(entry)), exist_ok=True)
        with open(local_path(entry), "w") as fh:
            fh.write(text)
    for notice in m["verbatim"]:  # headers, notices: copied as they are
        with open(os.path.join(REAL, notice), "w") as fh:
            fh.write(show(f"{m['upstream_dir']}/{notice}"))
    with open(os.path.join(REAL, "LICENSE.TXT"), "w") as fh:
        fh.write(show("LICENSE.TXT"))
    print(f"vendored {len(programs())} programs into {REAL} "
          f"({len(not_imported())} floating-point programs left out)")
    return 0


# ---------------------------------------------------------------- check

_COUNTS = re.compile(r"instructions=(\d+)")


def _cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "pylogic.cli", *args], cwd=ROOT,
                          capture_output=True, timeout=timeout)


def check_program(name: str, path: str, workdir: str) -> dict:
    """Import, interpreter run and native clang-14 -O0 run of one program."""
    from pylogic.ir.llvm.clang import compile_native
    rec = {"program": name}
    c = _cli("check", path)
    rec["check"] = "ok" if c.returncode == 0 else c.stdout.decode(errors="replace")[-300:]
    exe = os.path.join(workdir, name.replace("/", "_") + ".exe")
    compile_native(path, exe, extra_flags=("-w",))
    t = subprocess.run([exe], capture_output=True, timeout=120)
    t0 = time.perf_counter()
    r = _cli("run", path, "--engine", "interp", "--fuel", str(FUEL))
    rec["interp_seconds"] = round(time.perf_counter() - t0, 2)
    m = _COUNTS.search(r.stderr.decode(errors="replace"))
    rec["pir_instructions"] = int(m.group(1)) if m else None
    rec["exit_status"] = r.returncode
    same = r.stdout == t.stdout and r.returncode == t.returncode
    rec["run"] = "identical" if same else "different"
    if not same:
        rec["detail"] = (f"interp status {r.returncode}, native {t.returncode}; "
                         f"stderr: {r.stderr.decode(errors='replace')[-200:]}")
    rec["stdout_bytes"] = len(t.stdout)
    return rec


def check(out: str, command: str) -> int:
    records = []
    with tempfile.TemporaryDirectory(prefix="pathlogic-real-") as work:
        for name, path in programs():
            rec = check_program(name, path, work)
            records.append(rec)
            print(f"  {name}: check {rec['check']}, run {rec['run']}, "
                  f"{rec['pir_instructions']} instructions, {rec['interp_seconds']} s", flush=True)
    result = {"command": command, "fuel": FUEL,
              "native": "clang-14 -O0 -w", "programs": records,
              "not_imported": not_imported(),
              "summary": {"programs": len(records),
                          "check_ok": sum(r["check"] == "ok" for r in records),
                          "identical": sum(r["run"] == "identical" for r in records),
                          "not_imported_floating_point": len(not_imported())}}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    print(json.dumps(result["summary"]))
    return 0 if result["summary"]["identical"] == len(records) else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("vendor", help="(re)write benchmarks/real from an llvm-test-suite git dir")
    v.add_argument("--from", dest="gitdir", required=True)
    c = sub.add_parser("check", help="import, run, compare with clang-14 -O0")
    c.add_argument("--out", default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    return vendor(a.gitdir) if a.cmd == "vendor" else check(
        a.out, command_line("benchmarks.real_corpus", argv))


if __name__ == "__main__":
    sys.exit(main())

"""Start-up time (issue #32 item 2): wall and CPU seconds, the median of ``--repeat`` runs each in
a fresh process, of ``pathlogic --help``, ``pathlogic CMD --help`` for every command, a one-fact
``query -e`` on clingo and on duckdb, and ``python -c pass`` (the floor), for the code in the
current directory and, with ``--before REV``, for that revision of this repository (exported with
``git archive``); the two sides alternate run by run, so both see the same load.

    python -m benchmarks.startup --before bcb00ff --repeat 10      # writes runs/startup.json

Each command runs as ``python -m pylogic.cli ...`` in the side's root (the ``pathlogic`` script
runs the installed copy). Two settings of Python's bytecode cache, both recorded: ``pyc``, the
compiled modules cached (in a temporary ``PYTHONPYCACHEPREFIX``, warmed by one run of each
command first), as an installed package runs; ``source``, every module compiled from source on
each run (``PYTHONDONTWRITEBYTECODE=1`` with no cache, as this workplace's environment sets it).
The user cache (``PATHLOGIC_CACHE``) is a temporary directory, warmed by the same first run: the
Datalog parser's tables are read from it, as on any run after the first. The query reads one
relation of the facts ``pathlogic facts examples/`` writes. The load average is recorded at the
start and the end: other jobs on the machine lengthen wall times, CPU times much less. Niced
jobs too: with the kernel's autogroup scheduling (``sched_autogroup``, recorded), a job in a
session of its own gets an equal share of the CPUs whatever its nice value.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The one-fact query (``function.facts`` of the extracted facts: one column).
QUERY = ('.decl f(x: symbol) .input f(filename="function.facts") .output g '
         '.decl g(x: symbol) g(x) :- f(x).')


def command_names(root: Path) -> list[str]:
    """The commands ``pathlogic --help`` lists (its lines of four spaces and a name)."""
    text = subprocess.run([sys.executable, "-m", "pylogic.cli", "--help"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    return re.findall(r"^    (\S+)", text, re.M)


def cases(root: Path, facts: str) -> dict[str, list[str]]:
    """name -> the arguments after ``python``."""
    out = {"python -c pass": ["-c", "pass"], "--help": ["-m", "pylogic.cli", "--help"]}
    for name in command_names(root):
        out[f"{name} --help"] = ["-m", "pylogic.cli", name, "--help"]
    for engine in ("clingo", "duckdb"):
        out[f"query -e ({engine})"] = ["-m", "pylogic.cli", "query", "-e", QUERY, "--facts", facts,
                                       "--engine", engine]
    return out


def timed(argv: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; the run must succeed."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {cwd}: exit {proc.returncode}: {err}")
    return wall, usage.ru_utime + usage.ru_stime


def environment(mode: str, scratch: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONPYCACHEPREFIX")}
    env["PATHLOGIC_CACHE"] = str(scratch / "user-cache")
    if mode == "pyc":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pyc")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def measure(sides: dict[str, Path], argvs: dict[str, list[str]], repeat: int,
            scratch: Path) -> dict:
    """mode -> case -> side -> {"wall", "cpu"} medians (seconds)."""
    out = {}
    for mode in ("pyc", "source"):
        envs = {side: environment(mode, scratch / mode / side) for side in sides}
        out[mode] = {}
        for name, argv in argvs.items():
            for side, root in sides.items():        # warm-up: bytecode and user caches
                timed(argv, root, envs[side])
            runs = {side: [] for side in sides}
            for _ in range(repeat):
                for side, root in sides.items():
                    runs[side].append(timed(argv, root, envs[side]))
            out[mode][name] = {side: {"wall": round(statistics.median(w for w, _ in r), 3),
                                      "cpu": round(statistics.median(c for _, c in r), 3)}
                               for side, r in runs.items()}
            print(mode, name, out[mode][name], file=sys.stderr, flush=True)
    return out


def autogroup() -> bool | None:
    """Whether the kernel shares the CPUs between sessions (then nice only orders a session's
    own processes); None where it cannot be read."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return None


def export(rev: str, dest: Path) -> str:
    """``rev`` of this repository into ``dest`` (``git archive``); its full commit id."""
    commit = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit


def head() -> str:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return commit + ("+changes" if dirty else "")


def main(argv=None) -> int:
    from benchmarks.common import command_line, write_run
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", help="a revision to compare with (e.g. bcb00ff)")
    ap.add_argument("--repeat", type=int, default=10, help="runs per case and side (median)")
    ap.add_argument("--out", default="startup.json", help="file name in runs/")
    a = ap.parse_args(argv)
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pathlogic-startup-") as tmp:
        scratch = Path(tmp)
        sides, commits = {}, {}
        if a.before:
            sides["before"] = scratch / "before"
            commits["before"] = export(a.before, sides["before"])
        sides["after"], commits["after"] = ROOT, head()
        facts = scratch / "facts"
        subprocess.run([sys.executable, "-m", "pylogic.cli", "facts", "examples", "--out",
                        str(facts)], cwd=ROOT, check=True, capture_output=True)
        argvs = cases(ROOT, str(facts))
        results = measure(sides, argvs, a.repeat, scratch)
    payload = {"command": command_line("benchmarks.startup", argv), "python": sys.executable,
               "repeat": a.repeat,
               "commits": commits, "query": QUERY,
               "load_average": {"start": [round(x, 2) for x in load_start],
                                "end": [round(x, 2) for x in os.getloadavg()]},
               "sched_autogroup": autogroup(),
               "seconds": results}
    path = write_run(a.out, payload)
    for mode, by_case in results.items():
        print(f"{mode}:")
        for name, by_side in by_case.items():
            print(f"  {name:28} " + "  ".join(f"{side} {v['wall']:.3f} s (cpu {v['cpu']:.3f})"
                                              for side, v in by_side.items()))
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time budgets (issue #11 item 2): a task over its budget is stopped with what it started, the
others finish; errors and crashes of a task are its outcome, not the run's. And the acceptance
case: ``analyze`` on a 30,001-block chain and ten ordinary files keeps the ten, exactly."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pylogic.analysis.budget import BudgetPool, call_with_budget
from pylogic.cli import main
from pylogic.errors import PathlogicError

ROOT = Path(__file__).resolve().parents[2]


def nap(task):
    seconds, pidfile = task
    if pidfile:                                   # something the task started, left running
        child = subprocess.Popen(["sleep", "60"])
        Path(pidfile).write_text(str(child.pid))
    time.sleep(seconds)
    return seconds


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:          # a zombie is not running
        return fh.read().split()[2] != "Z"


def test_a_task_over_budget_is_stopped_with_what_it_started(tmp_path):
    pidfile = tmp_path / "pid"
    with BudgetPool(jobs=2) as pool:
        pool.submit(nap, (30, str(pidfile)), 1.0)
        pool.submit(nap, (0.1, None), 20.0)
        outcomes = {task[0]: outcome for task, outcome in pool.outcomes()}
    assert outcomes[0.1].ok and outcomes[0.1].value == 0.1
    assert outcomes[30].timed_out and "timed out after 1 s" in outcomes[30].error
    assert not alive(int(pidfile.read_text()))


def fail(kind):
    if kind == "user":
        raise PathlogicError("bad input here")
    if kind == "bug":
        raise KeyError("x")
    os._exit(3)                                   # dies without a word


@pytest.mark.parametrize("kind, message", [("user", "bad input here"),
                                           ("bug", "internal error (KeyError"),
                                           ("crash", "the process ended without a result (exit status 3")])
def test_errors_and_crashes_are_the_outcome(kind, message):
    outcome = call_with_budget(fail, kind, seconds=10)
    assert not outcome.ok and not outcome.timed_out and message in outcome.error
    if kind != "crash":                           # unbudgeted: the same contract, in-process
        assert message in call_with_budget(fail, kind, seconds=None).error


def test_leaving_the_pool_early_kills_what_runs(tmp_path):
    pidfile = tmp_path / "pid"
    with pytest.raises(KeyboardInterrupt):
        with BudgetPool(jobs=1) as pool:
            pool.submit(nap, (30, str(pidfile)), 60.0)
            pool._start()
            for _ in range(1200):                 # a loaded machine may start it late
                if pidfile.exists() and pidfile.read_text():
                    break
                time.sleep(0.05)
            raise KeyboardInterrupt
    pid = int(pidfile.read_text())
    for _ in range(100):                          # the kill is sent; death is asynchronous
        if not alive(pid):
            break
        time.sleep(0.05)
    assert not alive(pid)


def chain(n: int) -> str:
    lines = ["func main() {"]
    for k in range(n - 1):
        lines += [f"b{k}:", "    x = add x, 1", f"    br b{k + 1}"]
    lines += [f"b{n - 1}:", "    print x", "    ret 0", "}"]
    return "\n".join(lines) + "\n"


LOOP = """
func main() {{
entry:
    i = mov 0
    br head
head:
    c = cmp.lt i, {n}
    cbr c, body, done
body:
    i = add i, {step}
    br head
done:
    print i
    ret 0
}}
"""


@pytest.mark.slow
def test_a_huge_function_times_out_and_the_ten_others_are_kept(tmp_path, capsys):
    ten = tmp_path / "ten"
    ten.mkdir()
    for p in sorted((ROOT / "examples").glob("*.pir"))[:5]:
        shutil.copy(p, ten / p.name)
    for k in range(10 - len(list(ten.iterdir()))):
        (ten / f"loop{k}.pir").write_text(LOOP.format(n=10 + k, step=k + 1))
    assert len(list(ten.iterdir())) == 10
    both = tmp_path / "both"
    shutil.copytree(ten, both)
    (both / "chain.pir").write_text(chain(30_001))
    alone = ["--engine", "clingo", "--quiet", "--function-timeout", "2"]
    assert main(["analyze", str(ten), "--out", str(tmp_path / "o1")] + alone) == 0
    capsys.readouterr()
    status = main(["analyze", str(both), "--out", str(tmp_path / "o2")] + alone)
    captured = capsys.readouterr()
    summary = (tmp_path / "o2" / "summary.json").read_text()
    if "chain.pir::main" in summary and "timed out after 2 s" in summary:
        assert status == 1
        assert "chain.pir::main: analysis failed: timed out after 2 s" in captured.out
    else:                                       # a fast enough engine analysed it
        assert status == 0
    # The budget is wall-clock: on a loaded machine a small function may run out of it too. Such
    # a function must be reported (never silently lost); every other one keeps its rows.
    failed = {r["function"] for out in ("o1", "o2") for r in json.loads(
        (tmp_path / out / "summary.json").read_text())["functions"] if r["error"]}
    assert "chain.pir::main" in failed or status == 0

    def rows(path):
        return [r for r in path.read_text().splitlines()
                if r.split("\t", 1)[0] not in failed and not r.startswith("chain.pir::")]
    kept = 0
    for f in sorted((tmp_path / "o1" / "results").iterdir()):
        mine = rows(tmp_path / "o2" / "results" / f.name)
        assert mine == rows(f), f.name
        kept += bool(mine)
    assert kept, "every small function timed out: nothing was compared"

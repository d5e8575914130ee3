"""``pathlogic export FILE --llvm -o OUT.ll``: the exported program, compiled by clang-14 and run
natively, gives ``pathlogic run``'s output and exit status -- on the examples, a fixed sample of
gcc torture programs, the llvm-test-suite programs of benchmarks/real, and small programs aimed
at the edges of PIR's semantics (wraparound, faults, the memory model, depth and fuel limits,
input)."""
from __future__ import annotations

import glob
import os
import subprocess

import pytest

from pylogic.cli import main as cli
from pylogic.errors import PathlogicError
from pylogic.interp.machine import DEFAULT_FUEL, run_module
from pylogic.interp.native.export import CLANG_FLAGS
from pylogic.ir.load import load_program
from tests.support import needs_clang

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_llvm_link = pytest.mark.skipif(
    not any(os.path.exists(os.path.join(d, n)) for d in os.environ.get("PATH", "").split(":")
            for n in ("llvm-link-14", "llvm-link")), reason="llvm-link-14 not on PATH")


def native(tmp_path, path, args=(), stdin=b"", extra=()):
    """Export ``path`` with the CLI, compile with clang-14 -O2, run: (stdout, status, stderr)."""
    ll, exe = tmp_path / "out.ll", tmp_path / "prog"
    assert cli(["export", str(path), "--llvm", "-o", str(ll), *extra]) == 0
    subprocess.run(["clang-14", *CLANG_FLAGS, "-O2", str(ll), "-o", str(exe)], check=True,
                   capture_output=True, timeout=300)
    p = subprocess.run([str(exe), *map(str, args)], input=stdin, capture_output=True,
                       timeout=120)
    return p.stdout, p.returncode, p.stderr.decode()


def interpreted(path, args=(), inputs=(), fuel=DEFAULT_FUEL):
    module, _ = load_program(str(path))
    r = run_module(module, args=args, inputs=inputs, fuel=fuel)
    return r.stdout_bytes, r.exit_status, r


def same(tmp_path, path, args=(), inputs=(), fuel=None):
    """The exported program and the interpreter agree; returns the interpreter's result."""
    extra = ("--fuel", str(fuel)) if fuel else ()
    out, status, err = native(tmp_path, path, args, " ".join(map(str, inputs)).encode(), extra)
    i_out, i_status, r = interpreted(path, args, inputs, fuel or 200_000_000)
    assert (out, status) == (i_out, i_status), (path, err, r.error)
    return r


pytestmark = [needs_clang, needs_llvm_link]


# ---- semantics at the edges -----------------------------------------------------------------

def write(tmp_path, text, name="p.pir"):
    p = tmp_path / name
    p.write_text(text)
    return p


WRAP = """
func main() {
entry:
    a = mov 9223372036854775807
    b = add a, 1
    print b
    c = mul a, 3
    print c
    m = mov -9223372036854775808
    d = div m, -1
    print d
    r = rem m, -1
    print r
    s = shl 1, 65
    print s
    t = sar -16, 66
    print t
    u = shr -1, 60
    print u
    q = div -7, 2
    print q
    w = rem -7, 2
    print w
    n = neg m
    print n
    ret 300
}
"""


def test_64_bit_wraparound_shifts_and_division_as_the_interpreter(tmp_path):
    r = same(tmp_path, write(tmp_path, WRAP))
    assert r.error is None and r.exit_status == 300 & 255
    assert r.prints[:4] == [-(1 << 63), (1 << 63) - 3, -(1 << 63), 0]


DIV = """
func main(x) {
entry:
    print 1
    y = div 5, x
    print y
    ret 0
}
"""


@pytest.mark.parametrize("x", [0, 5])
@pytest.mark.slow
def test_division_by_zero_faults_after_the_output_before_it(tmp_path, x):
    r = same(tmp_path, write(tmp_path, DIV), args=(x,))
    assert (r.error is not None) == (x == 0)


BOUNDS = """
func main(i) {
entry:
    p = alloca 8
    q = add p, i
    store.1 q, 7
    v = load.1u q
    print v
    ret 3
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("i", [7, 8, -1])
def test_an_access_outside_its_object_faults(tmp_path, i):
    r = same(tmp_path, write(tmp_path, BOUNDS), args=(i,))
    assert (r.error is None) == (i == 7)


CONST = """
const global msg = "ok"

func main(i) {
entry:
    v = load.1u msg
    print v
    cbr i, poke, done
poke:
    store.1 msg, 1
    br done
done:
    ret 0
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("i", [0, 1])
def test_a_write_into_a_const_global_faults(tmp_path, i):
    r = same(tmp_path, write(tmp_path, CONST), args=(i,))
    assert (r.error is not None) == bool(i)


DEEP = """
func down(n) {
entry:
    z = cmp.eq n, 0
    cbr z, done, more
done:
    ret 0
more:
    m = sub n, 1
    r = call down(m)
    ret r
}

func main(n) {
entry:
    print n
    r = call down(n)
    print r
    ret 0
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("n", [9000, 20000])
def test_the_call_depth_limit_is_the_interpreters(tmp_path, n):
    r = same(tmp_path, write(tmp_path, DEEP), args=(n,))
    assert (r.error is not None) == (n > 10_000)


LOOP = """
func main() {
entry:
    i = mov 0
    br head
head:
    print i
    i = add i, 1
    br head
}
"""


@pytest.mark.slow
def test_with_fuel_the_program_stops_where_the_interpreter_stops(tmp_path):
    r = same(tmp_path, write(tmp_path, LOOP), fuel=1001)
    assert r.error is not None and len(r.prints) == (1001 - 2) // 3  # entry 2, loop 3 each


INPUT = """
func main() {
entry:
    a = input
    b = input
    c = sub a, b
    print c
    d = input
    ret d
}
"""


@pytest.mark.parametrize("inputs", [(9, -4, 2), (9, -4)])
@pytest.mark.slow
def test_input_reads_stdin_and_faults_when_exhausted(tmp_path, inputs):
    r = same(tmp_path, write(tmp_path, INPUT), inputs=inputs)
    assert (r.error is None) == (len(inputs) == 3)


LIBC = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
static void say(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt); vprintf(fmt, ap); va_end(ap);
}
int main(int argc, char **argv) {
    char buf[64], *p = malloc(16), *q;
    long big = -9223372036854775807L - 1;
    printf("[%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|%x|%#X|%#o|%lu|%ld|%hhd|%hu]\n",
           42, 42, -42, 7, 7, 5, 0, 255u, 255u, 8u, (unsigned long)-1, big, 300, 70000);
    printf("[%s|%8s|%-8s|%.2s|%c|%3c|%%|%*d|%-*d|%.*d]\n", "abc", "abc", "abc", "abc", 'z',
           'y', 6, 1, 6, 2, 4, 3);
    snprintf(buf, 5, "%d", 1234567);
    printf("%s %d\n", buf, sprintf(buf + 8, "%s-%d", "x", 9));
    strcpy(p, "hello");
    strcat(p, ", w");
    q = strdup(p);
    printf("%s %zu %d %d %d\n", q, strlen(q), strcmp(p, q), strcmp("a", "b") < 0,
           strncmp("abcd", "abce", 3));
    printf("%p %s %ld %d %d\n", (void *)0, strchr(q, 'l'), strtol("  -0x1f", 0, 0),
           atoi("123abc"), abs(-5));
    p = realloc(p, 3);
    printf("%d %d\n", memcmp(p, "hel", 3), p[2]);
    say("%s=%d\n", "va", 11);
    free(p);
    free(q);
    if (argc > 1) free(q);   /* a double free when asked */
    return 5;
}
"""


@pytest.mark.slow
def test_c_library_formats_strings_heap_and_exit_status(tmp_path):
    path = write(tmp_path, LIBC, "libc.c")
    r = same(tmp_path, path)
    assert r.error is None and r.exit_status == 5 and b"va=11" in r.stdout_bytes


@pytest.mark.slow
def test_a_double_free_faults_as_in_the_interpreter(tmp_path):
    path = write(tmp_path, LIBC.replace("argc > 1", "argc == 0"), "libc.c")
    r = same(tmp_path, path)
    assert r.error is not None


# ---- corpora ----------------------------------------------------------------------------------

EXAMPLE_ARGS = {"pas_fig3b.pir": [(-3,), (0,), (20,)], "loop_call.pir": [(10,)]}
EXAMPLE_INPUTS = {"pcp_branchy.pir": [(0, 0), (3, 4)], "pcp_ifconverted.pir": [(0, 0), (3, 4)]}


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "examples", "*.pir"))),
                         ids=os.path.basename)
def test_examples_round_trip(tmp_path, path):
    name = os.path.basename(path)
    for args in EXAMPLE_ARGS.get(name, [()]):
        for inputs in EXAMPLE_INPUTS.get(name, [()]):
            same(tmp_path, path, args, inputs)


def _torture_sample():
    from benchmarks.optimize import TORTURE, torture_sample
    return torture_sample("20", seed=28) if os.path.isdir(TORTURE) else []


@pytest.mark.slow
@pytest.mark.parametrize("path", _torture_sample() or [None], ids=lambda p: os.path.basename(p or "none"))
def test_torture_sample_round_trips(tmp_path, path):
    if path is None:
        pytest.skip("gcc torture programs not extracted (benchmarks.corpus.torture_programs)")
    try:
        load_program(path)
    except PathlogicError as exc:   # GNU C clang-14 rejects (nested functions, VLA fields)
        pytest.skip(f"not importable: {exc}")
    same(tmp_path, path)


def _real():
    """Every fourth real program: test_optimize_from_o2 exports all of them (after O2) and runs
    them natively, so here a sample of the -O0 start is enough."""
    from benchmarks.real_corpus import programs
    return programs()[::4]


@pytest.mark.slow
@pytest.mark.parametrize("name,path", _real(), ids=[n for n, _ in _real()])
def test_real_programs_round_trip(tmp_path, name, path):
    r = same(tmp_path, path)
    assert r.error is None


# ---- the command's errors ---------------------------------------------------------------------

def test_errors_are_one_located_line_with_status_1(tmp_path, capsys):
    ok = os.path.join(ROOT, "examples", "loop_call.pir")
    assert cli(["export", ok, "--llvm", "-o", str(tmp_path / "no" / "x.ll")]) == 1
    assert cli(["export", ok, "--llvm", "-o", str(tmp_path)]) == 1
    assert cli(["export", str(tmp_path / "missing.pir"), "--llvm", "-o", str(tmp_path / "x.ll")]) == 1
    assert cli(["export", ok, "--llvm", "-o", str(tmp_path / "x.ll"), "-f", "nope"]) == 1
    bad = write(tmp_path, "func main() {\nentry:\n    x = frob 1\n    ret x\n}\n", "bad.pir")
    assert cli(["export", str(bad), "--llvm", "-o", str(tmp_path / "x.ll")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and all(line.startswith("pathlogic: ") for line in err)
    assert "bad.pir:3:9" in err[4] and "no function nope" in err[3]
    assert not (tmp_path / "x.ll").exists()


def test_a_builtin_the_runtime_lacks_is_refused_by_name(tmp_path, capsys):
    src = write(tmp_path, "#include <string.h>\nint main(void) { return (int)strspn(\"aab\", \"a\"); }\n",
                "s.c")
    assert cli(["export", str(src), "--llvm", "-o", str(tmp_path / "x.ll")]) == 1
    assert "does not provide strspn" in capsys.readouterr().err


def test_a_tool_failure_names_what_it_failed_on():
    from pylogic.errors import SourceLoc
    from pylogic.interp.native.export import _checked
    with pytest.raises(PathlogicError, match=r"false failed on the runtime") as e:
        _checked(["false"], "the runtime", SourceLoc("runtime.c"))
    assert "runtime.c" in str(e.value)

"""A directory of 20 good and 10 hostile files (issue #11 acceptance): every good result is
identical to a run on the 20 alone, all 10 failures are named at the end, the exit status is 1."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pylogic.cli import main
from tests.support import clang_path

ROOT = Path(__file__).resolve().parents[2]

LOOP = """
func main() {{
entry:
    i = mov 0
    s = mov 0
    br head
head:
    c = cmp.lt i, {n}
    cbr c, body, done
body:
    p:ut, q:uf = pcmp.eq i, {k}
    (p) s = add s, i
    (q) s = sub s, 1
    i = add i, 1
    br head
done:
    print s
    ret 0
}}
"""

C_PROGRAM = """
int g[8];
static int f(int x) {{ return x > {k} ? x - {k} : x + {k}; }}
int main(void) {{ int s = 0; for (int i = 0; i < 8; i++) {{ g[i] = f(i); s += g[i]; }} return s & 127; }}
"""

HOSTILE = {
    "h01_opcode.pir": "func main() {\nentry:\n    x = frob 1\n    ret\n}\n",
    "h02_unterminated.pir": "func main() {\nentry:\n    ret 0\n",
    "h03_huge.pir": "func main() {\nentry:\n  x = mov " + "9" * 5000 + "\n  ret\n}\n",
    "h04_binary.pir": bytes(range(256)) * 4,
    "h05_label.pir": "func main() {\nentry:\n    br nowhere\n}\n",
    "h06_duplicate.pir": "func main() {\nentry:\n    br b\nb:\n    ret 0\nb:\n    ret 1\n}\n",
    "h07_garbage.ll": "this is not llvm\n",
    "h08_types.ll": "define i32 @main() {\n  ret i64 0\n}\n",
    "h09_syntax.c": "int main(void) { return 1 +; }\n",
    "h10_twice.pir": "func main() {\nentry:\n    ret 0\n}\nfunc main() {\nentry:\n    ret 1\n}\n",
}


def good_files(root: Path) -> None:
    root.mkdir()
    for p in sorted((ROOT / "examples").glob("*.pir")):
        shutil.copy(p, root / p.name)
    k = 0
    while len(list(root.iterdir())) < (17 if clang_path() else 20):
        (root / f"loop{k:02d}.pir").write_text(LOOP.format(n=5 + k, k=k % 5))
        k += 1
    if clang_path():
        for k in range(3):
            (root / f"c{k}.c").write_text(C_PROGRAM.format(k=k + 2))
    assert len(list(root.iterdir())) == 20


def results(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): p.read_text().splitlines()
            for sub in ("facts", "results") for p in sorted((out / sub).iterdir())}


@pytest.mark.slow
def test_twenty_good_and_ten_hostile(tmp_path, capsys):
    good = tmp_path / "good"
    good_files(good)
    mixed = tmp_path / "mixed"
    shutil.copytree(good, mixed)
    for name, text in HOSTILE.items():
        path = mixed / name
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    common = ["--engine", "clingo", "--quiet"]
    assert main(["analyze", str(good), "--out", str(tmp_path / "o1")] + common) == 0
    capsys.readouterr()
    assert main(["analyze", str(mixed), "--out", str(tmp_path / "o2")] + common) == 1
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("failed: 10 of 30 files")
    named = lines[start + 1:start + 11]
    for name, line in zip(sorted(HOSTILE), named):
        assert name in line and line.startswith("  "), (name, line)
    assert start + 11 == len(lines) - 1                      # the summary line is the last
    assert "in 20 files (10 files failed, 0 functions failed)" in lines[-1]
    assert results(tmp_path / "o2") == results(tmp_path / "o1")

"""``pathlogic check`` through pylogic.cli.main: exit codes, summaries, located errors."""
from pylogic.cli import main

GOOD = "global g[4]\nfunc main(a) {\nentry:\n    x = add a, 1\n    store.4 g, x\n    ret x\n}\n"


def test_good_file(tmp_path, capsys):
    path = tmp_path / "good.pir"
    path.write_text(GOOD, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == f"{path}: ok (1 function, 1 block, 3 instructions)"
    assert err == ""


def test_bad_file_reports_file_line_col(tmp_path, capsys):
    path = tmp_path / "bad.pir"
    path.write_text("func main() {\nentry:\n    x = addd 1, 2\n    ret\n}\n", encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert f"{path}:3:9: parse error: unknown opcode 'addd'" in err
    assert "Traceback" not in err and out == ""


def test_verify_errors_are_reported(tmp_path, capsys):
    path = tmp_path / "noterm.pir"
    path.write_text("func main() {\nentry:\n    print 1\n}\n", encoding="utf-8")
    assert main(["check", str(path)]) == 1
    _, err = capsys.readouterr()
    assert f"{path}:3:5: verify error: function 'main', block 'entry': block does not end" in err


def test_mixed_files_still_report_the_good_one(tmp_path, capsys):
    good = tmp_path / "good.pir"
    good.write_text(GOOD, encoding="utf-8")
    binary = tmp_path / "binary.pir"
    binary.write_bytes(b"\xff\xfe\x00junk")
    missing = tmp_path / "missing.pir"
    assert main(["check", str(binary), str(missing), str(tmp_path), str(good)]) == 1
    out, err = capsys.readouterr()
    assert f"{good}: ok (1 function, 1 block, 3 instructions)" in out
    assert f"{binary}:1:1: parse error: file is not valid UTF-8" in err
    assert f"cannot read '{missing}'" in err
    assert "is a directory" in err
    assert "Traceback" not in err


def test_recursive_directory(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.pir").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.pir").write_text(GOOD, encoding="utf-8")
    assert main(["check", "-r", str(tmp_path)]) == 0
    out, _ = capsys.readouterr()
    assert out.count(": ok (") == 2

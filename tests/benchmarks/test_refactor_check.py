"""benchmarks/refactor_check.py's choice of pipelines: a ``--pipeline`` glob that matches none is
refused, not silently skipped (stop 46 found the combined pipeline had never been checked)."""
import pytest

from benchmarks import refactor_check


def test_the_combined_pipelines_are_checked():
    every = {",".join(p) for p in refactor_check.pipelines()}
    assert "sccp,dce,simplify,pre-mr,pre-m,simplify,icbe" in every
    assert "sccp,dce,simplify,pre-mr,pre-m,simplify,icbe,coalesce" in every
    assert refactor_check.pipelines(("sccp,dce,*",)) == [
        tuple("sccp,dce,simplify,pre-mr,pre-m,simplify,icbe".split(",")),
        tuple("sccp,dce,simplify,pre-mr,pre-m,simplify,icbe,coalesce".split(","))]


def test_a_glob_matching_no_pipeline_is_refused(capsys):
    assert refactor_check.unmatched(("*pre*", "simplify", "no-such-pass")) == ["no-such-pass"]
    with pytest.raises(SystemExit) as exc:
        refactor_check.main(["--pipeline", "simplify", "--pipeline", "sccp,no-such"])
    assert exc.value.code == 2
    assert "sccp,no-such: matches no pipeline" in capsys.readouterr().err

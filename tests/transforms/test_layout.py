"""``transforms/`` holds passes in family folders (issue #27 item 3): every registered pass is
``pylogic.transforms.<family>.<file>.<function>``, its file named like its pipeline name
(``pre-mr-budget`` may share ``pre_mr.py``, ``ppde-keep`` ``ppde.py``), and its tests live in
``tests/transforms/<family>/``."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.transforms.registry import PASSES

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("name", sorted(PASSES))
def test_a_pass_lives_in_its_family_in_a_file_named_like_it(name):
    top, transforms, family, file = PASSES[name].run.__module__.split(".")
    assert (top, transforms) == ("pylogic", "transforms")
    assert name.replace("-", "_").startswith(file), (name, file)
    assert (TESTS / family / "__init__.py").is_file(), f"no tests/transforms/{family}/"

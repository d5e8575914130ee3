"""``facts_gen.extract._facts_text`` (one join per relation, checked as a whole) against the
definition of a Soufflé ``.facts`` file written row by row: each row's values, ``str``-ed,
tab-separated, one line each; a value holding a tab, newline or carriage return refused."""
import random

import pytest

from facts_gen.extract import _facts_text


def row_by_row(rows) -> str:
    """The oracle: every row on its own, every value checked on its own."""
    lines = []
    for row in rows:
        cells = [str(v) for v in row]
        if any(c in v for v in cells for c in "\t\n\r"):
            raise ValueError("a value holds a tab or newline")
        lines.append("\t".join(cells) + "\n")
    return "".join(lines)


VALUES = ["f::main", "b#0", "x", "", "reg", 0, 7, -3, 12345678901234, "a b", "é"]
BAD = ["a\tb", "a\nb", "a\rb", "\t", 5]      # 5: not bad, mixes a number into strings


def random_rows(rng: random.Random) -> list:
    width = rng.randint(1, 5)
    rows = []
    for _ in range(rng.randint(1, 30)):
        w = width if rng.random() < 0.9 else rng.randint(0, 6)     # now and then another width
        row = [rng.choice(VALUES + (BAD if rng.random() < 0.05 else [])) for _ in range(w)]
        rows.append(tuple(row) if rng.random() < 0.95 else row)   # now and then a list
    return rows


@pytest.mark.parametrize("seed", range(400))
def test_facts_text_is_the_row_by_row_text(seed):
    rows = random_rows(random.Random(seed))
    try:
        expected = row_by_row(rows)
    except ValueError:
        with pytest.raises(ValueError):
            _facts_text(rows)
        return
    assert _facts_text(rows) == expected


@pytest.mark.parametrize("rows", [
    [("a", "b"), ("c\td",)],              # a tab inside a value, made up for by a narrower row
    [("a",), ("b", "c"), ("d\te", "f", "g")],
    [(1, "x"), ("y\tz",)],
    [("x",), ("a\nb",)],
])
def test_a_tab_or_newline_inside_a_value_is_refused_whatever_the_widths(rows):
    with pytest.raises(ValueError):
        _facts_text(rows)


def test_rows_of_one_width_with_numbers_and_strings():
    rows = [("f", "b#0", 0, "reg", "x"), ("f", "b#0", 1, "const", "-1")]
    assert _facts_text(rows) == "f\tb#0\t0\treg\tx\nf\tb#0\t1\tconst\t-1\n"
    assert _facts_text([]) == ""
    assert _facts_text([(3,), ("a",)]) == "3\na\n"

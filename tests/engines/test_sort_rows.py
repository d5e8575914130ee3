"""rows.sort_rows: the order of sorted() for any width, numbers and strings (a stable sort per
column for narrow relations); rows.sorted_distinct: sorted(set(rows)) for rows of any number of
sorted runs."""
import random

from hypothesis import given, strategies as st

from pylogic.engines.rows import FEW_SORTED_RUNS, sort_rows, sorted_distinct



@given(st.integers(0, 6).flatmap(lambda w: st.lists(
    st.tuples(*[st.integers(-3, 3) if i % 2 else st.text("ab\u00e9", max_size=2)
                for i in range(w)]), max_size=40)))
def test_same_order_as_sorted(rows):
    assert sort_rows(rows) == sorted(rows)
    assert sort_rows(set(rows)) == sorted(set(rows))


def test_ties_on_later_columns_and_duplicates():
    rows = [("b", 1, "x"), ("a", 2, "y"), ("a", 1, "z"), ("a", 1, "z"), ("a", 1, "b")]
    assert sort_rows(rows) == sorted(rows)


_VALUES = {"number": st.integers(-3, 3), "symbol": st.text("ab\u00e9", max_size=2)}


@given(st.sampled_from(sorted(_VALUES)).flatmap(lambda a: st.sampled_from(sorted(_VALUES)).flatmap(
    lambda b: st.lists(st.tuples(_VALUES[a], _VALUES[b]), max_size=60))))
def test_pairs_of_either_kind(rows):
    """Pairs are sorted by grouping on the first column: every kind in either column."""
    assert sort_rows(rows) == sorted(rows)
    assert sort_rows(set(rows)) == sorted(set(rows))


@given(st.integers(0, 6).flatmap(lambda w: st.lists(st.lists(
    st.tuples(*[st.integers(-3, 3) if i % 2 else st.text("ab\u00e9", max_size=2)
                for i in range(w)]), max_size=20), max_size=5)))
def test_sorted_distinct_of_sorted_runs(runs):
    """A few sorted runs (engine calls' outputs, duplicates across and within them) and the
    same rows in any order: the distinct rows in sorted() order."""
    rows = [row for run in runs for row in sorted(run)]
    assert sorted_distinct(rows) == sorted(set(rows))
    shuffled = list(rows)
    random.Random(len(rows)).shuffle(shuffled)
    assert sorted_distinct(shuffled) == sorted(set(rows))


def test_sorted_distinct_of_many_runs():
    """Past FEW_SORTED_RUNS descents the rows go through sort_rows(set(rows)): same rows."""
    rng = random.Random(7)
    rows = [(rng.choice("abc"), rng.randrange(5), rng.choice("xy")) for _ in range(2000)]
    assert sum(a > b for a, b in zip(rows, rows[1:])) >= FEW_SORTED_RUNS
    assert sorted_distinct(rows) == sorted(set(rows))
    assert sorted_distinct([]) == []

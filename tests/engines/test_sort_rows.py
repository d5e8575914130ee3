"""rows.sort_rows: the order of sorted() for any width, numbers and strings (a stable sort per
column for narrow relations)."""
from hypothesis import given, strategies as st

from pylogic.engines.rows import sort_rows



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

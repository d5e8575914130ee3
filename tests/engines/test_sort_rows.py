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

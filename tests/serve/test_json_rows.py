"""`RowsWriter` writes the bytes msgspec writes for the same rows as objects, whichever rows are
picked, in whichever order, with fixed and varying fields anywhere among the fields."""

import math

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serve.json_rows import RowsWriter

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)  # commas, quotes, escapes, any script
CELL = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), TEXT,
                 st.floats(allow_nan=False, allow_infinity=False))
NUMBER = st.one_of(st.none(), st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True))


@st.composite
def tables(draw):
    names = draw(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=7, unique=True))
    fixed_names = [name for name in names if draw(st.booleans())]
    size = draw(st.integers(1, 12))
    fixed = {name: draw(st.lists(CELL, min_size=size, max_size=size)) for name in fixed_names}
    rows = draw(st.lists(st.integers(0, size - 1), max_size=15))
    varying = {name: draw(st.lists(NUMBER, min_size=len(rows), max_size=len(rows)))
               for name in names if name not in fixed}
    return names, fixed, rows, varying


@settings(max_examples=300, deadline=None)
@given(tables())
def test_same_bytes_as_the_rows_encoded_as_objects(table):
    names, fixed, rows, varying = table
    expected = [{name: fixed[name][row] if name in fixed else varying[name][k] for name in names}
                for k, row in enumerate(rows)]
    written = RowsWriter(names, fixed).write(rows, varying)
    assert written == msgspec.json.encode(expected)
    decoded = msgspec.json.decode(written)
    assert len(decoded) == len(rows)


def test_a_comparison_shaped_table():
    fixed = {"ticker": ["A,1", 'B"2'], "is_reasoning": [True, False], "status": ["active", "retired"]}
    writer = RowsWriter(["ticker", "spot_cost", "is_reasoning", "theta", "status"], fixed)
    written = writer.write([1, 0, 1], {"spot_cost": [0.5, 1e-9, None], "theta": [0.0, -0.25, math.inf]})
    assert written == (b'[{"ticker":"B\\"2","spot_cost":0.5,"is_reasoning":false,"theta":0.0,"status":"retired"},'
                       b'{"ticker":"A,1","spot_cost":1e-9,"is_reasoning":true,"theta":-0.25,"status":"active"},'
                       b'{"ticker":"B\\"2","spot_cost":null,"is_reasoning":false,"theta":null,"status":"retired"}]')
    assert writer.write([], {"spot_cost": [], "theta": []}) == b"[]"


def test_a_varying_value_that_is_not_a_number_is_refused():
    writer = RowsWriter(["ticker", "note"], {"ticker": ["A", "B"]})
    with pytest.raises(ValueError, match="note: 2 numbers expected"):
        writer.write([0, 1], {"note": ["a,b", "c"]})

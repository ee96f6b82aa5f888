"""flushsim.tables: what a lesson's table shows on a projector."""

import polars as pl

from flushsim import tables


def test_floats_are_rounded_and_grouped_and_no_dtype_row_is_drawn():
    frame = pl.DataFrame({"tps": [6365.283333, 12.0], "pages": [12000, 7], "ok": [True, False]})
    html = tables.show(frame, digits=1)._repr_html_()
    assert "6,365.3" in html and "12.0" in html and "12,000" in html and "true" in html
    assert "6365.28" not in html
    for dtype_name in ("f64", "i64", "bool", "shape"):
        assert dtype_name not in html


def test_a_column_can_have_its_own_decimals():
    frame = pl.DataFrame({"tps": [6401.12], "years": [6.6612]})
    assert tables.show(frame, 0, years=2).rows() == [["6,401", "6.66"]]


def test_missing_values_show_as_a_dash_and_text_is_escaped():
    frame = pl.DataFrame({"x": [None, float("nan")], "note": ["a < b", None]})
    table = tables.show(frame)
    assert table.rows() == [["–", "a < b"], ["–", "–"]]
    assert "a &lt; b" in table._repr_html_()


def test_a_dict_of_figures_is_one_quantity_per_row():
    table = tables.show({"LRU pages": 1178, "seconds": 1.23456})
    assert table.rows() == [["LRU pages", "1,178"], ["seconds", "1.23"]]
    assert repr(table).splitlines()[0].split() == ["quantity", "value"]

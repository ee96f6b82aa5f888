"""BatchedBokehModel: the changes made in a batch reach the page as one PATCH-DOC message."""

from __future__ import annotations

import json

import numpy as np
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure

from flushsim.viz.bokeh_widget import BatchedBokehModel


def _widget():
    a = ColumnDataSource({"x": [0.0], "y": [0.0]}, name="a")
    b = ColumnDataSource({"x": [0.0], "y": [0.0]}, name="b")
    p = figure()
    p.line("x", "y", source=a)
    p.line("x", "y", source=b)
    model = BatchedBokehModel(p)
    sent: list[tuple[dict, list | None]] = []
    model.send = lambda content, buffers=None: sent.append((content, buffers))
    return model, a, b, sent


def _events(sent) -> list[dict]:
    """The events of the PATCH-DOC messages among `sent` (header, metadata, content, buffers)."""
    payloads = [json.loads(c["payload"]) for c, _ in sent if "payload" in c]
    return [e for p in payloads for e in p.get("events", [])]


def test_a_batch_is_one_message_with_every_event_in_order():
    model, a, b, sent = _widget()
    with model.batch():
        a.data = {"x": [1.0, 2.0], "y": [3.0, 4.0]}
        b.data = {"x": [5.0], "y": [6.0]}
        a.data = {"x": [7.0], "y": [8.0]}
        assert sent == []  # nothing leaves before the batch ends
    assert len(sent) == 3  # header, metadata, content: lists need no binary buffers
    events = _events(sent)
    assert [e["model"]["id"] for e in events] == [a.id, b.id, a.id]
    assert [e["kind"] for e in events] == ["ColumnDataChanged"] * 3


def test_nested_batches_send_once_at_the_outermost_end():
    model, a, b, sent = _widget()
    with model.batch():
        with model.batch():
            a.data = {"x": [1.0], "y": [1.0]}
        assert sent == []
        b.data = {"x": [2.0], "y": [2.0]}
    assert len(_events(sent)) == 2 and len(sent) == 3


def test_numpy_columns_travel_as_buffers_and_unbatched_changes_go_one_by_one():
    model, a, b, sent = _widget()
    with model.batch():
        a.data = {"x": np.arange(3.0), "y": np.arange(3.0)}
    assert len(sent) == 3 + 2 * 2  # two numpy columns: a header and a payload each
    assert sum(1 for _, buffers in sent if buffers) == 2
    sent.clear()
    a.data = {"x": [1.0], "y": [1.0]}
    b.data = {"x": [2.0], "y": [2.0]}
    assert len(sent) == 6  # jupyter_bokeh's own path: one message per change
    with model.batch():
        pass
    assert len(sent) == 6  # an empty batch sends nothing

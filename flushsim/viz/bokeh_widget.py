"""jupyter_bokeh's BokehModel, able to send several document changes as one message.

jupyter_bokeh sends every change of a Bokeh document as its own PATCH-DOC message, and every
message as 3 comm messages plus 2 per binary buffer (a numpy column is one buffer). A re-run of
the explorer changes five sources of up to 20 columns: about 60 comm messages, each of which
the kernel, the Jupyter server and the page handle one by one. In the browser the last of them
arrived 60-70 ms after the kernel had sent the first (Voila, chromium, websocket frames timed).
`batch()` collects the changes made inside it and sends them as one PATCH-DOC; the page applies
its events in order, as it would the separate messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from bokeh.document.events import DocumentPatchedEvent
from bokeh.protocol import Protocol
from jupyter_bokeh import BokehModel


class BatchedBokehModel(BokehModel):
    """A BokehModel whose `batch()` turns the document changes made in it into one message."""

    _batch: list[DocumentPatchedEvent] | None = None  # a plain attribute, not a widget trait

    def _document_patched(self, event: DocumentPatchedEvent) -> None:
        if self._batch is not None and event.setter is not self:
            self._batch.append(event)
            return
        super()._document_patched(event)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Send the changes made inside as one PATCH-DOC message (nested: the outermost sends)."""
        if self._batch is not None:
            yield
            return
        self._batch = []
        try:
            yield
        finally:
            events, self._batch = self._batch, None
            if events:
                self._send_patch(events)

    def _send_patch(self, events: list[DocumentPatchedEvent]) -> None:
        # The framing of jupyter_bokeh's own _document_patched, for a list of events.
        msg = Protocol().create("PATCH-DOC", events)
        self.send({"msg": "patch", "payload": msg.header_json})
        self.send({"msg": "patch", "payload": msg.metadata_json})
        self.send({"msg": "patch", "payload": msg.content_json})
        for buffer in msg.buffers:
            self.send({"msg": "patch", "payload": json.dumps(buffer.ref)})
            self.send({"msg": "patch"}, [buffer.to_bytes()])

"""Server text as numbered lines, and the error that names the line at fault."""

from __future__ import annotations

# my_isspace() over latin1: the only characters mysys trims around names and values.
WS = " \t\n\r\x0b\x0c"


class ConfigParseError(ValueError):
    """Malformed server text: the 1-based line it was found on, that line, and what is wrong.

    Attributes:
        line: 1-based line number in the text given, or None when no single line is to blame.
        text: the offending line as written ("" when there is none).
        reason: what is wrong, without the line prefix.
    """

    def __init__(self, reason: str, line: int | None = None, text: str = "") -> None:
        self.reason = reason
        self.line = line
        self.text = text
        where = f"line {line}: " if line is not None else ""
        shown = text if len(text) <= 100 else text[:97] + "..."
        quoted = f" (the line reads {shown!r})" if text else ""
        super().__init__(f"{where}{reason}{quoted}")

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str]]:
        # keyword-style constructors need this to survive pickling (pytest-xdist, multiprocessing)
        return (type(self), (self.reason, self.line, self.text))


def split_lines(text: str | bytes) -> list[str]:
    """The text as lines, numbered as an editor numbers them (only a newline ends a line)."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            line = bytes(text)[: exc.start].count(b"\n") + 1
            raise ConfigParseError(
                f"byte {exc.start} is not UTF-8 ({exc.reason}); save the text as UTF-8", line
            ) from None
    if not isinstance(text, str):
        raise TypeError(f"expected the text as str or bytes, got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # an editor's byte-order mark is not part of line 1
    return [ln.removesuffix("\r") for ln in text.split("\n")]

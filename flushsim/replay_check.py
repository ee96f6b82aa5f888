"""Check a recording before replay() runs it, and cut it where the model cannot follow it.

A recording can be broken in ways a replay must not paper over. What cannot be replayed is
refused with one line naming the row or second (ValueError): no rows; time_s missing, not
numbers, not whole seconds, going back or repeated; a sampling interval other than 1 s; a load
column (dml_reads, dml_updates) missing or not numbers.

What can be replayed is handled, and said in a note:

- a negative value (a counter that went back; the recorder writes null there, an edited or
  foreign file may not) is left out as missing;
- a second without load (null dml_reads or dml_updates, as a lost connection leaves: the
  server ran on, the recorder did not see it) is bridged: the model runs through it at the
  load of the second before, and it is left out of every comparison;
- a jump in time_s (seconds missing from the file: nothing says what the server did) cuts the
  recording into pieces replayed separately, each from its own warm-up (replay's starting-state
  rules, applied to the piece's first second);
- a server restart (the `Uptime` column going back) also starts a new piece: its warm-up
  starts from the pool the server had after the restart, so the model is cold too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

LOAD_COLUMNS = ("dml_reads", "dml_updates")
MAX_PIECES = 50  # more pieces than this is a recording too broken to compare
UPTIME_SLACK_S = 2  # Uptime is whole seconds, read at a sample's (jittered) instant


@dataclass(frozen=True)
class Piece:
    """Rows [start, stop) of the series, replayed by one simulation.

    `after` says what precedes it: "start", "gap" or "restart"; `bridged` lists the rows
    inside it without load, run through at the load of the row before.
    """

    start: int
    stop: int
    after: str
    bridged: tuple[int, ...] = ()


@dataclass(frozen=True)
class Checked:
    """A recording fit to replay: its series (negative values nulled), pieces and notes."""

    real: pl.DataFrame
    pieces: tuple[Piece, ...]
    notes: tuple[str, ...]


def check(series: pl.DataFrame, interval_s: float = 1.0) -> Checked:
    """Check a recording's series and cut it into pieces replay() can run.

    Raises:
        ValueError: the series cannot be replayed (one line naming the row or second).
    """
    if series.height == 0:
        raise ValueError("the recording has no samples")
    missing = [c for c in ("time_s", *LOAD_COLUMNS) if c not in series.columns]
    if missing:
        raise ValueError(f"the recording lacks the load columns {', '.join(missing)}")
    if abs(float(interval_s) - 1.0) > 1e-9:
        raise ValueError(f"replay needs one sample a second, not every {interval_s:g} s")
    series = _numbers(series)
    times = _check_time(series["time_s"])
    real, notes = _without_negatives(series)
    usable = (real["dml_reads"].is_not_null() & real["dml_updates"].is_not_null()).to_list()
    restarts = _restarts(real, times)
    pieces, breaks = _cut(times, usable, restarts)
    if not pieces:
        raise ValueError(
            "no second of the recording has both dml_reads and dml_updates: nothing to replay"
        )
    if len(pieces) > MAX_PIECES:
        raise ValueError(
            f"the recording breaks into {len(pieces)} pieces (missing seconds or restarts, "
            f"the first at {times[pieces[1].start]} s): more than {MAX_PIECES} to replay apart"
        )
    notes += breaks
    compared = sum(usable[p.start : p.stop].count(True) for p in pieces)
    if len(pieces) > 1 or compared < len(times):
        notes.append(
            f"Compared {compared} of {len(times)} recorded seconds, replayed in {len(pieces)} "
            f"piece(s), each from its own warm-up; the {len(times) - compared} seconds without "
            "load are left out of every comparison."
        )
    return Checked(real, tuple(pieces), tuple(notes))


def _numbers(series: pl.DataFrame) -> pl.DataFrame:
    """The series with all-null columns as floats; refuses a column of text."""
    out = []
    for column in series.columns:
        s = series[column]
        if s.dtype.is_numeric():
            out.append(s)
        elif s.null_count() == s.len():  # a CSV column that is empty throughout
            out.append(s.cast(pl.Float64))
        else:
            raise ValueError(f"the recording's column {column} holds {s.dtype}, not numbers")
    return pl.DataFrame(out)


def _check_time(time_s: pl.Series) -> list[int]:
    """time_s as whole seconds, strictly increasing; refuses anything else, naming the row."""
    out: list[int] = []
    for i, t in enumerate(time_s.to_list()):
        if t is None or t != t:
            raise ValueError(f"time_s is empty at row {i + 1}")
        if not math.isfinite(t) or float(t) != int(t):
            raise ValueError(f"time_s {t} at row {i + 1} is not a whole second")
        t = int(t)
        if out and t == out[-1]:
            raise ValueError(f"time_s {t} s appears twice (rows {i} and {i + 1})")
        if out and t < out[-1]:
            raise ValueError(
                f"time_s goes back from {out[-1]} to {t} s at row {i + 1}: rows out of order"
            )
        out.append(t)
    return out


def _without_negatives(series: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Negative values nulled (nothing a recording holds can be negative), with a note."""
    hit = {}
    columns = []
    for column in series.columns:
        s = series[column]
        negative = (s < 0).fill_null(False)
        if column != "time_s" and negative.any():
            hit[column] = int(series["time_s"].filter(negative)[0])
            col = pl.col(column)
            s = s.to_frame().select(pl.when(col < 0).then(None).otherwise(col).alias(column))
            s = s.to_series()
        columns.append(s)
    notes = []
    if hit:
        first = min(hit.values())
        notes.append(
            f"Negative values (a counter that went back) in {', '.join(sorted(hit))}, the "
            f"first at {first} s: left out as missing."
        )
    return pl.DataFrame(columns), notes


def _restarts(real: pl.DataFrame, times: list[int]) -> dict[int, str]:
    """Row -> note, for each row before which the server restarted (Uptime went back)."""
    if "Uptime" not in real.columns:
        return {}
    out: dict[int, str] = {}
    last: tuple[int, int] | None = None  # (row, uptime) of the last row with an Uptime
    for i, up in enumerate(real["Uptime"].to_list()):
        if up is None:
            continue
        if last is not None:
            row, before = last
            # going back, or growing less than the clock did (a restart during a gap)
            if up < before or up - before < times[i] - times[row] - UPTIME_SLACK_S:
                out[i] = (
                    f"The server restarted before {times[i]} s (Uptime {up:g} s there, "
                    f"{before:g} s at {times[row]} s): the piece from {times[i]} s starts "
                    "again from a fresh warm-up, with the pool the server then had."
                )
        last = (i, up)
    return out


def _cut(
    times: list[int], usable: list[bool], restarts: dict[int, str]
) -> tuple[list[Piece], list[str]]:
    """Runs from a usable row to a usable row with no jump in time_s or restart inside.

    Rows without load inside a run are bridged. One note a bridge and a break.
    """
    runs: list[tuple[int, int]] = []
    start: int | None = None
    last_ok = -1
    for i, ok in enumerate(usable):
        jump = i > 0 and times[i] - times[i - 1] != 1
        if start is not None and (jump or i in restarts):
            runs.append((start, last_ok + 1))
            start = None
        if ok:
            start = i if start is None else start
            last_ok = i
    if start is not None:
        runs.append((start, last_ok + 1))
    pieces: list[Piece] = []
    notes: list[str] = []
    for a, b in runs:
        bridged = tuple(i for i in range(a, b) if not usable[i])
        if pieces:
            last = pieces[-1].stop - 1
            hit = [r for r in range(last + 1, a + 1) if r in restarts]
            notes.append(restarts[hit[0]] if hit else _gap_note(times, last, a))
        after = "start" if not pieces else ("restart" if hit else "gap")
        pieces.append(Piece(a, b, after, bridged))
        notes += [_bridge_note(times, first, last) for first, last in _stretches(bridged)]
    return pieces, notes


def _stretches(rows: tuple[int, ...]) -> list[tuple[int, int]]:
    """Consecutive row numbers as (first, last) pairs."""
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out


def _when(a: int, b: int) -> str:
    return f"at {a} s" if a == b else f"from {a} to {b} s"


def _bridge_note(times: list[int], first: int, last: int) -> str:
    return (
        f"No load recorded {_when(times[first], times[last])} (rows without dml_reads / "
        "dml_updates, as a lost connection leaves): the model runs through them at the load "
        f"of {times[first - 1]} s, and they are left out of every comparison."
    )


def _gap_note(times: list[int], last: int, first: int) -> str:
    """Why the piece ending at row `last` and the one starting at row `first` are apart."""
    jump = next(i for i in range(last + 1, first + 1) if times[i] - times[i - 1] != 1)
    return (
        f"No load recorded {_when(times[last] + 1, times[first] - 1)} (time_s jumps from "
        f"{times[jump - 1]} to {times[jump]} s): the two sides are replayed as separate pieces, "
        "each from its own warm-up."
    )

"""replay(): drive the model with a real server's recorded load, and put the two side by side.

A recording (`flushsim.live.Recording`, or the path of one) says, second by second, how many
rows the server read and changed (`dml_reads`, `dml_updates`: `Innodb_rows_read`, `_updated`)
and how much redo it wrote (`log_lsn_current`). The model gets exactly that load:

- a paced workload (`trx_rate`, like sysbench --rate): row accesses / `rows_per_trx`
  transactions a second, `write_pct` = rows changed / row accesses. An UPDATE reads the row it
  changes, so row accesses are max(`dml_reads`, `dml_updates`) (more changes than reads: blind
  writes, or a statement counted on either side of a sample). A second without any row access
  stops the workload;
- `redo_bytes_per_change` = that second's redo (bytes of LSN) / rows changed, so the checkpoint
  age grows as the server's did (the first second, which has no baseline LSN, takes the
  recording's mean).

The rest of the workload is the user's Scenario, because a recording cannot say which rows were
touched: the access pattern (`uniform`, `hotset`, ...), `table_rows`, `rows_per_page`, `threads`
and `rows_per_trx`. `scenario_for(recording, **knobs)` builds one from the recording's own
`SHOW GLOBAL VARIABLES`, so the server knobs match.

Starting state. The server did not start from an empty pool, so the model runs a warm-up first
and replay() cuts it off (`Replay.warmup_s` whole seconds):

1. a read-only scan of the first `start_data_pages` pages of the table (default: the
   recording's first `buffer_pool_pages_data`, at most the table), for a warm, clean pool;
2. if the recording's first second changed no rows but shows dirty pages, an update of every
   row of the first `start_dirty_pages` pages (default: that second's dirty pages plus the pages
   it flushed), spread over one second, standing for the load that dirtied them before the
   recording began. A first second with row changes starts from a clean pool; a piece after
   seconds missing from the file (`replay_check`) starts from the dirty pages the server had,
   being mid-load;
3. at least half a second without load, then the recording's first second.

A broken recording is checked first (`replay_check`): what cannot be replayed is refused in
one line naming the second; seconds without load are run through at the load of the second
before and left out of the comparison; seconds missing from the file and server restarts cut
it into pieces, each replayed from its own warm-up; the notes say so.

Simplifications: the warm-up's own flushing also runs (as the server's did while it was
dirtied), so the model can start with somewhat fewer dirty pages than the server; undo and
system pages are not in the model's table; redo written in seconds without row changes
(purge, background work) is not replayed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from . import params, replay_check
from .amplification import PAGES_FLUSHED_COLUMNS
from .run import Run, simulate
from .scenario import Event, Scenario

# The project's own recordings of real servers (data/reference/<engine>/, with their README).
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "data" / "reference"
# The columns replay() compares, when both the recording and the model have them.
FLUSHING_COLUMNS = (
    "buffer_flush_batch_total_pages",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_LRU_batch_flush_total_pages",
    "buffer_pool_wait_free",
    "buffer_pool_pages_dirty",
    "buffer_pool_pages_free",
    "log_lsn_checkpoint_age",
)
# End-of-second values rather than per-second counts.
GAUGES = frozenset({"buffer_pool_pages_dirty", "buffer_pool_pages_free", "log_lsn_checkpoint_age"})
LOAD_COLUMNS = replay_check.LOAD_COLUMNS
DIRTY_WARMUP_S = 1.0  # the warm-up's update is spread over this long
QUIET_S = 0.5  # at least this long without load before the recording's first second
MAX_WARMUP_S = 3600


@dataclass(frozen=True)
class Segment:
    """A piece of the recording and the simulation that replayed it.

    Attributes:
        first_s: time_s of its first second.
        last_s: time_s of its last second.
        after: what came before it: "start", "gap" (seconds without load) or "restart".
        run: the simulation, warm-up included.
        warmup_s: seconds of warm-up before its first second.
        start_data_pages: pages the warm-up read into the pool.
        start_dirty_pages: pages the warm-up dirtied (0: started clean).
    """

    first_s: int
    last_s: int
    after: str
    run: Run
    warmup_s: int
    start_data_pages: int
    start_dirty_pages: int


@dataclass(frozen=True)
class Replay:
    """A recording and the model driven by its load.

    Attributes:
        real: the recording's per-second series (negative values left out as null).
        model: the model's series on the same rows (time_s as the recording's); null in the
            seconds no piece replayed (gaps).
        run: the first piece's simulation, warm-up included (its Scenario shows every event).
        warmup_s: seconds of warm-up before the first piece.
        start_data_pages: pages the first warm-up read into the pool.
        start_dirty_pages: pages the first warm-up dirtied (0: started clean).
        notes: what replay() assumed, handled or could not do, in plain words.
        segments: every piece replayed (one unless the recording has gaps or restarts).
    """

    real: pl.DataFrame
    model: pl.DataFrame
    run: Run
    warmup_s: int
    start_data_pages: int
    start_dirty_pages: int
    notes: tuple[str, ...] = field(default=())
    segments: tuple[Segment, ...] = field(default=())

    def columns(self) -> list[str]:
        """The flushing columns both sides have, in FLUSHING_COLUMNS order."""
        return [c for c in FLUSHING_COLUMNS if c in self.real.columns and c in self.model.columns]

    def side_by_side(self, columns: list[str] | None = None) -> pl.DataFrame:
        """One long table: time_s, column, real, model (floats), for plotting on one axis."""
        cols = self.columns() if columns is None else columns
        missing = [c for c in cols if c not in self.real.columns or c not in self.model.columns]
        if missing:
            raise ValueError(f"not in both the recording and the model: {', '.join(missing)}")
        frames = [
            pl.DataFrame(
                {
                    "time_s": self.real["time_s"],
                    "column": [c] * self.real.height,
                    "real": self.real[c].cast(pl.Float64),
                    "model": self.model[c].cast(pl.Float64),
                }
            )
            for c in cols
        ]
        return pl.concat(frames) if frames else pl.DataFrame()

    def errors(self) -> pl.DataFrame:
        """One row per flushing column: how far the model is from the server.

        Columns: column, kind ("counter": per-second count; "gauge": end-of-second value),
        real_mean and model_mean (per second), error_pct (100 x (model - real) / real of the
        means; null when the server's mean is 0), mae (mean absolute per-second difference).
        """
        rows = []
        for c in self.columns():
            both = pl.DataFrame(
                {"real": self.real[c].cast(pl.Float64), "model": self.model[c].cast(pl.Float64)}
            ).drop_nulls()  # seconds a gap left out, on either side
            real, model = both["real"], both["model"]
            rm = float(real.mean()) if both.height else None
            mm = float(model.mean()) if both.height else None
            rows.append(
                {
                    "column": c,
                    "kind": "gauge" if c in GAUGES else "counter",
                    "real_mean": rm,
                    "model_mean": mm,
                    "error_pct": 100.0 * (mm - rm) / rm if rm else None,
                    "mae": float((model - real).abs().mean()) if both.height else None,
                }
            )
        return pl.DataFrame(
            rows,
            schema={
                "column": pl.String,
                "kind": pl.String,
                "real_mean": pl.Float64,
                "model_mean": pl.Float64,
                "error_pct": pl.Float64,
                "mae": pl.Float64,
            },
        )

    def updates_per_page_flushed(self, first_s: int = 1) -> tuple[float, float]:
        """(server, model) rows changed per page written, from second `first_s` to the end."""
        # the same seconds on both sides: those replayed, with every figure present
        keep = pl.Series([True] * self.real.height)
        for df in (self.real, self.model):
            for c in ("dml_updates", *PAGES_FLUSHED_COLUMNS):
                if c in df.columns:
                    keep &= df[c].is_not_null()
        out = []
        for df in (self.real, self.model):
            part = df.filter(keep & (df["time_s"] >= first_s))
            flushed = sum(float(part[c].sum()) for c in PAGES_FLUSHED_COLUMNS if c in part.columns)
            out.append(float(part["dml_updates"].sum()) / flushed if flushed else math.inf)
        return out[0], out[1]


def scenario_for(recording, engine: str | None = None, **knobs: object) -> Scenario:
    """A Scenario from the recording's own `SHOW GLOBAL VARIABLES`, plus the workload you give.

    Args:
        recording: a Recording or the path of one.
        engine: default: the recording's engine.
        **knobs: the workload (e.g. `workload="hotset", table_rows=300_000, hot_rows=4_000`)
            and any knob or Scenario field that should win over the server's variables.
    """
    from .live.config import read_variables

    rec = _recording(recording)
    engine = engine or rec.engine
    if not engine:
        raise ValueError(
            "the recording does not say which server it came from (a CSV file holds the "
            f"series alone): pass the engine ({', '.join(params.ENGINES)})"
        )
    if not rec.variables:
        fields = {k: knobs.pop(k) for k in ("seconds", "seed", "name") if k in knobs}
        return Scenario(engine=engine, knobs=knobs, **fields)
    text = "".join(f"{k}\t{v}\n" for k, v in rec.variables.items())
    return read_variables(text, engine, **knobs).scenario


def replay(
    recording,
    scenario: Scenario,
    *,
    start_data_pages: int | None = None,
    start_dirty_pages: int | None = None,
    kernel: str = "numba",
) -> Replay:
    """Run `scenario` under the recording's per-second load and return both side by side.

    Args:
        recording: a Recording or the path of one (one sample a second).
        scenario: the server's knobs and the workload's shape; its own timeline, if any, is
            shifted to the recording's clock. `scenario_for(recording, ...)` makes one.
        start_data_pages: pages of the table in the pool at the start (default: see the
            module docstring); 0 starts from an empty pool.
        start_dirty_pages: pages dirty at the start (default: see the module docstring).
        kernel: "numba" or "reference", as in simulate().

    Raises:
        TypeError: `scenario` is not a Scenario.
        ValueError: the recording cannot be replayed (`replay_check`: no rows, no load
            columns, not once a second, time_s out of order...), or a start figure is negative.
    """
    rec = _recording(recording)
    if not isinstance(scenario, Scenario):
        raise TypeError(f"replay() takes a Scenario, not {type(scenario).__name__}")
    checked = replay_check.check(rec.series, getattr(rec, "interval_s", 1.0))
    for name, value in (
        ("start_data_pages", start_data_pages),
        ("start_dirty_pages", start_dirty_pages),
    ):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"{name}={value!r} must be a whole number of pages >= 0")

    notes = [*_recording_notes(rec, scenario), *checked.notes]
    segments: list[Segment] = []
    models: list[pl.DataFrame] = []
    for n, piece in enumerate(checked.pieces):
        part = checked.real.slice(piece.start, piece.stop - piece.start)
        first = n == 0
        segment, model, piece_notes = _replay_piece(
            part.with_columns(pl.col(c).forward_fill() for c in LOAD_COLUMNS),
            scenario,
            piece.after,
            start_data_pages if first else None,
            start_dirty_pages if first else None,
            kernel,
        )
        where = "" if len(checked.pieces) == 1 else f"From {segment.first_s} s: "
        notes += [where + note for note in piece_notes]
        bridged = [checked.real["time_s"][i] for i in piece.bridged]
        blank = [pl.lit(None).alias(c) for c in model.columns if c != "time_s"]
        gone = model.filter(pl.col("time_s").is_in(bridged)).with_columns(blank)
        model = pl.concat([model.filter(~pl.col("time_s").is_in(bridged)), gone]).sort("time_s")
        segments.append(segment)
        models.append(model)
    model = checked.real.select("time_s").join(
        pl.concat(models, how="diagonal_relaxed"), on="time_s", how="left"
    )
    head = segments[0]
    return Replay(
        real=checked.real,
        model=model,
        run=head.run,
        warmup_s=head.warmup_s,
        start_data_pages=head.start_data_pages,
        start_dirty_pages=head.start_dirty_pages,
        notes=tuple(notes),
        segments=tuple(segments),
    )


def _recording_notes(rec, scenario: Scenario) -> list[str]:
    """What the recording's own metadata says that a reader of the comparison should know."""
    notes = []
    if not rec.engine:
        notes.append(
            "The recording holds no server variables (a CSV file): the model runs "
            f"{scenario.engine} with the scenario's knobs, flushsim's defaults unless given."
        )
    elif rec.engine != scenario.engine:
        notes.append(f"The recording is from {rec.engine}; the model runs {scenario.engine}.")
    ended = getattr(rec, "ended", "complete")
    if ended == "in progress":
        notes.append(
            "The recorder did not finish this file (it was killed while recording): it holds "
            f"the {rec.series.height} seconds saved before."
        )
    elif ended != "complete":
        notes.append(f"The recording ended early ({ended}) after {rec.series.height} seconds.")
    return notes


def _replay_piece(
    real: pl.DataFrame,
    scenario: Scenario,
    after: str,
    start_data_pages: int | None,
    start_dirty_pages: int | None,
    kernel: str,
) -> tuple[Segment, pl.DataFrame, list[str]]:
    """Run one piece of the recording from its own warm-up; the model on its seconds."""
    notes: list[str] = []
    v = scenario.values
    rows, rpp = int(v["table_rows"]), int(v["rows_per_page"])
    table_pages = -(-rows // rpp)
    first = real.row(0, named=True)
    first_changes = int(first["dml_updates"] or 0)
    if start_data_pages is None:
        start_data_pages = min(int(first.get("buffer_pool_pages_data") or 0), table_pages)
    if start_dirty_pages is None:
        start_dirty_pages = 0
        if after == "gap":
            # the server was mid-load: start from the dirty pages it had
            start_dirty_pages = int(first.get("buffer_pool_pages_dirty") or 0)
        elif first_changes == 0:
            # a recording has no single-page column: get() gives None for it
            flushed = sum(int(first.get(c) or 0) for c in PAGES_FLUSHED_COLUMNS)
            start_dirty_pages = int(first.get("buffer_pool_pages_dirty") or 0) + flushed
    if start_data_pages > table_pages or start_dirty_pages > table_pages:
        notes.append(
            f"The table has {table_pages:,} pages ({rows:,} rows / {rpp} a page): the warm-up "
            f"reads and dirties at most that many."
        )
    start_data_pages = min(start_data_pages, table_pages)
    start_dirty_pages = min(start_dirty_pages, table_pages)

    redo = None
    age = first.get("log_lsn_checkpoint_age")
    dirty1 = int(first.get("buffer_pool_pages_dirty") or 0)
    if start_dirty_pages and age and dirty1:
        # the checkpoint age covers the pages still dirty: redo per row change of the warm-up
        redo = age / (dirty1 * rpp)
    warm, t = _warmup(v, start_data_pages, start_dirty_pages, redo)
    warmup_s = math.ceil(t + QUIET_S)
    if warmup_s > MAX_WARMUP_S:
        raise ValueError(
            f"the warm-up would take {warmup_s} s (more than {MAX_WARMUP_S}): give "
            f"start_data_pages a smaller number of pages"
        )
    load = _load_events(real, v, warmup_s)
    if not any(e.action == "start_workload" or e.knobs for e in load):
        notes.append("The recording has no row reads or changes: the model runs idle.")
    # the recording's clock: second `at` of the user's timeline is this piece's second
    # at - offset (an event before the piece applies from its start)
    offset = int(real["time_s"][0]) - 1
    own = tuple(
        Event(max(0.0, e.at - offset) + warmup_s, e.action, e.knobs) for e in scenario.timeline
    )
    events = sorted((*warm, *load, *own), key=lambda e: e.at)  # stable: same-time order kept
    full = scenario.replace(timeline=tuple(events), seconds=warmup_s + real.height)
    run = simulate(full, kernel=kernel)
    model = run.series.filter(pl.col("time_s") > warmup_s).with_columns(
        (pl.col("time_s") - warmup_s + offset).alias("time_s")
    )
    at_start = run.series.filter(pl.col("time_s") == warmup_s)
    if start_data_pages and at_start.height:
        got = int(at_start["buffer_pool_pages_data"][0])
        if got < 0.95 * start_data_pages:
            notes.append(
                f"The warm-up left {got:,} pages in the pool, not {start_data_pages:,}: "
                f"the pool or the device is too small for the scan."
            )
    segment = Segment(
        first_s=int(real["time_s"][0]),
        last_s=int(real["time_s"][-1]),
        after=after,
        run=run,
        warmup_s=warmup_s,
        start_data_pages=start_data_pages,
        start_dirty_pages=start_dirty_pages,
    )
    return segment, model, notes


def _recording(recording):
    from .live.recorder import Recording

    if isinstance(recording, (str, Path)):
        return Recording.read(recording)
    if not isinstance(recording, Recording):
        raise TypeError(f"expected a Recording or a path, not {type(recording).__name__}")
    return recording


def _warmup(v, data_pages: int, dirty_pages: int, redo: float | None) -> tuple[list[Event], float]:
    """The warm-up's timeline from 0 s, and when its last load ends (s)."""
    rpp = int(v["rows_per_page"])
    threads = max(1, int(v["threads"]))
    events: list[Event] = []
    t = 0.0
    common = {
        "workload": "sequential",
        "trx_rate": 0.0,
        "think_time_us": 0.0,
        "cpu_us_per_row": 0.1,
        "seq_start_row": 0,
    }
    if threads != int(v["threads"]):
        common["threads"] = threads
    if data_pages:
        # read every row of the pages: one miss a page, at the device's read latency
        read_s = data_pages * float(v["device_read_latency_us"]) / 1e6 / threads
        events.append(
            Event(
                0.0,
                "set",
                {**common, "write_pct": 0.0, "rows_per_trx": rpp, "seq_end_row": data_pages * rpp},
            )
        )
        t = max(0.5, math.ceil(4 * read_s * 10) / 10)
    if dirty_pages:
        if redo is not None:
            common["redo_bytes_per_change"] = _redo_knob(redo)
        rows = dirty_pages * rpp
        per_trx = max(1, -(-rows // 60))  # about 60 statements, as a batch UPDATE would run
        events.append(
            Event(
                t,
                "set",
                {
                    **common,
                    "write_pct": 100.0,
                    "rows_per_trx": per_trx,
                    "seq_end_row": rows,
                    "trx_rate": -(-rows // per_trx) / DIRTY_WARMUP_S,
                },
            )
        )
        t += DIRTY_WARMUP_S
    if events:
        events.append(Event(t, "stop_workload"))
        # the user's workload shape again, before the recording's load starts
        back = {k: v[k] for k in (*common, "write_pct", "rows_per_trx", "seq_end_row", "threads")}
        events.append(Event(t, "set", back))
    else:
        events.append(Event(0.0, "stop_workload"))
    return events, t


def _load_events(real: pl.DataFrame, v, warmup_s: int) -> list[Event]:
    """Per-second `trx_rate`, `write_pct` and `redo_bytes_per_change` from the recording."""
    reads = real["dml_reads"].fill_null(0).to_list()
    changes = real["dml_updates"].fill_null(0).to_list()
    lsn = real["log_lsn_current"].to_list() if "log_lsn_current" in real.columns else None
    redo = [None] * len(reads)
    known = [x for x in lsn if x is not None] if lsn is not None else []
    if len(known) > 1:
        for i in range(1, len(lsn)):
            # a bridged second has no LSN: the knob keeps the value of the second before
            if lsn[i] is None or lsn[i - 1] is None:
                continue
            if changes[i] > 0 and lsn[i] >= lsn[i - 1]:
                redo[i] = (lsn[i] - lsn[i - 1]) / changes[i]
        total = sum(c for i, c in enumerate(changes) if i > 0 and redo[i] is not None)
        mean = (known[-1] - known[0]) / total if total else None
        if changes[0] > 0 and mean:
            redo[0] = mean
    per_trx = int(v["rows_per_trx"])
    events: list[Event] = []
    running = False
    last: dict[str, object] = {}
    for i, (r, c) in enumerate(zip(reads, changes, strict=True)):
        at = float(warmup_s + i)
        accesses = max(r, c)  # an UPDATE's read is in dml_reads; the sample edges jitter
        if accesses <= 0:
            if running:
                events.append(Event(at, "stop_workload"))
                running = False
            continue
        want: dict[str, object] = {
            "trx_rate": accesses / per_trx,
            "write_pct": 100.0 * c / accesses,
        }
        if redo[i] is not None:
            want["redo_bytes_per_change"] = _redo_knob(redo[i])
        set_now = {k: x for k, x in want.items() if last.get(k) != x}
        if set_now:
            events.append(Event(at, "set", set_now))
            last.update(set_now)
        if not running:
            events.append(Event(at, "start_workload"))
            running = True
    return events


def _redo_knob(bytes_per_change: float) -> int:
    """A redo figure as the knob takes it: whole bytes within its range."""
    p = params.BY_NAME["redo_bytes_per_change"]
    return int(min(p.max, max(p.min, round(bytes_per_change))))

"""The validation matrix: every reference recording replayed in the model, one table of errors.

`validate(folder)` replays each recording of `folder` (default: data/reference/mariadb-10.11)
with `fs.replay`, under the workload its own "flushsim.reference" metadata describes (table
rows, access pattern, threads: `workload_knobs`), and returns one row per recording and column:
the server's mean, the model's mean, the error and whether it is within the tolerance that
docs/validation.md states (`TOLERANCE_PCT`). Rows name each column by the server's metric name
(`SERVER_NAME`). `python -m flushsim validate` writes that table; `figure` draws the SVG
figures of docs/validation.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .amplification import PAGES_FLUSHED_COLUMNS
from .replay import REFERENCE_DIR, Replay, replay, scenario_for

FOLDER = REFERENCE_DIR / "mariadb-10.11"
# flushsim column -> the server's name for it (SHOW GLOBAL STATUS or INNODB_METRICS), as the
# recorder reads it from MariaDB 10.11
SERVER_NAME = {
    "buffer_pool_pages_free": "Innodb_buffer_pool_pages_free",
    "buffer_pool_pages_dirty": "Innodb_buffer_pool_pages_dirty",
    "buffer_flush_adaptive_total_pages": "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages": "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages": "buffer_flush_sync_total_pages",
    "buffer_flush_batch_total_pages": "buffer_flush_batch_total_pages",
    "buffer_LRU_batch_flush_total_pages": "Innodb_buffer_pool_pages_LRU_flushed",
    "buffer_pool_wait_free": "Innodb_buffer_pool_wait_free",
    "log_lsn_checkpoint_age": "Innodb_checkpoint_age",
    "sim_tps": "Handler_commit",
}
COLUMNS = tuple(SERVER_NAME)
# pages written a second by kind; buffer_flush_batch_total_pages is the flush list's total
FLUSH_KINDS = (
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_LRU_batch_flush_total_pages",
)
FLUSH_RATES = (*FLUSH_KINDS, "buffer_flush_batch_total_pages")
LEVELS = ("buffer_pool_pages_free", "buffer_pool_pages_dirty")
# the bar (docs/validation.md, "Tolerances"): error of the mean, in %; the wait count is
# held to zero where the server had none (WAIT_FREE); the other columns are reported only
TOLERANCE_PCT = {**dict.fromkeys(FLUSH_RATES, 15.0), **dict.fromkeys(LEVELS, 25.0)}
WAIT_FREE = "buffer_pool_wait_free"
# a flushing kind the server used for less than this share of its pages is not held to a rate
# (a handful of pages is noise in the page cleaner's timing, not a rate)
MIN_SHARE = 0.05
# the table of scripts/record_reference.py: (INT, INT, CHAR(200)) rows, 61 to a 16 KiB page
ROWS_PER_PAGE = 61
# name prefix -> regime (the list)
REGIMES = {
    "burst-": "idle after a burst",
    "idle-": "idle after a burst",
    "hotset": "write combining on a hot set",
    "redo-": "redo-bound",
    "lru-": "LRU-bound",
    "oltp-": "mixed OLTP, pool-size step",
}


@dataclass(frozen=True)
class Validated:
    """One recording and its replay.

    Attributes:
        name: the recording's file stem.
        regime: the regime it stands for (REGIMES).
        replay: the server and the model side by side.
    """

    name: str
    regime: str
    replay: Replay


def regime(name: str) -> str:
    """The regime a recording stands for, from its name."""
    for prefix, label in REGIMES.items():
        if name.startswith(prefix):
            return label
    return "other"


def reference(path: str | Path) -> dict:
    """The recording's "flushsim.reference" metadata (scripts/record_reference.py)."""
    meta = pl.read_parquet_metadata(path)
    if "flushsim.reference" not in meta:
        raise ValueError(
            f"{path}: no flushsim.reference metadata (not made by scripts/record_reference.py): "
            "replay it with `python -m flushsim replay` and the workload given by --set"
        )
    return json.loads(meta["flushsim.reference"])


def workload_knobs(ref: dict) -> dict[str, object]:
    """The model's workload for a recording's metadata: what the recording itself cannot say."""
    load = ref["workload"]
    knobs: dict[str, object] = {
        "table_rows": int(ref["preparation"]["table_rows"]),
        "rows_per_page": ROWS_PER_PAGE,
        "rows_per_trx": 1,
        "threads": int(load.get("threads", 4)),
        "think_time_us": 0.0,
    }
    if load["kind"] == "update-hotset":
        knobs.update(workload="hotset", hot_rows=int(load["hot_rows"]))
    else:
        knobs["workload"] = "uniform"
    return knobs


def recordings(folder: str | Path = FOLDER) -> list[Path]:
    """The recordings of `folder`, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of recordings")
    paths = sorted(folder.glob("*.parquet"))
    if not paths:
        raise FileNotFoundError(f"{folder}: no recordings (*.parquet) in it")
    return paths


def replay_one(path: str | Path) -> Validated:
    """Replay one recording under its own workload."""
    path = Path(path)
    knobs = workload_knobs(reference(path))
    return Validated(path.stem, regime(path.stem), replay(path, scenario_for(path, **knobs)))


def errors(v: Validated) -> pl.DataFrame:
    """One row per column of COLUMNS: server and model means, error and the verdict."""
    real, model = v.replay.real, v.replay.model
    flushed = sum(_mean(real, c) or 0.0 for c in FLUSH_KINDS)
    rows = []
    for c in COLUMNS:
        rm, mm = _mean(real, c), _mean(model, c)
        err = None if rm is None or mm is None or rm == 0 else 100.0 * (mm - rm) / rm
        rows.append(
            {
                "regime": v.regime,
                "recording": v.name,
                "metric": SERVER_NAME[c],
                "column": c,
                "server_mean": rm,
                "model_mean": mm,
                "error_pct": err,
                "tolerance": _tolerance(c),
                "verdict": _verdict(c, rm, mm, err, flushed),
            }
        )
    return pl.DataFrame(rows, schema=SCHEMA)


SCHEMA = {
    "regime": pl.String,
    "recording": pl.String,
    "metric": pl.String,
    "column": pl.String,
    "server_mean": pl.Float64,
    "model_mean": pl.Float64,
    "error_pct": pl.Float64,
    "tolerance": pl.String,
    "verdict": pl.String,
}


def table(validated: list[Validated]) -> pl.DataFrame:
    """The validation matrix: `errors` of every recording, one after the other."""
    return pl.concat([errors(v) for v in validated]) if validated else pl.DataFrame(schema=SCHEMA)


def validate(folder: str | Path = FOLDER) -> tuple[pl.DataFrame, list[Validated]]:
    """Replay every recording of `folder`; the matrix and the replays."""
    validated = [replay_one(p) for p in recordings(folder)]
    return table(validated), validated


def errors_wide(matrix: pl.DataFrame) -> pl.DataFrame:
    """One row per recording, one column per server metric: the model's error (%, 1 decimal).

    A held column that misses gets a "*" after its number; a column whose server mean is 0
    shows the model's mean instead, in brackets.
    """

    def cell(r: dict) -> str:
        if r["error_pct"] is None:
            text = "" if r["model_mean"] is None else f"({_num(r['model_mean'])})"
        else:
            text = f"{r['error_pct']:+.1f}"
        return text + ("*" if r["verdict"] == "miss" else "")

    cells = matrix.select(
        "regime",
        "recording",
        "metric",
        pl.Series("cell", [cell(r) for r in matrix.iter_rows(named=True)]),
    )
    return cells.pivot(on="metric", index=["regime", "recording"], values="cell")


def wide_markdown(matrix: pl.DataFrame) -> str:
    """`errors_wide` as a markdown table: the model's error (%) per recording and metric."""
    wide = errors_wide(matrix)
    names = wide.columns[1:]
    head = "| " + " | ".join(names) + " |\n" + "|---|" + "---:|" * (len(names) - 1) + "\n"
    rows = ["| " + " | ".join(r[1:]) + " |\n" for r in wide.fill_null("").iter_rows()]
    return head + "".join(rows)


def markdown(matrix: pl.DataFrame) -> str:
    """The matrix as a markdown table (means to 3 significant figures, errors to 0.1 %)."""
    head = "| recording | metric | server | model | error | tolerance | verdict |\n"
    head += "|---|---|---:|---:|---:|---|---|\n"
    lines = [
        f"| {r['recording']} | {r['metric']} | {_num(r['server_mean'])} | "
        f"{_num(r['model_mean'])} | {_pct(r['error_pct'])} | {r['tolerance']} | "
        f"{r['verdict']} |\n"
        for r in matrix.iter_rows(named=True)
    ]
    return head + "".join(lines)


def _mean(df: pl.DataFrame, column: str) -> float | None:
    if column not in df.columns:
        return None
    values = df[column].cast(pl.Float64).drop_nulls()
    return float(values.mean()) if values.len() else None


def _tolerance(column: str) -> str:
    if column in TOLERANCE_PCT:
        return f"±{TOLERANCE_PCT[column]:g} %"
    return "0 if server 0" if column == WAIT_FREE else ""


def _verdict(column, rm, mm, err, flushed: float) -> str:
    """Return "ok" or "miss" against the tolerance; "" for a column held to none."""
    if rm is None or mm is None:
        return ""
    if column == WAIT_FREE:
        return ("ok" if mm == 0 else "miss") if rm == 0 else ""
    if column not in TOLERANCE_PCT:
        return ""
    if column in FLUSH_RATES and (not flushed or rm < MIN_SHARE * flushed):
        # the server barely used this kind: the model must barely use it too
        return "ok" if mm < MIN_SHARE * max(flushed, 1.0) else "miss"
    return "ok" if abs(err) <= TOLERANCE_PCT[column] else "miss"


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x:+.1f} %"


def _num(x: float | None) -> str:
    if x is None:
        return ""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def figure(v: Validated) -> str:
    """The recording's SVG figure: pages flushed, dirty and free pages, checkpoint age."""
    from .svg_chart import replay_svg

    def flushed(df: pl.DataFrame) -> list[float | None]:
        cols = [c for c in PAGES_FLUSHED_COLUMNS if c in df.columns]
        return df.select(pl.sum_horizontal(cols)).to_series().to_list() if cols else []

    def col(df: pl.DataFrame, c: str, scale: float = 1.0) -> list[float | None]:
        if c not in df.columns:
            return []
        return [None if x is None else x / scale for x in df[c].cast(pl.Float64).to_list()]

    real, model = v.replay.real, v.replay.model
    panels = [
        ("pages flushed a second (flush list + LRU)", flushed(real), flushed(model)),
        ("Innodb_buffer_pool_pages_dirty", col(real, LEVELS[1]), col(model, LEVELS[1])),
        ("Innodb_buffer_pool_pages_free", col(real, LEVELS[0]), col(model, LEVELS[0])),
        (
            "Innodb_checkpoint_age (MB)",
            col(real, "log_lsn_checkpoint_age", 1e6),
            col(model, "log_lsn_checkpoint_age", 1e6),
        ),
    ]
    return replay_svg(f"{v.name} ({v.regime})", panels)

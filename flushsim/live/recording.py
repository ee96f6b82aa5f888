"""A recording's file: `Recording`, what `record()` sampled, written and read as parquet or CSV.

A parquet file carries the series and, as metadata under `flushsim.recording`, the server's
version, engine, kept variables, interval and how the recording ended; a CSV file holds the
series alone. `Recording.read` checks both and refuses anything else in one line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..outputs import atomic_path, check_output

__all__ = ["COMPLETE", "IN_PROGRESS", "LOST", "REFUSED", "SUFFIXES", "Recording"]

SUFFIXES = (".parquet", ".csv")
# how a recording ended (Recording.ended); an interrupted one says by which signal
COMPLETE, IN_PROGRESS, LOST, REFUSED = "complete", "in progress", "lost server", "refused sample"


@dataclass(frozen=True, repr=False)
class Recording:
    """What `record()` sampled.

    Attributes:
        series: one row per interval, simulate()'s column names and units (see the module
            docstring for the source of each column); `time_s` in s.
        variables: the kept SHOW GLOBAL VARIABLES at the start (`kept_variable`), name -> value.
        server_version: the server's `version` variable, e.g. "10.11.19-MariaDB-0+deb12u1"
            ("" for a CSV file, which holds the series alone).
        engine: flushsim's engine name, one of params.ENGINES ("" for a CSV file).
        reconnects: connections re-established after a lost one.
        interval_s: sampling interval (s); counters are divided by it.
        started_at: Unix time (s) of the baseline sample, to line up with iostat or logs.
        ended: "complete"; "interrupted by SIGINT" (SIGTERM, SIGHUP); "lost server"; "refused
            sample"; "in progress" (the file of a recorder that was killed while recording).
    """

    series: pl.DataFrame
    variables: dict[str, str]
    server_version: str
    engine: str
    reconnects: int = 0
    interval_s: float = 1.0
    started_at: float = 0.0
    ended: str = COMPLETE

    def __repr__(self) -> str:
        return (
            f"Recording(engine={self.engine!r}, server_version={self.server_version!r}, "
            f"rows={self.series.height}, columns={self.series.width}, "
            f"reconnects={self.reconnects}, ended={self.ended!r})"
        )

    def write(self, path: str | Path, *, force: bool = False) -> Path:
        """Write the series to FILE.parquet (with the rest as metadata) or FILE.csv, atomically.

        Raises:
            outputs.OutputError: not .parquet / .csv, no such folder, or the file exists and
                `force` is False.
        """
        path = check_output(path, suffixes=SUFFIXES, force=force, what="recording")
        with atomic_path(path) as tmp:
            if path.suffix.lower() == ".csv":
                self.series.write_csv(tmp)
            else:
                meta = {
                    "server_version": self.server_version,
                    "engine": self.engine,
                    "reconnects": self.reconnects,
                    "interval_s": self.interval_s,
                    "started_at": self.started_at,
                    "ended": self.ended,
                    "variables": self.variables,
                }
                self.series.write_parquet(tmp, metadata={"flushsim.recording": json.dumps(meta)})
        return path

    @classmethod
    def read(cls, path: str | Path) -> Recording:
        """A recording written by `write()`: FILE.parquet, or FILE.csv (the series alone).

        Raises:
            FileNotFoundError: no such file.
            ValueError: the file is not a recording written by `write()` (one line).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no recording at {path}")
        what = "written by `python -m flushsim record`"
        try:
            if path.suffix.lower() == ".csv":
                series = pl.read_csv(path, infer_schema_length=None)
                meta: dict[str, Any] = {"interval_s": _csv_interval(series)}
                meta |= {"server_version": "", "engine": "", "variables": {}}
            else:
                meta = json.loads(pl.read_parquet_metadata(path)["flushsim.recording"])
                series = pl.read_parquet(path)
        except (pl.exceptions.PolarsError, KeyError, ValueError, OSError) as exc:
            raise ValueError(f"{path} is not a recording {what} ({first_line(exc)})") from None
        problem = _meta_problem(meta) or (
            None if "time_s" in series.columns else "no time_s column"
        )
        if problem:
            raise ValueError(f"{path} is not a recording {what} ({problem})")
        return cls(series=series, **{k: meta[k] for k in _META_TYPES if k in meta})


# metadata key -> its type; the first three are required
_META_TYPES: dict[str, type | tuple[type, ...]] = {
    "server_version": str,
    "engine": str,
    "variables": dict,
    "reconnects": int,
    "interval_s": (int, float),
    "started_at": (int, float),
    "ended": str,
}


def _meta_problem(meta: object) -> str | None:
    """What is wrong with a recording's metadata, or None."""
    if not isinstance(meta, dict):
        return f"its metadata is a {type(meta).__name__}, not a mapping"
    for key, kind in _META_TYPES.items():
        if key not in meta:
            if key in ("server_version", "engine", "variables"):
                return f"no {key} in its metadata"
            continue
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"its {key} is {value!r:.40}, not a {getattr(kind, '__name__', 'number')}"
    variables = meta["variables"]
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items()):
        return "its variables are not all name -> text"
    interval = meta.get("interval_s", 1.0)
    if not (math.isfinite(interval) and interval > 0):
        return f"its interval_s is {interval!r}, not a positive number of seconds"
    if meta.get("reconnects", 0) < 0:
        return f"its reconnects is {meta['reconnects']}, not a count"
    return None


def _csv_interval(series: pl.DataFrame) -> float:
    """A CSV file's sampling interval: the smallest step of time_s (1 s if it cannot tell)."""
    if "time_s" not in series.columns or not series["time_s"].dtype.is_numeric():
        return 1.0
    steps = series["time_s"].cast(pl.Float64).diff().drop_nulls()
    steps = steps.filter(steps > 0)
    return float(steps.min()) if steps.len() else 1.0


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:120]}" if text else type(exc).__name__

"""Record a running MySQL 8.0 / MariaDB server once per second into simulate()'s columns.

`record()` samples `SHOW GLOBAL STATUS` and `information_schema.INNODB_METRICS` at whole
multiples of `interval_s` after a baseline sample, and reads `SHOW GLOBAL VARIABLES` once at the
start. The series follows flushsim.run's conventions: gauges are the values sampled at the end of
each second, counters are per-second deltas, and row k covers the second that ends at
`time_s` = k + 1. A column is present only when the server reports its quantity; a missed sample
(lost connection) leaves a row of nulls, and a counter that went backwards (server restart) is
null for that second.

Where each column comes from (first source the server has wins; S = SHOW GLOBAL STATUS,
M = INNODB_METRICS, read only where the metric is enabled):

- pool gauges: buffer_pool_pages_total / _free / _data / _dirty ← S Innodb_buffer_pool_pages_*;
  buffer_pool_pages_old ← S Innodb_buffer_pool_pages_old (MariaDB only).
- redo gauges: log_lsn_current ← S Innodb_lsn_current (MariaDB) or M; log_lsn_last_checkpoint
  ← S Innodb_lsn_last_checkpoint (MariaDB) or M; log_lsn_checkpoint_age ← S
  Innodb_checkpoint_age (MariaDB) or M; log_max_modified_age_sync ← S Innodb_checkpoint_max_age
  (MariaDB) or M (MySQL); log_max_modified_age_async ← M.
- adaptive-flushing gauges buffer_flush_n_to_flush_requested, _pct_for_dirty, _pct_for_lsn,
  _avg_page_rate, _lsn_avg_rate ← M (disabled by default on both servers).
- flushing counters: buffer_LRU_batch_flush_total_pages / _evict_total_pages ← S
  Innodb_buffer_pool_pages_LRU_flushed / _LRU_freed (MariaDB) or M; buffer_LRU_batch_scanned,
  buffer_LRU_search_scanned, buffer_flush_{adaptive,background,sync,batch}_total_pages ← M
  (disabled by default);
  buffer_LRU_single_flush_failure_count, buffer_LRU_get_free_waits ← M (MySQL only);
  buffer_pool_wait_free ← S Innodb_buffer_pool_wait_free; innodb_dblwr_pages_written /
  innodb_dblwr_writes ← S Innodb_dblwr_*; log_writes ← S Innodb_log_writes.
- work counters: buffer_pool_read_requests / buffer_pool_reads ← S Innodb_buffer_pool_*;
  buffer_pages_made_young / _not_made_young ← S Innodb_buffer_pool_pages_made_(not_)young;
  dml_reads ← S Innodb_rows_read (MySQL) or S Rows_read (MariaDB: rows read by any engine,
  user tables only); dml_updates ← S Innodb_rows_updated (MySQL) or S Handler_update (MariaDB:
  row updates by any engine). Both servers count the rows an UPDATE reads in dml_reads too.
  sim_tps ← S Handler_commit (one per committed statement transaction, read-only ones included,
  as the simulator counts them); trx_rw_commits ← M (disabled by default).
- MariaDB runs also carry run.MARIADB_STATUS's names (copies of the S values above), as
  simulate() does.
- `Uptime` ← S Uptime (a gauge, s since the server started; not a simulate() column): a
  restart shows as Uptime going back, which replay() needs to know.
- Never present: the iostat columns (r_s … util_pct, sim_fsyncs: the device's, record them with
  iostat) and the simulator's own `sim_` quantities other than sim_tps.

Safety: only SELECT and SHOW statements run (`check_read_only`); the one exception,
`SET GLOBAL innodb_monitor_enable/disable`, runs only with `enable_monitors=True`, enables only
the disabled metrics a column needs, and disables them again at the end (also on Ctrl-C,
SIGTERM and SIGHUP, which end a recording like Ctrl-C; not on SIGKILL). The password is looked
up in this order: the `password` argument (Python only), `MYSQL_PWD`, the option file's
[client] section, a prompt when stdin is a terminal. It is never put into anything the recorder
formats: an error is shown by its code and the recorder's own words, and of SHOW GLOBAL
VARIABLES only the variables that describe the server's flushing are kept (`kept_variable`),
none of which holds a credential.

With `out`, the recording is written as it goes: the file is rewritten atomically every few
seconds (`SAVE_EVERY_S`), so a recorder killed outright loses at most those seconds, and the
file says how the recording ended (`Recording.ended`).
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..outputs import check_output
from ..params import FlushsimWarning
from ..run import FLOAT_COLUMNS, MARIADB_STATUS
from ..schema import COLUMNS
from .login import Login, opener, read_option_file, resolve_password
from .recording import COMPLETE, IN_PROGRESS, LOST, REFUSED, SUFFIXES, Recording, first_line
from .versions import engine_and_note as _engine_and_note

__all__ = [
    "Login",
    "Recording",
    "RecorderError",
    "RecorderWarning",
    "WriteRefused",
    "check_read_only",
    "check_timing",
    "engine_for_version",
    "exit_status",
    "kept_variable",
    "read_option_file",
    "record",
    "resolve_password",
]

GAUGE, COUNTER = "gauge", "counter"
_S, _M = "status", "metric"

# column -> (kind, sources in order of preference: (where, name))
SOURCES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "buffer_pool_pages_total": (
        GAUGE,
        ((_S, "Innodb_buffer_pool_pages_total"), (_M, "buffer_pool_pages_total")),
    ),
    "buffer_pool_pages_free": (
        GAUGE,
        ((_S, "Innodb_buffer_pool_pages_free"), (_M, "buffer_pool_pages_free")),
    ),
    "buffer_pool_pages_data": (
        GAUGE,
        ((_S, "Innodb_buffer_pool_pages_data"), (_M, "buffer_pool_pages_data")),
    ),
    "buffer_pool_pages_dirty": (
        GAUGE,
        ((_S, "Innodb_buffer_pool_pages_dirty"), (_M, "buffer_pool_pages_dirty")),
    ),
    "buffer_pool_pages_old": (GAUGE, ((_S, "Innodb_buffer_pool_pages_old"),)),
    "buffer_LRU_batch_flush_total_pages": (
        COUNTER,
        (
            (_S, "Innodb_buffer_pool_pages_LRU_flushed"),
            (_M, "buffer_LRU_batch_flush_total_pages"),
        ),
    ),
    "buffer_LRU_batch_evict_total_pages": (
        COUNTER,
        ((_S, "Innodb_buffer_pool_pages_LRU_freed"), (_M, "buffer_LRU_batch_evict_total_pages")),
    ),
    "buffer_LRU_batch_scanned": (COUNTER, ((_M, "buffer_LRU_batch_scanned"),)),
    "buffer_LRU_search_scanned": (COUNTER, ((_M, "buffer_LRU_search_scanned"),)),
    "buffer_flush_adaptive_total_pages": (COUNTER, ((_M, "buffer_flush_adaptive_total_pages"),)),
    "buffer_flush_background_total_pages": (
        COUNTER,
        ((_M, "buffer_flush_background_total_pages"),),
    ),
    "buffer_flush_sync_total_pages": (COUNTER, ((_M, "buffer_flush_sync_total_pages"),)),
    "buffer_flush_batch_total_pages": (COUNTER, ((_M, "buffer_flush_batch_total_pages"),)),
    "buffer_LRU_single_flush_failure_count": (
        COUNTER,
        ((_M, "buffer_LRU_single_flush_failure_count"),),
    ),
    "buffer_LRU_get_free_waits": (COUNTER, ((_M, "buffer_LRU_get_free_waits"),)),
    "buffer_pool_wait_free": (
        COUNTER,
        ((_S, "Innodb_buffer_pool_wait_free"), (_M, "buffer_pool_wait_free")),
    ),
    "innodb_dblwr_pages_written": (
        COUNTER,
        ((_S, "Innodb_dblwr_pages_written"), (_M, "innodb_dblwr_pages_written")),
    ),
    "innodb_dblwr_writes": (
        COUNTER,
        ((_S, "Innodb_dblwr_writes"), (_M, "innodb_dblwr_writes")),
    ),
    "buffer_flush_n_to_flush_requested": (GAUGE, ((_M, "buffer_flush_n_to_flush_requested"),)),
    "buffer_flush_pct_for_dirty": (GAUGE, ((_M, "buffer_flush_pct_for_dirty"),)),
    "buffer_flush_pct_for_lsn": (GAUGE, ((_M, "buffer_flush_pct_for_lsn"),)),
    "buffer_flush_avg_page_rate": (GAUGE, ((_M, "buffer_flush_avg_page_rate"),)),
    "buffer_flush_lsn_avg_rate": (GAUGE, ((_M, "buffer_flush_lsn_avg_rate"),)),
    "log_lsn_current": (GAUGE, ((_S, "Innodb_lsn_current"), (_M, "log_lsn_current"))),
    "log_lsn_last_checkpoint": (
        GAUGE,
        ((_S, "Innodb_lsn_last_checkpoint"), (_M, "log_lsn_last_checkpoint")),
    ),
    "log_lsn_checkpoint_age": (
        GAUGE,
        ((_S, "Innodb_checkpoint_age"), (_M, "log_lsn_checkpoint_age")),
    ),
    "log_max_modified_age_async": (GAUGE, ((_M, "log_max_modified_age_async"),)),
    "log_max_modified_age_sync": (
        GAUGE,
        ((_S, "Innodb_checkpoint_max_age"), (_M, "log_max_modified_age_sync")),
    ),
    "dml_reads": (COUNTER, ((_S, "Innodb_rows_read"), (_M, "dml_reads"), (_S, "Rows_read"))),
    "dml_updates": (
        COUNTER,
        ((_S, "Innodb_rows_updated"), (_M, "dml_updates"), (_S, "Handler_update")),
    ),
    "buffer_pool_read_requests": (
        COUNTER,
        ((_S, "Innodb_buffer_pool_read_requests"), (_M, "buffer_pool_read_requests")),
    ),
    "buffer_pool_reads": (
        COUNTER,
        ((_S, "Innodb_buffer_pool_reads"), (_M, "buffer_pool_reads")),
    ),
    "buffer_pages_made_young": (COUNTER, ((_S, "Innodb_buffer_pool_pages_made_young"),)),
    "buffer_pages_not_made_young": (
        COUNTER,
        ((_S, "Innodb_buffer_pool_pages_made_not_young"),),
    ),
    "sim_tps": (COUNTER, ((_S, "Handler_commit"),)),
    "log_writes": (COUNTER, ((_S, "Innodb_log_writes"), (_M, "log_writes"))),
    "trx_rw_commits": (COUNTER, ((_M, "trx_rw_commits"),)),
}
assert set(SOURCES) <= set(COLUMNS), set(SOURCES) - set(COLUMNS)
# the server's own quantities that are not simulate() columns
SERVER_SOURCES = {"Uptime": (GAUGE, ((_S, "Uptime"),))}

# Of SHOW GLOBAL VARIABLES, what describes the server's flushing (what config.read_variables
# reads): no credential-holding variable (wsrep_sst_auth, init_connect, ...) is kept.
_KEPT_PREFIXES = ("innodb_", "version")
_KEPT_NAMES = frozenset(
    {"log_bin", "sync_binlog", "max_connections", "performance_schema", "large_pages"}
)
MIN_INTERVAL_S, MAX_INTERVAL_S = 0.1, 3600.0
MAX_SECONDS = 86_400  # a day a file; a longer watch is recorded as several
SAVE_EVERY_S = 5.0  # the file is rewritten at least this often while recording (s)
_SAVE_SHARE = 0.02  # ... and writing takes at most this share of the time
_WAKE_S = 0.2  # a stop request is noticed within this long (s)

# pymysql / MySQL client error codes of a connection that is gone (not of a refused statement)
_LOST_CODES = frozenset({1053, 1927, 2002, 2003, 2006, 2013, 2055, 4031})
# about 10 s of reconnect attempts before giving up (s)
_BACKOFF_S = (0.5, 1.0, 1.5, 2.0, 2.5, 2.5)
_NAME = re.compile(r"[A-Za-z0-9_]+")
_READ_ONLY = re.compile(r"\s*(SELECT|SHOW)\s", re.IGNORECASE)
_WRITE_HINTS = re.compile(
    r";|\bINTO\b|\bFOR\s+UPDATE\b|\bFOR\s+SHARE\b|\bLOCK\s+IN\s+SHARE\b", re.IGNORECASE
)
_MONITOR_SWITCH = re.compile(r"SET GLOBAL innodb_monitor_(enable|disable) = '[A-Za-z0-9_]+'")

# pymysql / server error codes the recorder explains in its own words (it never formats the
# driver's message, so nothing the driver puts in it is shown)
_ERROR_TEXT = {
    1040: "the server has too many connections",
    1044: "access denied to the database",
    1045: "access denied: wrong user or password",
    1130: "this host is not allowed to connect",
    1142: "a command was denied to this login",
    1227: "access denied: the login lacks a privilege (PROCESS to read INNODB_METRICS, "
    "SUPER for --enable-monitors)",
    1226: "the login has used up its connections",
    2002: "cannot connect through the socket",
    2003: "nothing answers at that address and port",
    2005: "unknown server host",
    2006: "the server has gone away",
    2013: "lost the connection during a query",
}

# the recorder's clock and sleep, module attributes so that tests can replace them
_clock = time.monotonic
_sleep = time.sleep


class RecorderWarning(FlushsimWarning):
    """The recording is incomplete or approximate (lost server, unreadable metrics)."""


class RecorderError(ConnectionError):
    """The server could not be reached or refused the recorder's login."""


class WriteRefused(RuntimeError):
    """A statement outside the recorder's read-only whitelist was about to run."""


# ---------------------------------------------------------------- small pure helpers


def engine_for_version(version: str) -> str:
    """Flushsim's engine name for a server `version` string (`config.engine_for_version`).

    A server outside the modelled releases (MySQL 9.x, MariaDB 10.5) gets the nearest engine
    and a warning.

    Raises:
        ValueError: the string holds no x.y.z version.
    """
    text = version.removeprefix("5.5.5-")  # MariaDB's handshake prefix for old clients
    engine, note = _engine_and_note(text)
    if engine is None:
        raise ValueError(f"cannot read a server version from {version!r}")
    if "modelled as" in note:
        _warn(f"{note}: recorded as {engine}")
    return engine


def kept_variable(name: str) -> bool:
    """Whether the recorder keeps this SHOW GLOBAL VARIABLES entry (innodb_*, version*, ...)."""
    low = name.lower()
    return low.startswith(_KEPT_PREFIXES) or low in _KEPT_NAMES


def check_timing(seconds: float, interval_s: float) -> int:
    """The rows a recording of `seconds` wall seconds, one sample every `interval_s`, takes.

    Raises:
        ValueError: either is not a finite number in its range (one line, naming both).
    """
    numbers = all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
        for x in (seconds, interval_s)
    )
    if (
        not numbers
        or not MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S
        or not interval_s <= seconds <= MAX_SECONDS
    ):
        raise ValueError(
            f"--seconds {seconds!r} --interval {interval_s!r}: the interval must be "
            f"{MIN_INTERVAL_S:g} to {MAX_INTERVAL_S:g} s and the recording last from one "
            f"interval to {MAX_SECONDS} s (wall seconds)"
        )
    return int(seconds / interval_s + 1e-9)


def exit_status(ended: str) -> int:
    """The exit status for a recording that ended so.

    0 complete, 128 + the signal that interrupted it, 1 when the server cut it short.
    """
    if ended == COMPLETE:
        return 0
    if ended.startswith("interrupted by "):
        return 128 + signal.Signals[ended.removeprefix("interrupted by ")].value
    return 1


def _interrupted(signum: int) -> str:
    return f"interrupted by {signal.Signals(signum).name}"


def _describe(exc: BaseException) -> str:
    """An error in the recorder's words: its code and what it means, never the driver's text."""
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    if code in _ERROR_TEXT:
        return f"error {code}: {_ERROR_TEXT[code]}"
    if code is not None:
        return f"error {code} ({type(exc).__name__}; see the server's error reference)"
    return type(exc).__name__


def check_read_only(sql: str, *, allow_monitor_switch: bool = False) -> None:
    """Refuse any statement but a single SELECT or SHOW (and, if allowed, a monitor switch).

    Raises:
        WriteRefused: the statement could change the server.
    """
    if allow_monitor_switch and _MONITOR_SWITCH.fullmatch(sql):
        return
    if not _READ_ONLY.match(sql) or _WRITE_HINTS.search(sql):
        raise WriteRefused(f"the recorder runs only SELECT and SHOW statements, not: {sql[:80]}")


def _warn(message: str) -> None:
    warnings.warn(message, RecorderWarning, stacklevel=3)


def _number(value: Any) -> int | float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    text = value.decode() if isinstance(value, bytes) else str(value).strip()
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _is_lost(exc: BaseException) -> bool:
    """Whether exc means the connection is gone (retry) rather than a refused statement."""
    if isinstance(exc, OSError | EOFError):
        return True
    name = type(exc).__name__
    if name == "InterfaceError":
        return True
    if name == "OperationalError":
        code = exc.args[0] if exc.args else None
        return code in _LOST_CODES or not isinstance(code, int)
    return False


def _is_db_error(exc: BaseException) -> bool:
    """A DB-API error raised by the server for one statement (no privilege, unknown table)."""
    names = {"OperationalError", "ProgrammingError", "InternalError", "DatabaseError"}
    return type(exc).__name__ in names and not _is_lost(exc)


# ---------------------------------------------------------------- talking to the server


def _query(conn, sql: str, *, allow_monitor_switch: bool = False) -> tuple[list[str], list]:
    """Run one whitelisted statement; its column names and rows."""
    check_read_only(sql, allow_monitor_switch=allow_monitor_switch)
    cur = conn.cursor()
    try:
        cur.execute(sql)
        names = [d[0] for d in (cur.description or ())]
        return names, list(cur.fetchall())
    finally:
        cur.close()


def _name_value(conn, sql: str) -> dict[str, str]:
    _, rows = _query(conn, sql)
    return {str(r[0]): "" if r[1] is None else str(r[1]) for r in rows}


def _metric_states(conn, names) -> dict[str, tuple[Any, bool]]:
    """INNODB_METRICS rows for names: lower-case name -> (COUNT, enabled)."""
    names = sorted(names)
    if not names:
        return {}
    assert all(_NAME.fullmatch(n) for n in names)
    listed = ", ".join(f"'{n}'" for n in names)
    cols, rows = _query(
        conn, f"SELECT * FROM information_schema.INNODB_METRICS WHERE NAME IN ({listed})"
    )
    idx = {c.upper(): i for i, c in enumerate(cols)}
    out = {}
    for r in rows:
        if "ENABLED" in idx:  # MariaDB: 1 / 0
            enabled = bool(_number(r[idx["ENABLED"]]))
        elif "STATUS" in idx:  # MySQL: 'enabled' / 'disabled'
            enabled = str(r[idx["STATUS"]]).lower() == "enabled"
        else:
            enabled = True
        out[str(r[idx["NAME"]]).lower()] = (r[idx["COUNT"]], enabled)
    return out


def _switch_monitor(conn, name: str, on: bool) -> None:
    assert _NAME.fullmatch(name)
    verb = "enable" if on else "disable"
    _query(conn, f"SET GLOBAL innodb_monitor_{verb} = '{name}'", allow_monitor_switch=True)


@dataclass
class _Plan:
    """Which source feeds each column, fixed at the start of the recording."""

    sources: dict[str, tuple[str, str]]  # column -> (where, name)
    kinds: dict[str, str]  # column -> GAUGE / COUNTER
    metrics: tuple[str, ...]  # lower-case INNODB_METRICS names to read each sample


def _plan(status: Mapping[str, str], metrics: Mapping[str, tuple[Any, bool]], engine: str):
    sources, kinds = {}, {}
    for column, (kind, options) in SOURCES.items():
        for where, name in options:
            if (where == _S and name.lower() in status) or (
                where == _M and metrics.get(name.lower(), (None, False))[1]
            ):
                sources[column], kinds[column] = (where, name), kind
                break
    if engine.startswith("mariadb"):
        for name, common in MARIADB_STATUS.items():
            if name.lower() in status:
                sources[name], kinds[name] = (_S, name), SOURCES[common][0]
    for column, (kind, ((where, name),)) in SERVER_SOURCES.items():
        if name.lower() in status:
            sources[column], kinds[column] = (where, name), kind
    wanted = tuple(sorted({n.lower() for w, n in sources.values() if w == _M}))
    return _Plan(sources, kinds, wanted)


def _monitors_to_enable(status: Mapping[str, str], metrics: Mapping[str, tuple[Any, bool]]):
    """Disabled metrics that would feed a column no enabled source feeds."""
    out = []
    for _, options in SOURCES.values():
        for where, name in options:
            key = name.lower()
            if (where == _S and key in status) or (where == _M and metrics.get(key, (0, 0))[1]):
                break
            if where == _M and key in metrics:
                out.append(key)
                break
    return sorted(set(out))


def _sample(conn, plan: _Plan) -> dict[str, int | float | None]:
    status = {k.lower(): v for k, v in _name_value(conn, "SHOW GLOBAL STATUS").items()}
    metrics = _metric_states(conn, plan.metrics) if plan.metrics else {}
    out = {}
    for column, (where, name) in plan.sources.items():
        if where == _S:
            out[column] = _number(status.get(name.lower()))
        else:
            count, enabled = metrics.get(name.lower(), (None, False))
            out[column] = _number(count) if enabled else None
    return out


def _pymysql_connect(**kwargs):
    try:
        import pymysql
    except ImportError:
        raise RecorderError(
            "recording needs pymysql: pip install 'flushsim[live]' (or pass connect=...)"
        ) from None
    return pymysql.connect(**kwargs)


# ---------------------------------------------------------------- the series


class _Rows:
    """The series as it grows, one list per column; row k covers the tick k-1 -> k."""

    def __init__(self, plan: _Plan, interval_s: float):
        self.plan = plan
        self.interval_s = interval_s
        self.order = [
            c
            for group in (COLUMNS, MARIADB_STATUS, SERVER_SOURCES)
            for c in group
            if c in plan.sources
        ]
        self.data: dict[str, list] = {c: [] for c in ("time_s", *self.order)}
        self.floats = {c for c in self.order if c in FLOAT_COLUMNS}
        self.before: dict | None = None  # the sample of the last tick, None if it was missed
        self.height = 0

    def start(self, baseline: dict) -> None:
        """The sample at tick 0, which makes no row."""
        self.before = baseline

    def add(self, k: int, sample: dict) -> dict[str, Any]:
        """The row of tick k, after null rows for the ticks missed since the last one."""
        while self.height + 1 < k:
            self._append(self.height + 1, None)
        return self._append(k, sample)

    def _append(self, k: int, sample: dict | None) -> dict[str, Any]:
        row: dict[str, Any] = {"time_s": _time(k, self.interval_s)}
        for column in self.order:
            kind = self.plan.kinds[column]
            row[column] = value = _value(kind, column, sample, self.before, self.interval_s)
            self.data[column].append(value)
            if isinstance(value, float):
                self.floats.add(column)
        self.data["time_s"].append(row["time_s"])
        self.before = sample
        self.height += 1
        return row

    def frame(self) -> pl.DataFrame:
        """The rows so far as simulate()'s frame (Int64 unless a column holds fractions)."""
        time_type = pl.Int64 if float(self.interval_s).is_integer() else pl.Float64
        return pl.DataFrame(
            [pl.Series("time_s", self.data["time_s"], dtype=time_type)]
            + [
                pl.Series(c, self.data[c], dtype=pl.Float64 if c in self.floats else pl.Int64)
                for c in self.order
            ]
        )


def _time(k: int, interval_s: float) -> int | float:
    """time_s of tick k: whole seconds stay integers, as in simulate()."""
    t = k * interval_s
    return int(t) if float(interval_s).is_integer() else t


def _value(kind: str, column: str, now: dict | None, before: dict | None, interval_s: float):
    if now is None or now.get(column) is None:
        return None
    if kind == GAUGE:
        return now[column]
    if before is None or before.get(column) is None:
        return None
    delta = now[column] - before[column]
    if delta < 0:  # the counter restarted (server restart, monitor reset)
        return None
    return delta if interval_s == 1 else delta / interval_s


# ---------------------------------------------------------------- stopping and saving


class _StopRequest:
    """Ctrl-C, SIGTERM and SIGHUP ask the recording to stop (a second one stops it at once).

    Installed only in the main thread (the only one Python delivers signals to); the previous
    handlers come back on exit.
    """

    SIGNALS = tuple(
        getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
    )

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _StopRequest:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def _handle(self, signum: int, frame) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum


def _pause(seconds: float, stop: _StopRequest) -> bool:
    """Sleep `seconds`, waking early on a stop request; False if the recording should stop."""
    end = _clock() + max(0.0, seconds)
    while stop.signum is None:
        left = end - _clock()
        if left <= 0:
            return True
        _sleep(min(left, _WAKE_S))
    return False


class _Saver:
    """Rewrites the output file while recording, so that a killed recorder leaves its rows."""

    def __init__(self, path: Path):
        self.path = path
        self.due = -math.inf
        self.failed = False

    def maybe(self, recording: Callable[[], Recording]) -> None:
        """Write `recording()` if the last write is old enough."""
        if _clock() < self.due:
            return
        began = time.perf_counter()
        try:
            recording().write(self.path, force=True)
        except (OSError, ValueError) as exc:  # a full disk, a removed folder: try at the end
            if not self.failed:
                _warn(f"cannot write {self.path} while recording ({first_line(exc)})")
            self.failed = True
        took = time.perf_counter() - began
        self.due = _clock() + max(SAVE_EVERY_S, took / _SAVE_SHARE)


# ---------------------------------------------------------------- record()


def record(
    login: Login | None = None,
    *,
    seconds: float = 60,
    interval_s: float = 1.0,
    enable_monitors: bool = False,
    out: str | Path | None = None,
    force: bool = False,
    connect: Callable[..., Any] | None = None,
    on_sample: Callable[[dict[str, Any]], None] | None = None,
) -> Recording:
    """Sample a running MySQL 8.0 / MariaDB server every `interval_s` for `seconds`.

    Args:
        login: where to connect and as whom (`Login`; None: 127.0.0.1:3306, the user and
            password from MYSQL_PWD, ~/.my.cnf or a prompt).
        seconds: wall seconds to record (`interval_s` to MAX_SECONDS).
        interval_s: sampling interval (s, MIN_INTERVAL_S to MAX_INTERVAL_S); samples are taken
            at whole multiples of it after the baseline, so the schedule does not drift.
        enable_monitors: allow `SET GLOBAL innodb_monitor_enable` for the disabled
            INNODB_METRICS counters that columns need (disabled again at the end). Without it
            no statement but SELECT / SHOW is sent.
        out: FILE.parquet or FILE.csv, checked before connecting and written as the recording
            goes (see the module docstring).
        force: replace an existing `out`.
        connect: factory returning a DB-API connection, called with pymysql's keyword
            arguments (host, port, user, password, unix_socket, ...); default pymysql.connect.
        on_sample: called with each finished row (a dict of column -> value) as it arrives.

    Returns:
        The Recording, also on Ctrl-C / SIGTERM / SIGHUP or when the server stays away after
        about 10 s of reconnect attempts (a RecorderWarning): the rows sampled so far, and
        `ended` says why.

    Raises:
        ValueError: `seconds` or `interval_s` out of range, or `out` unusable (before
            connecting).
        RecorderError: the first connection failed (the message never holds the password).
    """
    rows_wanted = check_timing(seconds, interval_s)
    path = None if out is None else check_output(out, suffixes=SUFFIXES, force=force)
    open_connection, where = opener(login or Login(), connect or _pymysql_connect)
    del login  # from here on only open_connection holds the password
    with _StopRequest() as stop:
        try:
            conn = open_connection()
        except RecorderError:
            raise
        except Exception as exc:
            # from None: the original exception (and its traceback's frames) stay out of sight
            raise RecorderError(f"cannot connect to {where}: {_describe(exc)}") from None
        session = _Session(conn, open_connection)
        try:
            try:
                session.prepare(enable_monitors, interval_s)
            except Exception as exc:
                if not (_is_lost(exc) or _is_db_error(exc)):
                    raise
                raise RecorderError(f"cannot read {where}'s variables: {_describe(exc)}") from None
            saver = None if path is None else _Saver(path)
            ended = session.run(rows_wanted, stop, on_sample, saver)
        finally:
            try:
                session.close()
            except KeyboardInterrupt:  # a second signal: the rows are still written
                _warn(
                    "stopped before switching off the INNODB_METRICS counters it enabled: "
                    + ", ".join(session.enabled_by_us)
                )
        rec = session.recording(ended)
        if path is not None:
            rec.write(path, force=True)  # checked at the start; the file there is ours
    return rec


class _Session:
    """One recording: the connection, what is read each tick, and the rows so far."""

    def __init__(self, conn, open_connection: Callable[[], Any]):
        self.conn = conn
        self.open_connection = open_connection
        self.enabled_by_us: list[str] = []
        self.reconnects = 0
        self.started_at = 0.0

    def prepare(self, enable_monitors: bool, interval_s: float) -> None:
        """Read the variables, pick each column's source, enable the monitors if allowed."""
        conn = self.conn
        raw = _name_value(conn, "SHOW GLOBAL VARIABLES")
        self.variables = {k: v for k, v in raw.items() if kept_variable(k)}
        self.version = raw.get("version", "")
        self.engine = engine_for_version(self.version)
        status = {k.lower(): v for k, v in _name_value(conn, "SHOW GLOBAL STATUS").items()}
        every_metric = {n.lower() for _, opts in SOURCES.values() for w, n in opts if w == _M}
        try:
            metrics = _metric_states(conn, every_metric)
        except Exception as exc:
            if not _is_db_error(exc):
                raise
            _warn(f"INNODB_METRICS is not readable ({_describe(exc)}): columns absent")
            metrics = {}
        if enable_monitors:
            for name in _monitors_to_enable(status, metrics):
                try:
                    _switch_monitor(conn, name, True)
                except Exception as exc:
                    if not _is_db_error(exc):
                        raise
                    _warn(f"cannot enable INNODB_METRICS counters ({_describe(exc)})")
                    break
                self.enabled_by_us.append(name)
            if self.enabled_by_us:
                metrics = _metric_states(conn, every_metric)
        self.plan = _plan(status, metrics, self.engine)
        self.rows = _Rows(self.plan, interval_s)

    def run(self, rows_wanted: int, stop: _StopRequest, on_sample, saver: _Saver | None) -> str:
        """Sample until `rows_wanted` rows, a stop request or a lost server; how it ended."""
        interval_s = self.rows.interval_s
        try:
            self.started_at = time.time()
            t0 = _clock()
            try:
                self.rows.start(_sample(self.conn, self.plan))
            except Exception as exc:
                if not (_is_lost(exc) or _is_db_error(exc)):
                    raise
                _warn(f"lost the server before the first sample ({_describe(exc)})")
                return LOST
            k = _next_tick(t0, interval_s, 0)
            while k <= rows_wanted:
                if not _pause(t0 + k * interval_s - _clock(), stop):
                    break
                try:
                    sample = _sample(self.conn, self.plan)
                except Exception as exc:
                    if _is_db_error(exc):
                        _warn(
                            f"the server refused a sample at {k * interval_s:g} s "
                            f"({_describe(exc)}): kept the {self.rows.height} rows sampled"
                        )
                        return REFUSED
                    if not _is_lost(exc):
                        raise
                    if not self._reconnect(stop):
                        if stop.signum is not None:
                            break
                        _warn(
                            f"lost the server at {k * interval_s:g} s and could not reconnect:"
                            f" kept the {self.rows.height} rows sampled so far"
                        )
                        return LOST
                else:
                    row = self.rows.add(k, sample)
                    if on_sample is not None:
                        on_sample(row)
                    if saver is not None:
                        saver.maybe(lambda: self.recording(IN_PROGRESS))
                k = _next_tick(t0, interval_s, k)
        except KeyboardInterrupt:  # a second signal, or Ctrl-C outside the main thread
            return _interrupted(stop.signum or signal.SIGINT)
        return COMPLETE if stop.signum is None else _interrupted(stop.signum)

    def _reconnect(self, stop: _StopRequest) -> bool:
        """A new connection after a lost one, within about 10 s of backoff."""
        _close(self.conn)
        self.conn = None
        for delay in _BACKOFF_S:
            if not _pause(delay, stop):
                return False
            try:
                self.conn = self.open_connection()
            except Exception as exc:
                if not (_is_lost(exc) or _is_db_error(exc)):
                    raise
                continue
            self.reconnects += 1
            return True
        return False

    def close(self) -> None:
        """Disable the monitors this recording enabled (on a new connection if need be)."""
        left = list(self.enabled_by_us)
        for attempt in range(2):
            if not left:
                break
            if self.conn is None or attempt:
                _close(self.conn)
                try:
                    self.conn = self.open_connection()
                except Exception:  # the server is gone: warned below
                    self.conn = None
                    break
            try:
                while left:
                    _switch_monitor(self.conn, left[0], False)
                    left.pop(0)
            except Exception:  # a lost connection: one more try on a fresh one
                continue
        if left:
            names = ", ".join(left)
            _warn(
                f"could not disable the INNODB_METRICS counters {names} again: run SET GLOBAL "
                "innodb_monitor_disable = 'NAME' for each as an administrator"
            )
        if self.conn is not None:
            _close(self.conn)
            self.conn = None

    def recording(self, ended: str) -> Recording:
        """The rows so far as a Recording."""
        return Recording(
            series=self.rows.frame(),
            variables=self.variables,
            server_version=self.version,
            engine=self.engine,
            reconnects=self.reconnects,
            interval_s=float(self.rows.interval_s),
            started_at=self.started_at,
            ended=ended,
        )


def _next_tick(t0: float, interval_s: float, k: int) -> int:
    """The tick after k still ahead: a slow sample or a reconnect skips ticks, never drifts."""
    return max(k + 1, math.floor((_clock() - t0) / interval_s) + 1)


def _close(conn) -> None:
    if conn is None:
        return
    try:
        conn.close()
    except Exception:  # already closed or gone: nothing left to release
        pass


# ---------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `python -m flushsim record` (there is deliberately no --password)."""
    parser.add_argument("--host", default="127.0.0.1", help="server address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=3306, help="TCP port (3306)")
    parser.add_argument("--user", help="login (default: the option file's, else yours)")
    parser.add_argument("--socket", help="Unix socket instead of host and port")
    parser.add_argument(
        "--option-file",
        help="my.cnf-style file whose [client] section holds user/password (default ~/.my.cnf);"
        " the password can also come from a prompt, or MYSQL_PWD (visible to the machine's"
        " other users in /proc/PID/environ)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=60.0,
        help=f"wall seconds to record, one interval to {MAX_SECONDS} (60)",
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=1.0,
        help=f"seconds between samples, {MIN_INTERVAL_S:g} to {MAX_INTERVAL_S:g} (1)",
    )
    parser.add_argument(
        "--enable-monitors",
        action="store_true",
        help="enable the disabled INNODB_METRICS counters the columns need (SET GLOBAL "
        "innodb_monitor_enable; disabled again at the end). Without it, read-only",
    )
    parser.add_argument(
        "--out", required=True, help="FILE.parquet or FILE.csv, rewritten every few seconds"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing --out")


def run_command(args: argparse.Namespace) -> int:
    """`python -m flushsim record`: record into --out, print one summary line.

    Returns:
        0 for a complete recording, 128 + the signal that interrupted it (130 Ctrl-C, 143
        SIGTERM, 129 SIGHUP), 1 when a lost server cut it short: the file holds the rows in
        every case.
    """
    progress = _print_progress if sys.stderr.isatty() else None
    login = Login(args.host, args.port, args.user, socket=args.socket, option_file=args.option_file)
    rec = record(
        login,
        seconds=args.seconds,
        interval_s=args.interval,
        enable_monitors=args.enable_monitors,
        out=args.out,
        force=args.force,
        on_sample=progress,
    )
    how = "" if rec.ended == COMPLETE else f" ({rec.ended})"
    print(
        f"recorded {rec.series.height} rows x {rec.series.width} columns from "
        f"{rec.server_version} ({rec.engine}, {rec.reconnects} reconnects) to {args.out}{how}"
    )
    return exit_status(rec.ended)


def _print_progress(row: Mapping[str, Any]) -> None:
    shown = ("buffer_pool_pages_dirty", "buffer_pool_pages_free", "dml_updates", "sim_tps")
    parts = [f"{c}={row[c]}" for c in shown if row.get(c) is not None]
    print(f"t={row['time_s']:g} s " + " ".join(parts), file=sys.stderr)

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
- Never present: the iostat columns (r_s … util_pct, sim_fsyncs: the device's, record them with
  iostat) and the simulator's own `sim_` quantities other than sim_tps.

Safety: only SELECT and SHOW statements run (`check_read_only`); the one exception,
`SET GLOBAL innodb_monitor_enable/disable`, runs only with `enable_monitors=True`, enables only
the disabled metrics a column needs, and disables them again at the end. The password is looked
up in this order: the `password` argument (Python only), `MYSQL_PWD`, the option file's
[client] section, a prompt when stdin is a terminal; it is never printed, logged, put in an
exception message or kept in the Recording.
"""

from __future__ import annotations

import argparse
import getpass
import json
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..kernels.layout import COLUMNS
from ..params import FlushsimWarning
from ..run import FLOAT_COLUMNS, MARIADB_STATUS
from .versions import engine_and_note as _engine_and_note

__all__ = [
    "Recording",
    "RecorderError",
    "RecorderWarning",
    "WriteRefused",
    "check_read_only",
    "engine_for_version",
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

# pymysql / MySQL client error codes of a connection that is gone (not of a refused statement)
_LOST_CODES = frozenset({1053, 1927, 2002, 2003, 2006, 2013, 2055, 4031})
# about 10 s of reconnect attempts before giving up (s)
_BACKOFF_S = (0.5, 1.0, 1.5, 2.0, 2.5, 2.5)
_CONNECT_TIMEOUT_S = 5
_READ_TIMEOUT_S = 10
_OPTION_SECTIONS = frozenset({"client", "client-server", "client-mariadb"})
_NAME = re.compile(r"[A-Za-z0-9_]+")
_READ_ONLY = re.compile(r"\s*(SELECT|SHOW)\s", re.IGNORECASE)
_WRITE_HINTS = re.compile(
    r";|\bINTO\b|\bFOR\s+UPDATE\b|\bFOR\s+SHARE\b|\bLOCK\s+IN\s+SHARE\b", re.IGNORECASE
)
_MONITOR_SWITCH = re.compile(r"SET GLOBAL innodb_monitor_(enable|disable) = '[A-Za-z0-9_]+'")

# the recorder's clock and sleep, module attributes so that tests can replace them
_clock = time.monotonic
_sleep = time.sleep


class RecorderWarning(FlushsimWarning):
    """The recording is incomplete or approximate (lost server, unreadable metrics)."""


class RecorderError(ConnectionError):
    """The server could not be reached or refused the recorder's login."""


class WriteRefused(RuntimeError):
    """A statement outside the recorder's read-only whitelist was about to run."""


class _Secret:
    """A password that does not show itself in repr, str, logs or pickles."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = value

    def reveal(self) -> str | None:
        """The password itself, for the connect call only."""
        return self._value

    def scrub(self, text: str) -> str:
        """Text with every occurrence of the password replaced by ***."""
        return text.replace(self._value, "***") if self._value else text

    def __repr__(self) -> str:
        return "<password hidden>"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a password is not pickled")


@dataclass(frozen=True, repr=False)
class Recording:
    """What `record()` sampled.

    Attributes:
        series: one row per interval, simulate()'s column names and units (see the module
            docstring for the source of each column); `time_s` in s.
        variables: SHOW GLOBAL VARIABLES at the start, name -> value.
        server_version: the server's `version` variable, e.g. "10.11.19-MariaDB-0+deb12u1".
        engine: flushsim's engine name: "mysql-8.0", "mariadb-10.6" or "mariadb-10.11".
        reconnects: connections re-established after a lost one.
        interval_s: sampling interval (s); counters are divided by it.
        started_at: Unix time (s) of the baseline sample, to line up with iostat or logs.
    """

    series: pl.DataFrame
    variables: dict[str, str]
    server_version: str
    engine: str
    reconnects: int = 0
    interval_s: float = 1.0
    started_at: float = 0.0

    def __repr__(self) -> str:
        return (
            f"Recording(engine={self.engine!r}, server_version={self.server_version!r}, "
            f"rows={self.series.height}, columns={self.series.width}, "
            f"reconnects={self.reconnects})"
        )

    def write(self, path: str | Path) -> Path:
        """Write the series to FILE.parquet (with the rest as metadata) or FILE.csv."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".parquet":
            meta = {
                "server_version": self.server_version,
                "engine": self.engine,
                "reconnects": self.reconnects,
                "interval_s": self.interval_s,
                "started_at": self.started_at,
                "variables": self.variables,
            }
            try:
                self.series.write_parquet(path, metadata={"flushsim.recording": json.dumps(meta)})
            except TypeError:  # a polars without metadata=: the series alone
                self.series.write_parquet(path)
                _warn(f"{path}: this polars cannot store the variables in the Parquet file")
        elif suffix == ".csv":
            self.series.write_csv(path)
        else:
            raise ValueError(f"{path}: the recording is written as .parquet or .csv")
        return path

    @classmethod
    def read(cls, path: str | Path) -> Recording:
        """A recording written by `write()` to a .parquet file.

        Raises:
            FileNotFoundError: no such file.
            ValueError: the file is not a recording written by `write()`.
        """
        if not Path(path).is_file():
            raise FileNotFoundError(f"no recording at {path}")
        try:
            meta = json.loads(pl.read_parquet_metadata(path)["flushsim.recording"])
            return cls(series=pl.read_parquet(path), **meta)
        except (pl.exceptions.PolarsError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise ValueError(
                f"{path} is not a recording written by `python -m flushsim record` "
                f"({type(exc).__name__})"
            ) from None


# ---------------------------------------------------------------- small pure helpers


def engine_for_version(version: str) -> str:
    """Flushsim's engine name for a server `version` string (`config.engine_for_version`).

    A server outside the modelled releases (MySQL 8.4, MariaDB 10.5) gets the nearest engine
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


def check_read_only(sql: str, *, allow_monitor_switch: bool = False) -> None:
    """Refuse any statement but a single SELECT or SHOW (and, if allowed, a monitor switch).

    Raises:
        WriteRefused: the statement could change the server.
    """
    if allow_monitor_switch and _MONITOR_SWITCH.fullmatch(sql):
        return
    if not _READ_ONLY.match(sql) or _WRITE_HINTS.search(sql):
        raise WriteRefused(f"the recorder runs only SELECT and SHOW statements, not: {sql[:80]}")


def read_option_file(path: str | Path) -> dict[str, str]:
    """The [client] (and [client-server], [client-mariadb]) options of a my.cnf-style file.

    Minimal parser: `key = value` lines, quoted values, # and ; comments; `!include` lines are
    not followed. Keys are lower case with `-` for `_`.
    """
    out: dict[str, str] = {}
    section = None
    for raw in Path(path).read_text(errors="replace").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;!":
            continue
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower()
            continue
        if section not in _OPTION_SECTIONS:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = value.split("#", 1)[0].strip()  # an unquoted # starts a comment
        out[key.strip().lower().replace("_", "-")] = value
    return out


def resolve_password(
    password: str | None = None,
    option_file: str | Path | None = None,
    *,
    prompt: str = "Password: ",
) -> str | None:
    """The password: the argument, else MYSQL_PWD, else the option file, else a prompt.

    The option file is `option_file` or, if that is None, ~/.my.cnf when it exists. The prompt
    is shown only when stdin is a terminal; otherwise the result is None (no password).

    Raises:
        FileNotFoundError: `option_file` was given and does not exist.
    """
    if password is not None:
        return password
    if "MYSQL_PWD" in os.environ:
        return os.environ["MYSQL_PWD"]
    return _password_from(_options(option_file), prompt)


def _password_from(options: Mapping[str, str], prompt: str) -> str | None:
    """The option file's password, else a prompt on a terminal, else None."""
    if "password" in options:
        return options["password"]
    if sys.stdin is not None and sys.stdin.isatty():
        return getpass.getpass(prompt)
    return None


def _options(option_file: str | Path | None) -> dict[str, str]:
    if option_file is not None:
        path = Path(option_file).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"option file not found: {path}")
        return read_option_file(path)
    default = Path("~/.my.cnf").expanduser()
    return read_option_file(default) if default.is_file() else {}


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


def _series(samples: Mapping[int, dict], plan: _Plan, last: int, interval_s: float) -> pl.DataFrame:
    """Rows 1..last from the samples by tick (tick 0 is the baseline)."""
    ticks = range(1, last + 1)
    data = {"time_s": pl.Series("time_s", [_time(k, interval_s) for k in ticks])}
    order = [c for c in COLUMNS if c in plan.sources] + [
        c for c in MARIADB_STATUS if c in plan.sources
    ]
    for column in order:
        values = [_value(samples, plan.kinds[column], column, k, interval_s) for k in ticks]
        is_int = column not in FLOAT_COLUMNS and all(
            v is None or isinstance(v, int) for v in values
        )
        data[column] = pl.Series(column, values, dtype=pl.Int64 if is_int else pl.Float64)
    return pl.DataFrame(data)


def _time(k: int, interval_s: float) -> int | float:
    """time_s of tick k: whole seconds stay integers, as in simulate()."""
    t = k * interval_s
    return int(t) if float(interval_s).is_integer() else t


def _value(samples, kind: str, column: str, k: int, interval_s: float):
    now = samples.get(k)
    if now is None or now.get(column) is None:
        return None
    if kind == GAUGE:
        return now[column]
    before = samples.get(k - 1)
    if before is None or before.get(column) is None:
        return None
    delta = now[column] - before[column]
    if delta < 0:  # the counter restarted (server restart, monitor reset)
        return None
    return delta if interval_s == 1 else delta / interval_s


def _row(samples, plan: _Plan, k: int, interval_s: float) -> dict[str, Any]:
    row: dict[str, Any] = {"time_s": _time(k, interval_s)}
    for column, kind in plan.kinds.items():
        row[column] = _value(samples, kind, column, k, interval_s)
    return row


# ---------------------------------------------------------------- record()


def record(
    *,
    host: str = "127.0.0.1",
    port: int = 3306,
    user: str | None = None,
    password: str | None = None,
    socket: str | None = None,
    option_file: str | Path | None = None,
    seconds: int = 60,
    interval_s: float = 1.0,
    enable_monitors: bool = False,
    connect: Callable[..., Any] | None = None,
    on_sample: Callable[[dict[str, Any]], None] | None = None,
) -> Recording:
    """Sample a running MySQL 8.0 / MariaDB server every `interval_s` for `seconds` rows.

    Args:
        host: server address (ignored when `socket` is given).
        port: TCP port.
        user: login; None takes `user` from the option file, else the client's default.
        password: the password (Python only; see `resolve_password` for the other sources).
        socket: Unix socket path, instead of host and port.
        option_file: a my.cnf-style file whose [client] section holds user / password;
            None reads ~/.my.cnf when it exists.
        seconds: rows to record (each covers `interval_s` seconds).
        interval_s: sampling interval (s); samples are taken at whole multiples of it after
            the baseline, so the schedule does not drift.
        enable_monitors: allow `SET GLOBAL innodb_monitor_enable` for the disabled
            INNODB_METRICS counters that columns need (disabled again at the end). Without it
            no statement but SELECT / SHOW is sent.
        connect: factory returning a DB-API connection, called with pymysql's keyword
            arguments (host, port, user, password, unix_socket, ...); default pymysql.connect.
        on_sample: called with each finished row (a dict of column -> value) as it arrives.

    Returns:
        The Recording; on Ctrl-C, or when the server stays away after about 10 s of reconnect
        attempts (a RecorderWarning), the rows sampled so far.

    Raises:
        RecorderError: the first connection failed (the message never holds the password).
        ValueError: seconds < 1 or interval_s <= 0.
    """
    if seconds < 1 or not interval_s > 0:
        raise ValueError("record() needs seconds >= 1 and interval_s > 0")
    options = _options(option_file)
    user = user if user is not None else options.get("user")
    where = socket or f"{host}:{port}"
    if password is None:
        password = os.environ.get("MYSQL_PWD")
    if password is None:
        password = _password_from(options, f"Password for {user or ''}@{where}: ")
    secret = _Secret(password)
    del password, options  # from here on only the _Secret holds it
    kwargs: dict[str, Any] = {
        "user": user,
        "connect_timeout": _CONNECT_TIMEOUT_S,
        "read_timeout": _READ_TIMEOUT_S,
        "autocommit": True,
    }
    kwargs.update({"unix_socket": socket} if socket else {"host": host, "port": int(port)})
    factory = connect or _pymysql_connect

    def open_connection():
        return factory(password=secret.reveal() or "", **kwargs)

    try:
        conn = open_connection()
    except RecorderError:
        raise
    except Exception as exc:
        # from None: the original exception (and its traceback's frames) stay out of sight
        raise RecorderError(secret.scrub(f"cannot connect to {where}: {exc}")) from None

    enabled_by_us: list[str] = []
    samples: dict[int, dict] = {}
    reconnects = 0
    last = 0
    try:
        raw = _name_value(conn, "SHOW GLOBAL VARIABLES")
        variables = {k: secret.scrub(v) for k, v in raw.items()}
        version = variables.get("version", "")
        engine = engine_for_version(version)
        status = {k.lower(): v for k, v in _name_value(conn, "SHOW GLOBAL STATUS").items()}
        every_metric = {n.lower() for _, opts in SOURCES.values() for w, n in opts if w == _M}
        try:
            metrics = _metric_states(conn, every_metric)
        except Exception as exc:
            if not _is_db_error(exc):
                raise
            _warn(f"INNODB_METRICS is not readable ({secret.scrub(str(exc))}): columns absent")
            metrics = {}
        if enable_monitors:
            for name in _monitors_to_enable(status, metrics):
                try:
                    _switch_monitor(conn, name, True)
                except Exception as exc:
                    if not _is_db_error(exc):
                        raise
                    _warn(f"cannot enable INNODB_METRICS counters ({secret.scrub(str(exc))})")
                    break
                enabled_by_us.append(name)
            if enabled_by_us:
                metrics = _metric_states(conn, every_metric)
        plan = _plan(status, metrics, engine)

        started_at = time.time()
        t0 = _clock()
        try:
            samples[0] = _sample(conn, plan)
            k = _next_tick(t0, interval_s, 0)
            while k <= seconds:
                _sleep(max(0.0, t0 + k * interval_s - _clock()))
                try:
                    samples[k] = _sample(conn, plan)
                except Exception as exc:
                    if _is_db_error(exc):
                        _warn(
                            f"the server refused a sample at {k * interval_s:g} s "
                            f"({secret.scrub(str(exc))}): kept the {last} rows sampled so far"
                        )
                        break
                    if not _is_lost(exc):
                        raise
                    _close(conn)
                    conn = None
                    conn = _reconnect(open_connection)
                    if conn is None:
                        _warn(
                            f"lost the server at {k * interval_s:g} s and could not reconnect:"
                            f" kept the {last} rows sampled so far"
                        )
                        break
                    reconnects += 1
                else:
                    last = k
                    if on_sample is not None:
                        on_sample(_row(samples, plan, k, interval_s))
                k = _next_tick(t0, interval_s, k)
        except KeyboardInterrupt:
            pass  # Ctrl-C ends the recording; keep what was sampled
    finally:
        if conn is not None:
            for name in enabled_by_us:
                try:
                    _switch_monitor(conn, name, False)
                except Exception:  # best effort: the server may be gone
                    _warn(f"could not disable the INNODB_METRICS counter {name} again")
                    break
            _close(conn)
    return Recording(
        series=_series(samples, plan, last, interval_s),
        variables=variables,
        server_version=version,
        engine=engine,
        reconnects=reconnects,
        interval_s=float(interval_s),
        started_at=started_at,
    )


def _next_tick(t0: float, interval_s: float, k: int) -> int:
    """The tick after k still ahead: a slow sample or a reconnect skips ticks, never drifts."""
    return max(k + 1, math.floor((_clock() - t0) / interval_s) + 1)


def _reconnect(open_connection: Callable[[], Any]):
    """A new connection after a lost one, or None after about 10 s of backoff."""
    for delay in _BACKOFF_S:
        _sleep(delay)
        try:
            return open_connection()
        except Exception as exc:
            if not (_is_lost(exc) or _is_db_error(exc)):
                raise
    return None


def _close(conn) -> None:
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
        " the password can also come from MYSQL_PWD or a prompt",
    )
    parser.add_argument("--seconds", type=int, default=60, help="seconds to record (60)")
    parser.add_argument("--interval", type=float, default=1.0, help="sampling interval, s (1)")
    parser.add_argument(
        "--enable-monitors",
        action="store_true",
        help="enable the disabled INNODB_METRICS counters the columns need (SET GLOBAL "
        "innodb_monitor_enable; disabled again at the end). Without it, read-only",
    )
    parser.add_argument("--out", required=True, help="FILE.parquet or FILE.csv")


def run_command(args: argparse.Namespace) -> int:
    """`python -m flushsim record`: record, write --out, print one summary line."""
    if Path(args.out).suffix.lower() not in (".parquet", ".csv"):
        raise ValueError(f"{args.out}: the recording is written as .parquet or .csv")
    progress = _print_progress if sys.stderr.isatty() else None
    rec = record(
        host=args.host,
        port=args.port,
        user=args.user,
        socket=args.socket,
        option_file=args.option_file,
        seconds=args.seconds,
        interval_s=args.interval,
        enable_monitors=args.enable_monitors,
        on_sample=progress,
    )
    path = rec.write(args.out)
    print(
        f"recorded {rec.series.height} rows x {rec.series.width} columns from "
        f"{rec.server_version} ({rec.engine}, {rec.reconnects} reconnects) to {path}"
    )
    return 0


def _print_progress(row: Mapping[str, Any]) -> None:
    shown = ("buffer_pool_pages_dirty", "buffer_pool_pages_free", "dml_updates", "sim_tps")
    parts = [f"{c}={row[c]}" for c in shown if row.get(c) is not None]
    print(f"t={row['time_s']:g} s " + " ".join(parts), file=sys.stderr)

#!/usr/bin/env python3
"""Record the MariaDB 10.11 reference recordings of data/reference/mariadb-10.11 (issue #7).

Each recording gets its own throw-away server (`flushsim.live.server.PrivateMariaDB`, Debian's
mariadb-server) started with the options listed in `RECORDINGS`, and the same preparation:

1. `innodb_adaptive_flushing = OFF` for the preparation only, so that the page cleaner's
   averages (`page_cleaner_flush_pages_recommendation`'s avg_page_rate, lsn_avg_rate and
   iteration count) are untouched by it and start from zero, as on a freshly started server;
2. `prepare_table`: flushsim_wl.t, TABLE_ROWS rows (id, k, 200-byte pad; ~4,800 pages);
3. the whole pool is written back (`innodb_max_dirty_pages_pct = 0` with io capacities of
   1,000,000 until Innodb_buffer_pool_pages_dirty = 0), so every recording starts from a
   warm, clean pool and a near-zero checkpoint age;
4. the stated options are restored and checked (`SELECT @@GLOBAL....`): setting
   innodb_max_dirty_pages_pct to 0 also lowers innodb_max_dirty_pages_pct_lwm to 0, which
   would silently turn idle flushing off.

Then the scenario:

- idle-*: every row is updated once (`UPDATE ... SET k = k + 1` in transactions of 5,000
  rows, about 1 s), purge is waited for (Innodb_history_list_length = 0), and the idle
  server is recorded: no client statement but the recorder's SELECT / SHOW.
- hotset-*: a fixed-rate update workload starts with the recording and runs through it:
  HOT_THREADS connections together issue HOT_RATE autocommit `UPDATE t SET k = k + 1
  WHERE id = ?` per second, each on a row drawn uniformly from a fixed hot set of HOT_ROWS
  rows spread over the table (the same hot set and SQL as `run_workload("update-hotset")`).
  A thread that falls behind its schedule catches up by at most 1 s.
- load (VALIDATION, issue #32's matrix, 120 s each): `run_workload` with the spec's `load`
  (kind, threads, rate or closed loop, write_pct) starts with the recording and runs through
  it, on a table of the spec's `table_rows`: a small redo log, an IO-bound pool ten times
  smaller than the table at two innodb_lru_scan_depth, a mixed load on two pool sizes.

The recorder (`flushsim.live.recorder.record`) samples once per second with
`enable_monitors=True` (the adaptive-flushing INNODB_METRICS counters are off by default).
Each recording is written with `Recording.write` and then given a second Parquet metadata
key, "flushsim.reference" (JSON: name, description, server options, preparation, workload
and what it achieved, MariaDB version); `Recording.read` ignores it. Machine-specific values
in the saved SHOW GLOBAL VARIABLES (the private server's folder, the host name) are replaced
by "<private-server>" and "<host>" (the recorder now keeps neither `hostname` nor `datadir`, but
innodb_* paths can hold the folder). A file is replaced only once it is complete (written
aside, then renamed over the old one).

Usage (2 cores: run nothing else heavy meanwhile; about 10 minutes for the first seven, 23
more for the ten of VALIDATION):
    source scripts/env.sh
    python scripts/record_reference.py --out data/reference/mariadb-10.11
    python scripts/record_reference.py --only idle-ioc200 --only hotset-iocmax800
    python scripts/record_reference.py --list
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from flushsim.live.recorder import Login, Recording, exit_status, record
from flushsim.live.server import (
    DEFAULT_OPTIONS,
    PrivateMariaDB,
    WorkloadResult,
    find_mariadb,
    prepare_table,
    run_workload,
)
from flushsim.outputs import atomic_path

TABLE_ROWS = 300_000
DATABASE = "flushsim_wl"
DIRTY_BATCH_ROWS = 5_000
HOT_ROWS = 4_000
HOT_RATE = 2_000  # row updates per second, all threads together
HOT_THREADS = 4
HOT_SEED = 0
CATCH_UP_S = 1.0

# the pool, and a redo log big enough that the load-free idle runs stay below
# innodb_adaptive_flushing_lwm (10 % of the log): no redo-driven flushing while idle
IDLE_BASE = {
    "innodb_buffer_pool_size": "128M",
    "innodb_log_file_size": "1G",
    "innodb_max_dirty_pages_pct_lwm": 10,
}
# a 64M redo log: the hot set's checkpoint age passes innodb_adaptive_flushing_lwm (6.4 MB)
# within seconds, so the adaptive formula, which scales with innodb_io_capacity_max, decides;
# trx_commit = 2: the commit fsync would otherwise cap the rate below HOT_RATE on this VM
HOT_BASE = {
    "innodb_buffer_pool_size": "128M",
    "innodb_log_file_size": "64M",
    "innodb_max_dirty_pages_pct_lwm": 10,
    "innodb_io_capacity": 100,
    "innodb_flush_log_at_trx_commit": 2,
}
# the variables the preparation changes for a while; checked against the stated values after
RESTORED = (
    "innodb_max_dirty_pages_pct",
    "innodb_max_dirty_pages_pct_lwm",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_adaptive_flushing",
)


@dataclass(frozen=True)
class Spec:
    """One reference recording.

    Attributes:
        name: file stem, e.g. "idle-ioc200".
        kind: "idle" (updates, then an idle server), "hotset" (fixed-rate hot-set updates)
            or "load" (`run_workload` with `load` as its arguments through the recording).
        description: one line for the README and the metadata.
        options: server options on top of PrivateMariaDB.DEFAULT_OPTIONS.
        seconds: rows to record (1 s each).
        table_rows: rows of flushsim_wl.t.
        load: "load": run_workload's kind, threads, rate (None: closed loop), write_pct.
    """

    name: str
    kind: str
    description: str
    options: dict[str, Any] = field(default_factory=dict)
    seconds: int = 50
    table_rows: int = TABLE_ROWS
    load: dict[str, Any] = field(default_factory=dict)


RECORDINGS: tuple[Spec, ...] = (
    *(
        Spec(
            f"idle-ioc{ioc}",
            "idle",
            f"every table page dirtied, then idle: flushing at innodb_io_capacity = {ioc}",
            {**IDLE_BASE, "innodb_io_capacity": ioc},
            seconds,
        )
        for ioc, seconds in ((100, 60), (200, 45), (400, 45))
    ),
    Spec(
        "idle-ioc200-lwm0",
        "idle",
        "as idle-ioc200 with MariaDB's default innodb_max_dirty_pages_pct_lwm = 0: no flushing",
        {**IDLE_BASE, "innodb_io_capacity": 200, "innodb_max_dirty_pages_pct_lwm": 0},
        30,
    ),
    *(
        Spec(
            f"hotset-iocmax{iocmax}",
            "hotset",
            f"{HOT_RATE} hot-set row updates/s from a clean pool, "
            f"innodb_io_capacity_max = {iocmax}",
            {**HOT_BASE, "innodb_io_capacity_max": iocmax},
            90,
        )
        for iocmax in (200, 400, 800)
    ),
)
# issue #32's validation matrix: 120 s each, one regime of the page cleaner each
VALIDATION_S = 120
# 1.3 M rows (~21,300 pages, ~330 MB) on a 32M pool (2,048 pages): 10 times the pool
BIG_ROWS = 1_300_000
# 500,000 rows (~8,200 pages, ~128 MB): twice a 64M pool
HALF_ROWS = 500_000
OLTP_LOAD = {"kind": "read-write", "threads": 4, "rate": 1_000, "write_pct": 25}
VALIDATION: tuple[Spec, ...] = (
    Spec(
        "redo-log16M",
        "load",
        "closed-loop single-row updates, uniform over a cached table, on a 16M redo log: "
        "the checkpoint age runs into the async and furious zones",
        {
            "innodb_buffer_pool_size": "128M",
            "innodb_log_file_size": "16M",
            "innodb_io_capacity": 100,
            "innodb_io_capacity_max": 200,
            "innodb_flush_log_at_trx_commit": 2,
        },
        VALIDATION_S,
        load={"kind": "read-write", "threads": 4, "rate": None, "write_pct": 100},
    ),
    *(
        Spec(
            f"lru-depth{depth}",
            "load",
            "closed-loop IO-bound read-write (50 % updates, uniform) on a 32M pool over a "
            f"table 10 times larger, innodb_lru_scan_depth = {depth}",
            {
                "innodb_buffer_pool_size": "32M",
                "innodb_log_file_size": "256M",
                "innodb_lru_scan_depth": depth,
                "innodb_flush_log_at_trx_commit": 2,
            },
            VALIDATION_S,
            BIG_ROWS,
            {"kind": "read-write", "threads": 4, "rate": None, "write_pct": 50},
        )
        for depth in (256, 1536)
    ),
    *(
        Spec(
            f"oltp-pool{pool}",
            "load",
            f"1,000 statements/s (75 % point SELECTs, 25 % UPDATEs, uniform) on a {pool} pool "
            f"over a {HALF_ROWS:,}-row table (~128 MB)",
            {
                "innodb_buffer_pool_size": pool,
                "innodb_log_file_size": "256M",
                "innodb_flush_log_at_trx_commit": 2,
            },
            VALIDATION_S,
            HALF_ROWS,
            OLTP_LOAD,
        )
        for pool in ("64M", "128M")
    ),
    *(
        Spec(
            f"burst-lwm{lwm}",
            "idle",
            f"every table page dirtied in a burst, then idle for {VALIDATION_S} s, "
            f"innodb_max_dirty_pages_pct_lwm = {lwm}",
            {**IDLE_BASE, "innodb_io_capacity": 100, "innodb_max_dirty_pages_pct_lwm": lwm},
            VALIDATION_S,
        )
        for lwm in (0, 10)
    ),
    *(
        Spec(
            f"hotset120-iocmax{iocmax}",
            "hotset",
            f"{HOT_RATE} hot-set row updates/s for {VALIDATION_S} s from a clean pool, "
            f"innodb_io_capacity_max = {iocmax}",
            {**HOT_BASE, "innodb_io_capacity_max": iocmax},
            VALIDATION_S,
        )
        for iocmax in (200, 400, 800)
    ),
)
RECORDINGS = RECORDINGS + VALIDATION
BY_NAME = {s.name: s for s in RECORDINGS}


# ---------------------------------------------------------------- small SQL helpers


def _query(conn, sql: str, args=None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall())


def _status(conn, name: str) -> int:
    rows = _query(conn, "SHOW GLOBAL STATUS LIKE %s", (name,))
    return int(rows[0][1])


def _global(conn, name: str) -> str:
    return str(_query(conn, f"SELECT @@GLOBAL.{name}")[0][0])


def _same(value: str, wanted: Any) -> bool:
    """Whether a SELECT @@GLOBAL value equals an option as stated (10 == 10.000000, ON == 1)."""
    if isinstance(wanted, bool):
        return value.upper() in (("1", "ON") if wanted else ("0", "OFF"))
    try:
        return float(value) == float(wanted)
    except ValueError:
        return value.upper() == str(wanted).upper()


def _wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> float:
    """Poll every 0.2 s until predicate() holds; the seconds it took."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout_s:
            raise RuntimeError(f"{what}: not reached in {timeout_s:g} s")
        time.sleep(0.2)
    return time.monotonic() - start


# ---------------------------------------------------------------- preparation


def flush_everything(conn, before: dict[str, str], timeout_s: float = 120) -> float:
    """Write every dirty page back, then set the RESTORED variables to `before` again.

    Returns:
        Seconds the write-back took.
    """
    _query(conn, "SET GLOBAL innodb_adaptive_flushing = OFF")
    _query(conn, "SET GLOBAL innodb_io_capacity_max = 1000000")
    _query(conn, "SET GLOBAL innodb_io_capacity = 1000000")
    _query(conn, "SET GLOBAL innodb_max_dirty_pages_pct = 0")  # lowers the lwm to 0 as well
    took = _wait_for(
        lambda: _status(conn, "Innodb_buffer_pool_pages_dirty") == 0, timeout_s, "a clean pool"
    )
    # in this order: the lwm cannot exceed max_dirty_pages_pct, io_capacity io_capacity_max
    for name in RESTORED:
        _query(conn, f"SET GLOBAL {name} = {before[name]}")
    return took


def check_restored(conn, before: dict[str, str], options: dict[str, Any]) -> None:
    """Raise unless the RESTORED variables are back to `before` and agree with `options`."""
    for name in RESTORED:
        value = _global(conn, name)
        if value != before[name]:
            raise RuntimeError(f"{name} is {value}, not {before[name]} as before the preparation")
        if name in options and not _same(value, options[name]):
            raise RuntimeError(f"{name} is {value}, not {options[name]} as stated")


def dirty_every_row(conn, rows: int, batch: int = DIRTY_BATCH_ROWS) -> int:
    """Update every row once, `batch` rows per autocommit statement; the statements run."""
    n = 0
    for first in range(1, rows + 1, batch):
        _query(
            conn,
            f"UPDATE `{DATABASE}`.t SET k = k + 1 WHERE id BETWEEN %s AND %s",
            (first, min(first + batch - 1, rows)),
        )
        n += 1
    return n


# ---------------------------------------------------------------- one recording


def _load_thread(db, spec: Spec, stop, paced: list, load_errors: list) -> None:
    """Run spec.load through the recording (a thread's target); its result or error appended."""
    try:
        done = run_workload(
            db.connect_root,
            spec.seconds + 2,
            spec.load["threads"],
            spec.load["kind"],
            rows=spec.table_rows,
            database=DATABASE,
            seed=HOT_SEED,
            stop=stop,
            rate=spec.load.get("rate"),
            catch_up_s=CATCH_UP_S,
            write_pct=spec.load.get("write_pct", 100.0),
        )
        paced.append(done)
    except BaseException as exc:  # re-raised in the main thread
        load_errors.append(exc)


def _scrub(rec: Recording, folder: Path) -> Recording:
    """The recording with the private server's folder and the host name replaced."""
    host = rec.variables.get("hostname", "")

    def clean(value: str) -> str:
        value = value.replace(str(folder), "<private-server>")
        # the host name only as a whole value or a file name's stem ("vm", "vm-slow.log")
        if host and (value == host or value.startswith((f"{host}.", f"{host}-"))):
            value = "<host>" + value[len(host) :]
        return value

    return dataclasses.replace(rec, variables={k: clean(v) for k, v in rec.variables.items()})


def write_recording(rec: Recording, path: Path, reference: dict[str, Any]) -> Path:
    """`Recording.write` with a "flushsim.reference" key added, replacing `path` atomically."""
    with tempfile.TemporaryDirectory(prefix="flushsim-ref-") as tmp:
        plain = rec.write(Path(tmp) / path.name)
        meta = pl.read_parquet_metadata(plain)
        meta["flushsim.reference"] = json.dumps(reference, sort_keys=True)
        with atomic_path(path) as out:
            pl.read_parquet(plain).write_parquet(out, metadata=meta)
    return path


def record_one(spec: Spec, out: Path) -> tuple[Path, dict[str, Any]]:
    """Start a server, prepare it, record `spec`; the file written and its reference metadata."""
    began = time.monotonic()
    with PrivateMariaDB(spec.options, recorder_privileges="PROCESS, SUPER") as db:
        conn = db.connect_root()
        try:
            before = {name: _global(conn, name) for name in RESTORED}
            _query(conn, "SET GLOBAL innodb_adaptive_flushing = OFF")
            t = time.monotonic()
            prepare_table(db.connect_root, rows=spec.table_rows, database=DATABASE, batch=2_000)
            load_s = time.monotonic() - t
            data_pages = _status(conn, "Innodb_buffer_pool_pages_data")
            clean_s = flush_everything(conn, before)
            check_restored(conn, before, spec.options)
            preparation: dict[str, Any] = {
                "table_rows": spec.table_rows,
                "table_load_s": round(load_s, 1),
                "pool_pages_data_after_load": data_pages,
                "write_back_s": round(clean_s, 1),
                "adaptive_flushing_off_during_preparation": True,
            }
            workload: dict[str, Any]
            stop = threading.Event()
            paced: list[WorkloadResult] = []
            load_errors: list[BaseException] = []
            loader = None
            if spec.kind == "idle":
                t = time.monotonic()
                statements = dirty_every_row(conn, spec.table_rows)
                preparation["dirty_update_statements"] = statements
                preparation["dirty_update_s"] = round(time.monotonic() - t, 1)
                preparation["purge_wait_s"] = round(
                    _wait_for(
                        lambda: _status(conn, "Innodb_history_list_length") == 0, 60, "purge"
                    ),
                    1,
                )
                preparation["pages_dirty_at_start"] = _status(
                    conn, "Innodb_buffer_pool_pages_dirty"
                )
                workload = {
                    "kind": "idle",
                    "note": "no client statements during the recording (recorder only)",
                }
            elif spec.kind == "load":
                preparation["pages_dirty_at_start"] = _status(
                    conn, "Innodb_buffer_pool_pages_dirty"
                )
                workload = {
                    **spec.load,
                    "mode": "closed loop (back to back)"
                    if spec.load.get("rate") is None
                    else "fixed rate (open loop, at most 1 s of catch-up per thread)",
                    "rows_per_trx": 1,
                    "table_rows": spec.table_rows,
                    "seed": HOT_SEED,
                    "sql": f"UPDATE {DATABASE}.t SET k = k + 1 WHERE id = ? or "
                    f"SELECT k FROM {DATABASE}.t WHERE id = ? (autocommit, id uniform)",
                    "starts": "with the recording's baseline sample, runs to its end",
                }
                loader = threading.Thread(
                    target=_load_thread,
                    args=(db, spec, stop, paced, load_errors),
                    daemon=True,
                )
            else:
                preparation["pages_dirty_at_start"] = _status(
                    conn, "Innodb_buffer_pool_pages_dirty"
                )
                workload = {
                    "kind": "update-hotset",
                    "mode": "fixed rate (open loop, at most 1 s of catch-up per thread)",
                    "rate_per_s": HOT_RATE,
                    "threads": HOT_THREADS,
                    "rows_per_trx": 1,
                    "table_rows": TABLE_ROWS,
                    "hot_rows": HOT_ROWS,
                    "seed": HOT_SEED,
                    "sql": f"UPDATE {DATABASE}.t SET k = k + 1 WHERE id = ? (autocommit)",
                    "starts": "with the recording's baseline sample, runs to its end",
                }

                def load() -> None:
                    try:
                        # the hot set and each thread's rows are run_workload's for this seed
                        done = run_workload(
                            db.connect_root,
                            spec.seconds + 2,
                            HOT_THREADS,
                            "update-hotset",
                            rows=TABLE_ROWS,
                            hot_rows=HOT_ROWS,
                            database=DATABASE,
                            seed=HOT_SEED,
                            stop=stop,
                            rate=HOT_RATE,
                            catch_up_s=CATCH_UP_S,
                        )
                        paced.append(done)
                    except BaseException as exc:  # re-raised in the main thread below
                        load_errors.append(exc)

                loader = threading.Thread(target=load, daemon=True)
            with tempfile.TemporaryDirectory(prefix="flushsim-ref-") as tmp:
                option_file = db.write_option_file(Path(tmp) / "my.cnf")
                if loader is not None:
                    loader.start()
                try:
                    rec = record(
                        Login(db.host, db.port, option_file=option_file),
                        seconds=spec.seconds,
                        enable_monitors=True,
                    )
                finally:
                    stop.set()
                    if loader is not None:
                        loader.join(timeout=30)
            if rec.ended.startswith("interrupted by "):
                # Ctrl-C / SIGTERM during record(): stop the whole run (the servers stop too)
                raise SystemExit(exit_status(rec.ended))
            if load_errors:
                raise RuntimeError(f"{spec.name}: the workload failed") from load_errors[0]
            if rec.series.height != spec.seconds:
                raise RuntimeError(
                    f"{spec.name}: {rec.series.height} of {spec.seconds} rows recorded "
                    "(interrupted or lost server): not written"
                )
            if loader is not None:
                workload["achieved"] = {
                    "statements": paced[0].statements,
                    "seconds": round(paced[0].seconds, 1),
                    "rate_per_s": round(paced[0].statements / paced[0].seconds, 1),
                    "max_lag_s": round(paced[0].max_lag_s, 3),
                }
        finally:
            conn.close()
        rec = _scrub(rec, db.folder)
    reference = {
        "name": spec.name,
        "kind": spec.kind,
        "description": spec.description,
        "options": {**DEFAULT_OPTIONS, **spec.options},
        "preparation": preparation,
        "workload": workload,
        "mariadb_version": rec.server_version,
        "recorded_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "wall_s": round(time.monotonic() - began, 1),
        "script": "scripts/record_reference.py",
    }
    path = write_recording(rec, out / f"{spec.name}.parquet", reference)
    return path, reference


# ---------------------------------------------------------------- summary and command line


def summary(path: Path) -> str:
    """One line of headline numbers for a written recording."""
    s = Recording.read(path).series
    flushed = s["buffer_flush_batch_total_pages"] + s["buffer_LRU_batch_flush_total_pages"]
    upd = int(s["dml_updates"].sum())
    pages = int(flushed.sum())
    return (
        f"{path.name}: {s.height} s, {path.stat().st_size / 1024:.0f} KiB, dirty "
        f"{s['buffer_pool_pages_dirty'][0]} -> {s['buffer_pool_pages_dirty'][-1]}, "
        f"{pages} pages flushed ({pages / s.height:.1f}/s), {upd} row updates"
        + (f", {upd / pages:.1f} updates per page flushed" if upd and pages else "")
    )


def _terminate(signum, frame):
    # SystemExit, not KeyboardInterrupt: record() keeps partial rows on Ctrl-C; this ends the
    # run through the `with PrivateMariaDB` blocks, which stop the servers
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    """Record the selected reference recordings; print one summary line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--out",
        default="data/reference/mariadb-10.11",
        help="folder for the NAME.parquet files (data/reference/mariadb-10.11)",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BY_NAME),
        metavar="NAME",
        help="record only NAME (repeatable); see --list",
    )
    parser.add_argument("--list", action="store_true", help="list the recordings and exit")
    args = parser.parse_args(argv)
    if args.list:
        for spec in RECORDINGS:
            print(f"{spec.name:20} {spec.seconds:3d} s  {spec.description}")
        return 0
    if find_mariadb() is None:
        print("mariadbd not found: run scripts/mariadb.sh", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    for name in args.only or [s.name for s in RECORDINGS]:
        spec = BY_NAME[name]
        print(f"== {spec.name}: {spec.description}", flush=True)
        path, ref = record_one(spec, out)
        print(f"   {summary(path)} ({ref['wall_s']:.0f} s wall)", flush=True)
    print(f"total wall time {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

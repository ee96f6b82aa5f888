"""The knob table: every setting flushsim accepts, with the server's own name (see params.py).

Server knobs carry the InnoDB system-variable name, default, range and unit of the engine they
belong to (sources: the MySQL 8.0 and 8.4 reference manuals and
`storage/innobase/handler/ha_innodb.cc`; see docs/model.md, sections Knobs and MySQL 8.4). Knobs
that describe the simulated workload or device have plain names (`threads`,
`device_read_iops`, ...) because the server has no such variable.

Everything else is generated from this table: validation and parsing (`flushsim.params`, the
public entry), the kernel's knob vector (`flushsim.schema`), the explorer's sliders and the
docs. Nothing here imports numba.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

MYSQL80 = "mysql-8.0"
MARIADB106 = "mariadb-10.6"  # the 10.6.0-10.11.7 generation: user threads run LRU batches
MARIADB1011 = "mariadb-10.11"  # 10.11.8 and later (10.6.18+): only the page cleaner flushes the LRU
MYSQL84 = "mysql-8.4"  # flushes as mysql-8.0; its defaults differ (docs/model.md, MySQL 8.4)
# appended, so that the older engines keep their kernel codes
ENGINES = (MYSQL80, MARIADB106, MARIADB1011, MYSQL84)
MARIADB = (MARIADB106, MARIADB1011)
MYSQL = (MYSQL80, MYSQL84)

# The spellings of the enum knobs; a value's place in its tuple is its kernel code (schema.py).
WORKLOADS = ("uniform", "zipf", "hotset", "sequential")
FLUSH_METHODS = ("fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC")
FILESYSTEMS = ("ext4", "ext4-dioread_nolock", "xfs")
# Percona Server's innodb_cleaner_lsn_age_factor (its typelib's order and spelling)
LSN_AGE_FACTORS = ("legacy", "high_checkpoint")
# device_interface: NVMe queues a Flush with other commands; SATA's FLUSH CACHE is not an NCQ
# command, so it runs once the commands in flight at the drive are done
DEVICE_INTERFACES = ("nvme", "sata")
LINUX_KERNELS = (
    "4.4",
    "4.9",
    "4.14",
    "4.19",
    "5.3",
    "5.4",
    "5.5",
    "5.6",
    "5.10",
    "5.15",
    "6.1",
    "6.6",
)
# MariaDB releases of the 10.6 generation (engine mariadb-10.6: 10.6.0-10.6.17, 10.11.0-10.11.7)
MARIADB106_VERSIONS = tuple(f"10.6.{p}" for p in range(18)) + tuple(f"10.11.{p}" for p in range(8))

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1

# Limits of the simulator, not of the server (docs/development.md: <= 64 bytes of state a frame).
SIM_MAX_POOL_PAGES = 4 * 1024 * 1024
SIM_MAX_TABLE_PAGES = 256 * 1024 * 1024
SIM_MAX_ZIPF_ROWS = 50_000_000


class FlushsimWarning(UserWarning):
    """A setting was adjusted the way the server adjusts it (the server prints a warning too)."""


@dataclass(frozen=True)
class Param:
    """One knob.

    Attributes:
        name: the server's variable name (or flushsim's own name for workload/device knobs).
        default: value, or a function of the other resolved values for derived defaults.
        min: smallest valid value (None for enums and booleans).
        max: largest valid value.
        unit: unit of the value ("pages", "bytes", "%", "ms", "pages/s", ...).
        doc: one line a DBA would write in a my.cnf comment.
        group: "server", "workload" or "storage".
        kind: "int", "float", "bool" or "enum".
        choices: the valid values of an enum.
        engines: engines that have this knob.
        dynamic: whether a scenario timeline may change it while the simulation runs.
        source: where the default and range come from.
        variants: per-engine changes of default, min, max, unit, doc, choices, source or
            default_doc, as (engine, {field: value}) pairs; `for_engine` applies them.
        ignored: for an engine that accepts the knob but ignores it, the warning text
            (the value is then pinned to the default).
        kernel: whether the kernel reads the knob (it then has a slot in schema.KNOBS); False
            for a knob resolved before the run into others.
        fill: the kernel's value of the knob on an engine that does not have it.
    """

    name: str
    default: object
    min: float | None
    max: float | None
    unit: str
    doc: str
    group: str = "server"
    kind: str = "int"
    choices: tuple[str, ...] = ()
    engines: tuple[str, ...] = ENGINES
    dynamic: bool = True
    source: str = ""
    default_doc: str = field(default="", compare=False)
    variants: tuple[tuple[str, Mapping[str, object]], ...] = field(default=(), compare=False)
    ignored: str = field(default="", compare=False)
    kernel: bool = field(default=True, compare=False)
    fill: float | None = field(default=None, compare=False)

    def for_engine(self, engine: str) -> Param:
        """This knob as `engine` has it (its default, range and doc on that engine)."""
        for eng, changes in self.variants:
            if eng == engine:
                return replace(self, variants=(), **changes)
        return replace(self, variants=()) if self.variants else self

    def range_text(self) -> str:
        """Human text of the valid values, used in every error message."""
        if self.kind == "bool":
            return "ON or OFF"
        if self.kind == "enum":
            return "one of " + ", ".join(self.choices)
        return f"between {_fmt(self.min)} and {_fmt(self.max)}"


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    if x == U64_MAX:  # exactly: a float would round it up to 2**64
        return f"{U64_MAX:,}"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:g}"
    return f"{int(x):,}"


def _default_instances(v: Mapping[str, object]) -> int:
    # "8, or 1 if innodb_buffer_pool_size < 1GB" (MySQL 8.0 manual, innodb_buffer_pool_instances)
    return 1 if int(v["innodb_buffer_pool_size"]) < GiB else 8


def _default_io_capacity_max(v: Mapping[str, object]) -> int:
    # ha_innodb.cc innodb_init_params: unset max -> max(2 * io_capacity, 2000)
    return max(2 * int(v["innodb_io_capacity"]), 2000)


def _default_page_cleaners(v: Mapping[str, object]) -> int:
    return 4


def _default_instances_84(v: Mapping[str, object]) -> int:
    # MySQL 8.4.0: 1 up to 1 GiB, else the smaller of (pool / innodb_buffer_pool_chunk_size) / 2
    # and a quarter of the logical CPUs, in 1..64. flushsim has no CPU count: the pool term alone.
    size = int(v["innodb_buffer_pool_size"])
    if size <= GiB:
        return 1
    return max(1, min(64, size // (128 * MiB) // 2))


def _default_io_capacity_max_84(v: Mapping[str, object]) -> int:
    # MySQL 8.4.0 dropped 8.0's 2000 floor: unset max -> 2 * innodb_io_capacity
    return min(2 * int(v["innodb_io_capacity"]), U32_MAX)


def _default_page_cleaners_84(v: Mapping[str, object]) -> int:
    return int(v["innodb_buffer_pool_instances"])


_MAN = "MySQL 8.0 manual, InnoDB startup options and system variables"
# The maximum on 64-bit Linux: uint32 from 8.0.29 (the manual's innodb_io_capacity_max table),
# read in source: srv0srv.h SRV_MAX_IO_CAPACITY_LIMIT = ~0U (uint32) in 8.0.32 and 8.0.44, and
# lru_scan_depth's UINT32_MAX in 8.0.44's ha_innodb.cc; 8.0.27 had ~0UL. The manual still prints
# 2**64-1 for innodb_io_capacity and innodb_lru_scan_depth.
_MAN_U32 = _MAN + "; max 2**32-1 from 8.0.29 (srv0srv.h SRV_MAX_IO_CAPACITY_LIMIT, ha_innodb.cc)"
_KB = "MariaDB KB, InnoDB System Variables (10.6/10.11)"
_ONLY_MYSQL = MYSQL
_MAN84 = "MySQL 8.4 manual, InnoDB startup options and system variables"
# the manual's table of the InnoDB defaults 8.4.0 changed (What Is New in MySQL 8.4 since 8.0)
_NEW84 = "MySQL 8.4 manual, 'InnoDB system variable default values in MySQL 8.4 differing from 8.0'"


def _maria(**changes: object) -> tuple[tuple[str, Mapping[str, object]], ...]:
    """The same per-engine changes for both MariaDB engines."""
    changes.setdefault("source", _KB)
    return tuple((e, dict(changes)) for e in MARIADB)


def _removed(name: str, what: str) -> str:
    return (
        f"{name} has no effect on MariaDB ({what}; deprecated and ignored since 10.5.1, the "
        "option is gone from 10.6.0, so a real 10.6/10.11 server refuses it unless it is "
        f"written loose-{name}): flushsim ignores it"
    )


def _device_names() -> tuple[str, ...]:
    # The profile names only (flushsim.devices checks the whole catalog); devices imports this
    # module, so the CSV's first column is read here directly.
    path = Path(__file__).resolve().parent.parent / "data" / "devices.csv"
    if not path.is_file():
        return ()
    with path.open(newline="", encoding="utf-8") as fh:
        return tuple(row["name"] for row in csv.DictReader(fh))


PARAMS: tuple[Param, ...] = (
    # ---------------------------------------------------------------- buffer pool
    Param(
        "innodb_buffer_pool_size",
        128 * MiB,
        5 * MiB,
        U64_MAX,
        "bytes",
        "Size of the buffer pool.",
        dynamic=False,
        source=_MAN,
        variants=_maria(max=2**63 - 1),
    ),
    Param(
        "innodb_buffer_pool_instances",
        _default_instances,
        1,
        64,
        "instances",
        "Independent LRU / free / flush lists; one page-cleaner slot each.",
        dynamic=False,
        source=_MAN,
        default_doc="8, or 1 if the pool is smaller than 1 GiB",
        variants=_maria(
            default=1,
            default_doc="1 (MariaDB has one buffer pool)",
            doc="Ignored: MariaDB 10.5+ has a single buffer pool.",
            ignored=_removed("innodb_buffer_pool_instances", "one buffer pool"),
        )
        + (
            (
                MYSQL84,
                {
                    "default": _default_instances_84,
                    "default_doc": "1 up to a 1 GiB pool, else pool / 256 MiB, at most 64 "
                    "(the server also caps it at logical CPUs / 4)",
                    "source": _NEW84,
                },
            ),
        ),
    ),
    Param(
        "innodb_page_size",
        16384,
        None,
        None,
        "bytes",
        "Page size.",
        kind="enum",
        choices=("4096", "8192", "16384", "32768", "65536"),
        dynamic=False,
        source=_MAN,
    ),
    Param(
        "innodb_old_blocks_pct",
        37,
        5,
        95,
        "%",
        "Share of the LRU list kept as the old sublist (midpoint insertion).",
        source=_MAN,
    ),
    Param(
        "innodb_old_blocks_time",
        1000,
        0,
        U32_MAX,
        "ms",
        "A page in the old sublist is made young only if accessed this long after its first "
        "access.",
        source=_MAN,
    ),
    # ---------------------------------------------------------------- page cleaner
    Param(
        "innodb_page_cleaners",
        _default_page_cleaners,
        1,
        64,
        "threads",
        "Page cleaner threads (capped at innodb_buffer_pool_instances).",
        dynamic=False,
        source=_MAN,
        default_doc="4 (capped at innodb_buffer_pool_instances)",
        variants=_maria(
            default=1,
            default_doc="1 (MariaDB has one page cleaner thread)",
            doc="Ignored: MariaDB 10.5+ has a single page cleaner thread.",
            ignored=_removed("innodb_page_cleaners", "one page cleaner thread"),
        )
        + (
            (
                MYSQL84,
                {
                    "default": _default_page_cleaners_84,
                    "default_doc": "= innodb_buffer_pool_instances",
                    "source": _NEW84,
                },
            ),
        ),
    ),
    Param(
        "innodb_io_capacity",
        200,
        100,
        U32_MAX,
        "pages/s",
        "Budget of background flush-list flushing; idle flushing runs at this rate.",
        source=_MAN_U32,
        variants=_maria(
            max=U32_MAX,
            doc="Budget of adaptive, idle and background flushing; LRU and furious flushing "
            "ignore it.",
        )
        + ((MYSQL84, {"default": 10000, "source": _NEW84 + "; " + _MAN84}),),
    ),
    Param(
        "innodb_io_capacity_max",
        _default_io_capacity_max,
        100,
        U32_MAX,
        "pages/s",
        "Cap on adaptive flushing. LRU flushing ignores it.",
        source=_MAN_U32,
        default_doc="2 x innodb_io_capacity, at least 2000",
        variants=_maria(
            max=U32_MAX,
            doc="Cap on adaptive flushing; batch size of async-target, furious and page-cleaner "
            "LRU flushing.",
        )
        + (
            (
                MYSQL84,
                {
                    "default": _default_io_capacity_max_84,
                    "default_doc": "2 x innodb_io_capacity",
                    "source": _NEW84 + "; " + _MAN84,
                },
            ),
        ),
    ),
    Param(
        "innodb_flush_neighbors",
        0,
        0,
        2,
        "",
        "Write a batch's dirty neighbours too: 0 off, 1 the contiguous dirty run around a page, "
        "2 any dirty page of its area (up to 64 pages).",
        source=_MAN,
        variants=_maria(
            default=1,
            doc="Write a batch's dirty neighbours too (only on rotational storage): 0 off, 1 the "
            "contiguous dirty run around a page, 2 any dirty page of its area.",
        ),
    ),
    Param(
        "innodb_lru_scan_depth",
        1024,
        100,
        U32_MAX,
        "pages",
        "Per instance and page-cleaner round: LRU batch size and free-list target.",
        source=_MAN_U32,
        variants=_maria(
            default=1536,
            max=U64_MAX,  # SYSTEM_VARIABLES of 10.11.19 (tests/test_server_knobs.py)
            doc="Free-list target: the page cleaner evicts from the LRU tail until this many "
            "pages are free.",
        ),
    ),
    Param(
        "innodb_lru_flush_size",
        32,
        1,
        U64_MAX,
        "pages",
        "10.6.0-10.11.7: pages a user thread without a free page flushes from the LRU tail in "
        "one batch. No effect from 10.6.18/10.11.8 on.",
        engines=MARIADB,
        source=_KB + "; default 0 and deprecated from 10.11.10 (flushsim keeps 32)",
        fill=0.0,
    ),
    Param(
        "version",
        "10.6.17",
        None,
        None,
        "",
        "The MariaDB release (SELECT @@version). Up to 10.6.12 / 10.11.2 the page cleaner "
        "flushes only the flush list and user threads alone free pages from the LRU (seed 003 "
        "ran 10.6.3); from 10.6.13 / 10.11.3 (MDEV-26827) it also runs LRU passes.",
        kind="enum",
        choices=MARIADB106_VERSIONS,
        engines=(MARIADB106,),
        dynamic=False,
        source="MariaDB 10.11.3 release notes (MDEV-26827 'Make page flushing even faster', "
        "released with 10.6.13); the 10.6 line's buf0flu.cc of 2021 (no LRU flushing in "
        "buf_flush_page_cleaner)",
        fill=0.0,
    ),
    Param(
        "innodb_max_dirty_pages_pct",
        90.0,
        0.0,
        99.999,
        "%",
        "High-water mark of dirty pages.",
        kind="float",
        source=_MAN,
    ),
    Param(
        "innodb_max_dirty_pages_pct_lwm",
        10.0,
        0.0,
        99.999,
        "%",
        "Dirty-page share where adaptive preflushing starts (0 disables it).",
        kind="float",
        source=_MAN,
        variants=_maria(
            default=0.0,
            doc="Dirty-page share where preflushing starts; 0 means innodb_max_dirty_pages_pct "
            "and disables idle flushing.",
        ),
    ),
    Param(
        "innodb_adaptive_flushing",
        True,
        None,
        None,
        "",
        "Flush by redo age as well as by dirty-page share.",
        kind="bool",
        source=_MAN,
    ),
    Param(
        "innodb_adaptive_flushing_lwm",
        10,
        0,
        70,
        "% of redo capacity",
        "Checkpoint age (share of redo capacity) below which redo age adds no flushing.",
        source=_MAN,
        variants=_maria(unit="% of redo log capacity"),
    ),
    Param(
        "innodb_cleaner_lsn_age_factor",
        "legacy",
        None,
        None,
        "",
        "Percona Server only: the redo-age term of adaptive flushing, legacy (Oracle's "
        "age^1.5 / 7.5) or high_checkpoint (age^2.5 / 700.5: less flushing at a low checkpoint "
        "age, more at a high one).",
        kind="enum",
        choices=LSN_AGE_FACTORS,
        engines=_ONLY_MYSQL,
        source=(
            "Percona Server for MySQL 8.0 ha_innodb.cc (MYSQL_SYSVAR_ENUM cleaner_lsn_age_factor: "
            "dynamic, legacy or high_checkpoint, default high_checkpoint) and buf0flu.cc "
            "Adaptive_flush::get_pct_for_lsn; Percona Server 5.6.13-61.0 introduced it "
            "(blueprint af-lsn-age-tuning-5.6)"
        ),
        default_doc=(
            "legacy: Oracle MySQL 8.0 has no such variable and always runs this formula. "
            "Percona Server (5.6, 5.7 and 8.0 in the sources read) defaults to "
            "high_checkpoint: set it to simulate one."
        ),
        fill=0.0,  # legacy: the only formula of MySQL and MariaDB
    ),
    Param(
        "innodb_flushing_avg_loops",
        30,
        1,
        1000,
        "rounds",
        "Rounds over which flush and redo rates are averaged.",
        source=_MAN,
    ),
    Param(
        "innodb_idle_flush_pct",
        100,
        0,
        100,
        "% of innodb_io_capacity",
        "Flush rate while the server is idle.",
        engines=_ONLY_MYSQL,
        source=_MAN,
        fill=0.0,
    ),
    Param(
        "innodb_flush_sync",
        True,
        None,
        None,
        "",
        "Ignore innodb_io_capacity_max when the checkpoint age reaches the sync point.",
        kind="bool",
        source=_MAN,
    ),
    Param(
        "innodb_page_cleaner_disabled_debug",
        False,
        None,
        None,
        "",
        "Debug builds only: pause the page cleaner (seed 001's trick).",
        kind="bool",
        engines=_ONLY_MYSQL,
        source=_MAN,
        fill=0.0,
    ),
    # ---------------------------------------------------------------- doublewrite and redo
    Param(
        "innodb_doublewrite",
        "ON",
        None,
        None,
        "",
        "Torn-page protection: every flushed page is written twice.",
        kind="enum",
        choices=("ON", "OFF", "DETECT_AND_RECOVER", "DETECT_ONLY"),
        dynamic=False,
        source=_MAN,
        variants=_maria(
            choices=("ON", "OFF"),
            doc="Torn-page protection: pages go through the doublewrite area (two extents) first.",
        ),
    ),
    Param(
        "innodb_doublewrite_pages",
        4,
        1,
        512,
        "pages",
        "Pages per doublewrite batch write (default = innodb_write_io_threads).",
        dynamic=False,
        engines=_ONLY_MYSQL,
        source=_MAN,
        variants=(
            (
                MYSQL84,
                {
                    "default": 128,
                    "doc": "Pages per doublewrite batch write.",
                    "source": _NEW84 + "; " + _MAN84,
                },
            ),
        ),
        # unread on MariaDB: its batch is two extents, derived from innodb_page_size
        # (cleaner.dblwr_batch_pages)
        fill=128.0,
    ),
    Param(
        "innodb_redo_log_capacity",
        100 * MiB,
        8 * MiB,
        128 * GiB,
        "bytes",
        "Redo log capacity (8.0.30+).",
        dynamic=False,
        engines=_ONLY_MYSQL,
        source=_MAN,
        fill=0.0,
    ),
    Param(
        "innodb_log_file_size",
        48 * MiB,
        4 * MiB,
        512 * GiB,
        "bytes",
        "Pre-8.0.30 redo file size; used only when innodb_redo_log_capacity is not set.",
        dynamic=False,
        source=_MAN,
        variants=_maria(
            default=96 * MiB,
            doc="Size of the single redo log file ib_logfile0; sets the checkpoint-age limits.",
        ),
    ),
    Param(
        "innodb_log_files_in_group",
        2,
        2,
        100,
        "files",
        "Pre-8.0.30 number of redo files; used with innodb_log_file_size.",
        dynamic=False,
        engines=_ONLY_MYSQL,
        source=_MAN,
        kernel=False,  # validate folds it into innodb_redo_log_capacity
    ),
    Param(
        "innodb_log_checkpoint_every",
        1000,
        0,
        U64_MAX,
        "ms",
        "The log checkpointer's period; busy, it checkpoints every 7 periods (experimental "
        "builds only; a release server always uses 1000).",
        engines=_ONLY_MYSQL,
        source="MySQL 8.0 ha_innodb.cc (MYSQL_SYSVAR_ULONG log_checkpoint_every: 0..ULONG_MAX, "
        "dynamic; only in builds with ENABLE_EXPERIMENT_SYSVARS, absent from the manual) and "
        "log0log.h INNODB_LOG_CHECKPOINT_EVERY_DEFAULT",
        fill=0.0,  # MariaDB has no log checkpointer thread: its kernel never reads the slot
    ),
    Param(
        "innodb_thread_concurrency",
        0,
        0,
        1000,
        "threads",
        "Enters the redo free-check margin.",
        engines=_ONLY_MYSQL,
        source=_MAN,
        fill=0.0,
    ),
    Param(
        "innodb_flush_log_at_trx_commit",
        1,
        0,
        2,
        "",
        "1: a commit waits for its redo to be written and fsynced (group commit); 0 and 2: "
        "the redo is written and fsynced once a second and commits do not wait.",
        source=_MAN,
        variants=_maria(
            max=3,
            doc="1 (and 3, which also syncs in binlog group commit; no binlog here): a commit "
            "waits for its redo to be written and fsynced; 0 and 2: once a second, no wait.",
        ),
    ),
    Param(
        "innodb_flush_method",
        "fsync",
        None,
        None,
        "",
        "How data and log files are opened and flushed: fsync and O_DSYNC write data through "
        "the page cache; O_DIRECT bypasses it; O_DIRECT_NO_FSYNC also skips the data fsync.",
        kind="enum",
        choices=FLUSH_METHODS,
        dynamic=False,
        source=_MAN + " (Unix default fsync; littlesync and nosync are for testing and not "
        "modelled)",
        variants=_maria(
            default="O_DIRECT",
            source="MariaDB documentation, innodb_flush_method: default O_DIRECT (from 10.6.0)",
        )
        + (
            (
                MYSQL84,
                {
                    "default": "O_DIRECT",
                    "source": _NEW84 + " (O_DIRECT where the system supports it, as Linux "
                    "does; else fsync)",
                },
            ),
        ),
    ),
    # ---------------------------------------------------------------- workload
    Param(
        "workload",
        "uniform",
        None,
        None,
        "",
        "Row access pattern.",
        group="workload",
        kind="enum",
        choices=WORKLOADS,
    ),
    Param(
        "threads",
        16,
        0,
        4096,
        "threads",
        "User threads, each running transactions back to back (closed loop).",
        group="workload",
    ),
    Param(
        "table_rows",
        1_000_000,
        1,
        10**11,
        "rows",
        "Rows in the table.",
        group="workload",
        dynamic=False,
    ),
    Param(
        "rows_per_page",
        68,
        1,
        10_000,
        "rows",
        "Rows per page (sysbench sbtest: about 68 per 16 KiB page).",
        group="workload",
        dynamic=False,
    ),
    Param(
        "rows_per_trx", 10, 1, 1_000_000, "rows", "Rows accessed per transaction.", group="workload"
    ),
    Param(
        "write_pct",
        20.0,
        0.0,
        100.0,
        "%",
        "Share of row accesses that update the row.",
        group="workload",
        kind="float",
    ),
    Param(
        "hot_rows",
        30_000,
        1,
        10**11,
        "rows",
        "hotset: rows that take hot_pct of the accesses, scattered over the table.",
        group="workload",
    ),
    Param(
        "hot_pct",
        100.0,
        0.0,
        100.0,
        "%",
        "hotset: share of accesses that go to the hot rows.",
        group="workload",
        kind="float",
    ),
    Param(
        "zipf_theta",
        0.99,
        0.0,
        5.0,
        "",
        "zipf: skew exponent.",
        group="workload",
        kind="float",
        dynamic=False,
        kernel=False,  # the run builds the zipf CDF from it
    ),
    Param("seq_start_row", 0, 0, 10**11, "row", "sequential: first row.", group="workload"),
    Param(
        "seq_end_row",
        0,
        0,
        10**11,
        "row",
        "sequential: row after the last (0 = end of table); the workload stops there.",
        group="workload",
    ),
    Param(
        "think_time_us",
        0.0,
        0.0,
        60e6,
        "us",
        "Pause of a thread between transactions.",
        group="workload",
        kind="float",
    ),
    Param(
        "trx_rate",
        0.0,
        0.0,
        10_000_000.0,
        "trx/s",
        "Transactions started per second on one schedule shared by all threads, as "
        "sysbench --rate (0: closed loop). A thread that falls behind starts at once and makes "
        "up at most 1 s of missed starts; a new rate re-times the starts not yet due. Too few "
        "threads cap the rate.",
        group="workload",
        kind="float",
    ),
    Param(
        "cpu_us_per_row",
        5.0,
        0.1,
        1e5,
        "us",
        "CPU time a thread spends per row access.",
        group="workload",
        kind="float",
    ),
    Param(
        "redo_bytes_per_change",
        250,
        1,
        1_000_000,
        "bytes",
        "Redo generated by one row change.",
        group="workload",
    ),
    # ---------------------------------------------------------------- storage
    Param(
        "device",
        "custom",
        None,
        None,
        "",
        "A storage profile of data/devices.csv: sets the device_* knobs you do not set "
        "yourself (custom: the device_* knobs alone).",
        group="storage",
        kind="enum",
        choices=("custom", *_device_names()),
        dynamic=False,
        source="data/devices.csv (each row cites its datasheet or measurement)",
        kernel=False,  # validate sets the device_* knobs from its profile
    ),
    Param(
        "device_read_iops",
        50_000,
        100,
        10_000_000,
        "IO/s",
        "Random reads the device completes per second with nothing else to do: a read occupies "
        "it for 1/device_read_iops s (or its bytes at device_read_bandwidth_mb_s, if longer).",
        group="storage",
        dynamic=False,
    ),
    Param(
        "device_write_iops",
        50_000,
        100,
        10_000_000,
        "IO/s",
        "Random writes the device completes per second with nothing else to do; reads and "
        "writes share the device's time (a mix of R reads and W writes per second needs "
        "R/device_read_iops + W/device_write_iops <= 1).",
        group="storage",
        dynamic=False,
    ),
    Param(
        "device_read_bandwidth_mb_s",
        2000.0,
        1.0,
        100_000.0,
        "MB/s",
        "Sequential read bandwidth.",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "device_write_bandwidth_mb_s",
        2000.0,
        1.0,
        100_000.0,
        "MB/s",
        "Sequential write bandwidth.",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "device_read_latency_us",
        100.0,
        1.0,
        1e6,
        "us",
        "Read latency without queueing.",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "device_write_latency_us",
        30.0,
        1.0,
        1e6,
        "us",
        "Write latency without queueing.",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "device_fsync_latency_us",
        200.0,
        0.0,
        1e7,
        "us",
        "Extra latency of an fsync.",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "device_interface",
        "nvme",
        None,
        None,
        "",
        "How the drive takes an fsync's cache flush: nvme queues it with the other commands; "
        "sata runs it once the commands in flight (up to NCQ's 32) are done, so page writes "
        "delay redo fsyncs.",
        group="storage",
        kind="enum",
        choices=DEVICE_INTERFACES,
        dynamic=False,
        source=(
            "ATA: FLUSH CACHE (EXT) is a non-NCQ command; Linux libata defers a non-NCQ command "
            "while NCQ commands are active (ata_std_qc_defer). NVMe Flush is an ordinary queued "
            "command. A profile of data/devices.csv sets it from its kind (sata-ssd, hdd: sata)"
        ),
    ),
    Param(
        "device_rotational",
        False,
        None,
        None,
        "",
        "A spinning disk (/sys/block/*/queue/rotational): a page write right after the write of "
        "the page before it costs no seek, and MariaDB flushes neighbours only here.",
        group="storage",
        kind="bool",
        dynamic=False,
        source=(
            "MariaDB fil_space_t::is_rotational (MDEV-17380) reads the block device's rotational "
            "flag. A profile of data/devices.csv sets it from its kind (hdd: ON)"
        ),
    ),
    Param(
        "filesystem",
        "xfs",
        None,
        None,
        "",
        "Filesystem of the data directory. ext4 (data=ordered): an fsync of a file written "
        "through the page cache commits the journal and waits for other processes' dirty data; "
        "ext4-dioread_nolock is ext4 mounted with that option. Default xfs (RHEL's default).",
        group="storage",
        kind="enum",
        choices=FILESYSTEMS,
        dynamic=False,
    ),
    Param(
        "linux_kernel",
        "5.15",
        None,
        None,
        "",
        "Linux version (major.minor). On ext4 with O_DIRECT, 4.9 to 5.5 serialise direct reads "
        "and writes of a file (seed 002); 5.5 with dioread_nolock and 5.6 on fix it.",
        group="storage",
        kind="enum",
        choices=LINUX_KERNELS,
        dynamic=False,
    ),
    Param(
        "neighbour_write_mb_s",
        0.0,
        0.0,
        100_000.0,
        "MB/s",
        "Buffered writes of another process on the same filesystem and device (seed 000's "
        "image converter wrote 64 MB/s).",
        group="storage",
        kind="float",
        dynamic=False,
    ),
    Param(
        "ssd_hours_per_day",
        24,
        1,
        24,
        "hours",
        "Hours a day the load runs, for the SSD lifetime: the drive is written at the run's "
        "rate that many hours a day and idle the rest (24: around the clock).",
        group="storage",
        dynamic=False,
        source="flushsim's own: the duty cycle of the lifetime (flushsim.lifetime)",
        kernel=False,  # only the lifetime reads it, after the run
    ),
)

BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}

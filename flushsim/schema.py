"""The kernel's public schema: its knob vector, its output columns and units, enum codes.

Derived from the knob table (`knob_spec.PARAMS`): a knob the kernel reads (`Param.kernel`) has
one slot of the knob vector, in the table's order, and the `engine` slot comes last. An enum
knob's code is its value's place in the knob's choices. The numba kernel reads these names as
compile-time constants (`S.K_IOC`); its private layout (frame, instance and global fields) is
`kernels/layout.py`. Nothing here imports numba.
"""

from __future__ import annotations

from .knob_spec import (
    BY_NAME,
    DEVICE_INTERFACES,
    ENGINES,
    FILESYSTEMS,
    FLUSH_METHODS,
    LINUX_KERNELS,
    LSN_AGE_FACTORS,
    MARIADB106,
    MARIADB106_VERSIONS,
    MARIADB1011,
    MYSQL80,
    MYSQL84,
    PARAMS,
    WORKLOADS,
)

__all__ = [
    "COL",
    "COLUMNS",
    "COLUMN_UNITS",
    "ENGINE_CODES",
    "FLOAT_COLUMNS",
    "KNOBS",
    "KNOB_FILL",
    "KNOB_INDEX",
    "LINUX_KERNELS",
    "LOG_START_LSN",
    "MARIADB106_VERSIONS",
    "N_COLS",
    "N_KNOBS",
    "encode",
    "engine_code",
]

# ---------------------------------------------------------------- engines
ENGINE_CODES = {name: code for code, name in enumerate(ENGINES)}
ENG_MYSQL80 = ENGINE_CODES[MYSQL80]
ENG_MARIADB106 = ENGINE_CODES[MARIADB106]
ENG_MARIADB1011 = ENGINE_CODES[MARIADB1011]
ENG_MYSQL84 = ENGINE_CODES[MYSQL84]


def engine_code(engine: str) -> int:
    """The kernel's code of `engine`, or a ValueError naming the engines it knows."""
    if engine not in ENGINE_CODES:
        raise ValueError(f"engine {engine!r} has no kernel code: one of {', '.join(ENGINES)}")
    return ENGINE_CODES[engine]


# ---------------------------------------------------------------- the knob vector (float64)
KNOBS = tuple(p.name for p in PARAMS if p.kernel) + ("engine",)
KNOB_INDEX = {name: i for i, name in enumerate(KNOBS)}
N_KNOBS = len(KNOBS)
# the kernel's value of a knob on an engine that does not have it
KNOB_FILL = {p.name: p.fill for p in PARAMS if p.kernel and p.fill is not None}

K_POOL_SIZE = KNOB_INDEX["innodb_buffer_pool_size"]
K_INSTANCES = KNOB_INDEX["innodb_buffer_pool_instances"]
K_PAGE_SIZE = KNOB_INDEX["innodb_page_size"]
K_OLD_PCT = KNOB_INDEX["innodb_old_blocks_pct"]
K_OLD_TIME = KNOB_INDEX["innodb_old_blocks_time"]
K_CLEANERS = KNOB_INDEX["innodb_page_cleaners"]
K_IOC = KNOB_INDEX["innodb_io_capacity"]
K_IOC_MAX = KNOB_INDEX["innodb_io_capacity_max"]
K_LRU_DEPTH = KNOB_INDEX["innodb_lru_scan_depth"]
K_MAX_DIRTY = KNOB_INDEX["innodb_max_dirty_pages_pct"]
K_DIRTY_LWM = KNOB_INDEX["innodb_max_dirty_pages_pct_lwm"]
K_ADAPTIVE = KNOB_INDEX["innodb_adaptive_flushing"]
K_ADAPTIVE_LWM = KNOB_INDEX["innodb_adaptive_flushing_lwm"]
K_AVG_LOOPS = KNOB_INDEX["innodb_flushing_avg_loops"]
K_IDLE_PCT = KNOB_INDEX["innodb_idle_flush_pct"]
K_FLUSH_SYNC = KNOB_INDEX["innodb_flush_sync"]
K_PC_DISABLED = KNOB_INDEX["innodb_page_cleaner_disabled_debug"]
K_DBLWR = KNOB_INDEX["innodb_doublewrite"]
K_DBLWR_PAGES = KNOB_INDEX["innodb_doublewrite_pages"]
K_REDO_CAP = KNOB_INDEX["innodb_redo_log_capacity"]
K_THREAD_CONC = KNOB_INDEX["innodb_thread_concurrency"]
K_WORKLOAD = KNOB_INDEX["workload"]
K_THREADS = KNOB_INDEX["threads"]
K_TABLE_ROWS = KNOB_INDEX["table_rows"]
K_ROWS_PER_PAGE = KNOB_INDEX["rows_per_page"]
K_ROWS_PER_TRX = KNOB_INDEX["rows_per_trx"]
K_WRITE_PCT = KNOB_INDEX["write_pct"]
K_HOT_ROWS = KNOB_INDEX["hot_rows"]
K_HOT_PCT = KNOB_INDEX["hot_pct"]
K_SEQ_START = KNOB_INDEX["seq_start_row"]
K_SEQ_END = KNOB_INDEX["seq_end_row"]
K_THINK_US = KNOB_INDEX["think_time_us"]
K_TRX_RATE = KNOB_INDEX["trx_rate"]
K_CPU_US = KNOB_INDEX["cpu_us_per_row"]
K_REDO_PER_CHANGE = KNOB_INDEX["redo_bytes_per_change"]
K_DEV_RIOPS = KNOB_INDEX["device_read_iops"]
K_DEV_RBW = KNOB_INDEX["device_read_bandwidth_mb_s"]
K_DEV_WIOPS = KNOB_INDEX["device_write_iops"]
K_DEV_WBW = KNOB_INDEX["device_write_bandwidth_mb_s"]
K_DEV_RLAT = KNOB_INDEX["device_read_latency_us"]
K_DEV_WLAT = KNOB_INDEX["device_write_latency_us"]
K_DEV_FSYNC = KNOB_INDEX["device_fsync_latency_us"]
K_LRU_FLUSH_SIZE = KNOB_INDEX["innodb_lru_flush_size"]
K_LOG_FILE_SIZE = KNOB_INDEX["innodb_log_file_size"]
K_CHECKPOINT_EVERY = KNOB_INDEX["innodb_log_checkpoint_every"]
K_ENGINE = KNOB_INDEX["engine"]
K_FLUSH_METHOD = KNOB_INDEX["innodb_flush_method"]
K_FS = KNOB_INDEX["filesystem"]
K_NB_MB_S = KNOB_INDEX["neighbour_write_mb_s"]
K_KERNEL = KNOB_INDEX["linux_kernel"]
K_TRX_COMMIT = KNOB_INDEX["innodb_flush_log_at_trx_commit"]
K_VERSION = KNOB_INDEX["version"]
K_LSN_AGE_FACTOR = KNOB_INDEX["innodb_cleaner_lsn_age_factor"]
K_DEV_INTERFACE = KNOB_INDEX["device_interface"]
K_NEIGHBORS = KNOB_INDEX["innodb_flush_neighbors"]
K_DEV_ROTATIONAL = KNOB_INDEX["device_rotational"]

# ---------------------------------------------------------------- enum codes
WL_UNIFORM, WL_ZIPF, WL_HOTSET, WL_SEQUENTIAL = (
    WORKLOADS.index(w) for w in ("uniform", "zipf", "hotset", "sequential")
)
FM_FSYNC, FM_O_DSYNC, FM_O_DIRECT, FM_O_DIRECT_NO_FSYNC = (
    FLUSH_METHODS.index(m) for m in ("fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC")
)
FS_EXT4, FS_EXT4_NOLOCK, FS_XFS = (
    FILESYSTEMS.index(f) for f in ("ext4", "ext4-dioread_nolock", "xfs")
)
LAF_LEGACY, LAF_HIGH_CHECKPOINT = (LSN_AGE_FACTORS.index(f) for f in ("legacy", "high_checkpoint"))
IF_NVME, IF_SATA = (DEVICE_INTERFACES.index(i) for i in ("nvme", "sata"))
# innodb_doublewrite: MySQL's DETECT_AND_RECOVER is ON; DETECT_ONLY writes no page data
DOUBLEWRITE = {"OFF": 0, "ON": 1, "DETECT_AND_RECOVER": 1, "DETECT_ONLY": 2}
# enums whose kernel code is the value's place in the knob's choices
_BY_POSITION = {
    name: BY_NAME[name].choices
    for name in (
        "workload",
        "innodb_flush_method",
        "filesystem",
        "innodb_cleaner_lsn_age_factor",
        "device_interface",
    )
}


def encode(name: str, value: object) -> float:
    """A knob value as the kernel's float (booleans 0/1, enums by their code)."""
    if name in _BY_POSITION:
        return float(_BY_POSITION[name].index(str(value)))
    if name == "innodb_doublewrite":
        return float(DOUBLEWRITE[str(value)])
    if name == "linux_kernel":
        major, minor = str(value).split(".")
        return float(int(major) * 100 + int(minor))
    if name == "version":  # major * 10000 + minor * 100 + patch
        major, minor, patch = str(value).split(".")
        return float(int(major) * 10_000 + int(minor) * 100 + int(patch))
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    return float(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the timeline's actions
TL_SET = 0  # set knob tl_knob to tl_value
TL_WORKLOAD_STOP = 1
TL_WORKLOAD_START = 2

# ---------------------------------------------------------------- other kernel inputs
# The kernel's `scatter` argument packs two row maps: (prime << SCATTER_SHIFT) | bits. A zipf
# rank r is row r * prime % table_rows; hot-set row j is the workload's spread_row(j, rows, bits).
SCATTER_SHIFT = 6
SCATTER_BITS_MASK = (1 << SCATTER_SHIFT) - 1
# The LSN a run starts at: log_lsn_current's origin (log0constants.h LOG_START_LSN, 16 KiB)
LOG_START_LSN = 16 * 1024

# ---------------------------------------------------------------- output columns (float64)
# (name, unit): gauges are end-of-second values, "/s" marks a per-second count
_COLUMNS = (
    ("time_s", "s"),
    # pool gauges (end of second)
    ("buffer_pool_pages_total", "pages"),
    ("buffer_pool_pages_free", "pages"),
    ("buffer_pool_pages_data", "pages"),
    ("buffer_pool_pages_dirty", "pages"),
    ("buffer_pool_pages_old", "pages"),  # sim: LRU old sublist length ("Old database pages")
    # flushing counters (per second)
    ("buffer_LRU_batch_flush_total_pages", "pages/s"),
    ("buffer_LRU_batch_evict_total_pages", "pages/s"),
    ("buffer_LRU_batch_scanned", "pages/s"),
    ("buffer_flush_adaptive_total_pages", "pages/s"),
    ("buffer_flush_background_total_pages", "pages/s"),
    ("buffer_flush_sync_total_pages", "pages/s"),
    ("buffer_flush_batch_total_pages", "pages/s"),
    ("sim_single_page_flushes", "pages/s"),
    ("buffer_LRU_single_flush_failure_count", "1/s"),
    ("buffer_LRU_get_free_waits", "1/s"),
    ("buffer_pool_wait_free", "1/s"),
    ("innodb_dblwr_pages_written", "pages/s"),
    ("innodb_dblwr_writes", "writes/s"),
    ("sim_page_cleaner_rounds", "rounds/s"),
    # adaptive-flushing gauges (last round of the second)
    ("buffer_flush_n_to_flush_requested", "pages"),
    ("buffer_flush_pct_for_dirty", "%"),
    ("buffer_flush_pct_for_lsn", "%"),
    ("buffer_flush_avg_page_rate", "pages/s"),
    ("buffer_flush_lsn_avg_rate", "bytes/s"),
    # redo (LSN bytes)
    ("log_lsn_current", "bytes"),
    ("log_lsn_last_checkpoint", "bytes"),
    ("log_lsn_checkpoint_age", "bytes"),
    ("log_max_modified_age_async", "bytes"),
    ("log_max_modified_age_sync", "bytes"),
    ("sim_redo_wait_ms", "ms/s"),
    # work
    ("dml_reads", "rows/s"),
    ("dml_updates", "rows/s"),
    ("buffer_pool_read_requests", "pages/s"),
    ("buffer_pool_reads", "pages/s"),
    ("buffer_pages_made_young", "pages/s"),
    ("buffer_pages_not_made_young", "pages/s"),
    ("sim_tps", "trx/s"),
    ("sim_free_wait_ms", "ms/s"),
    # device, iostat style (attributed to the second an IO completes, as Linux counts them)
    ("r_s", "IO/s"),
    ("w_s", "IO/s"),
    ("rkB_s", "kB/s"),
    ("wkB_s", "kB/s"),
    ("aqu_sz", "IOs"),
    ("r_await_ms", "ms"),
    ("w_await_ms", "ms"),
    ("util_pct", "%"),
    ("sim_fsyncs", "1/s"),
    ("sim_fsync_latency_ms", "ms"),
    # MariaDB 10.6-generation: pages written by user threads' own LRU batches (also counted in
    # buffer_LRU_batch_flush_total_pages, as the server does)
    ("sim_user_LRU_batch_pages", "pages/s"),
    # the I/O path: a neighbour process on the same device (pidstat kB_wr/s of that process),
    # and journal commits that an fsync forced (ext4 data=ordered)
    ("sim_neighbour_wkB_s", "kB/s"),
    ("sim_journal_commits_forced", "1/s"),
    # time data-page reads waited for ext4's inode lock (O_DIRECT, kernels 4.9-5.5)
    ("sim_dio_lock_wait_ms", "ms/s"),
    # redo log writes (one write + fsync each) and the time commits waited for them
    ("log_writes", "writes/s"),
    ("sim_commit_wait_ms", "ms/s"),
    # user threads' searches of the LRU for a clean page (buf_LRU_scan_and_free_block): pages
    # examined, and the time other threads waited for the mutex a search held
    ("buffer_LRU_search_scanned", "pages/s"),
    ("sim_LRU_mutex_wait_ms", "ms/s"),
    # read-write transactions committed (INNODB_METRICS trx_rw_commits): the binary log's
    # transactions, for the write-amplification chain's optional binlog stage
    ("trx_rw_commits", "trx/s"),
    # pages written as a flushed page's neighbours (innodb_flush_neighbors), in either batch
    ("buffer_flush_neighbor_total_pages", "pages/s"),
)
COLUMNS = tuple(name for name, _ in _COLUMNS)
COL = {name: i for i, name in enumerate(COLUMNS)}
N_COLS = len(COLUMNS)
# the series' transaction latency, from the kernel's histogram (run.latency_quantiles)
LATENCY_COLUMNS = ("sim_trx_latency_p99_ms", "sim_trx_latency_max_ms")
COLUMN_UNITS = dict(_COLUMNS) | {name: "ms" for name in LATENCY_COLUMNS}
# Columns that are not whole numbers; every other column is an integer count or gauge.
FLOAT_COLUMNS = frozenset(
    {
        "buffer_flush_avg_page_rate",
        "buffer_flush_lsn_avg_rate",
        "sim_redo_wait_ms",
        "sim_free_wait_ms",
        "rkB_s",
        "wkB_s",
        "aqu_sz",
        "r_await_ms",
        "w_await_ms",
        "util_pct",
        "sim_fsync_latency_ms",
        "sim_neighbour_wkB_s",
        "sim_dio_lock_wait_ms",
        "sim_commit_wait_ms",
        *LATENCY_COLUMNS,
    }
)

C_TIME = COL["time_s"]
C_TOTAL = COL["buffer_pool_pages_total"]
C_FREE = COL["buffer_pool_pages_free"]
C_DATA = COL["buffer_pool_pages_data"]
C_DIRTY = COL["buffer_pool_pages_dirty"]
C_OLD = COL["buffer_pool_pages_old"]
C_LRU_FLUSH = COL["buffer_LRU_batch_flush_total_pages"]
C_LRU_EVICT = COL["buffer_LRU_batch_evict_total_pages"]
C_LRU_SCANNED = COL["buffer_LRU_batch_scanned"]
C_ADAPTIVE = COL["buffer_flush_adaptive_total_pages"]
C_BACKGROUND = COL["buffer_flush_background_total_pages"]
C_SYNC = COL["buffer_flush_sync_total_pages"]
C_BATCH = COL["buffer_flush_batch_total_pages"]
C_NEIGHBOR = COL["buffer_flush_neighbor_total_pages"]
C_SINGLE = COL["sim_single_page_flushes"]
C_SINGLE_FAIL = COL["buffer_LRU_single_flush_failure_count"]
C_FREE_WAITS = COL["buffer_LRU_get_free_waits"]
C_WAIT_FREE = COL["buffer_pool_wait_free"]
C_DBLWR_PAGES = COL["innodb_dblwr_pages_written"]
C_DBLWR_WRITES = COL["innodb_dblwr_writes"]
C_PC_ROUNDS = COL["sim_page_cleaner_rounds"]
C_N_REQ = COL["buffer_flush_n_to_flush_requested"]
C_PCT_DIRTY = COL["buffer_flush_pct_for_dirty"]
C_PCT_LSN = COL["buffer_flush_pct_for_lsn"]
C_AVG_PAGE = COL["buffer_flush_avg_page_rate"]
C_AVG_LSN = COL["buffer_flush_lsn_avg_rate"]
C_LSN = COL["log_lsn_current"]
C_CKPT = COL["log_lsn_last_checkpoint"]
C_CKPT_AGE = COL["log_lsn_checkpoint_age"]
C_AGE_ASYNC = COL["log_max_modified_age_async"]
C_AGE_SYNC = COL["log_max_modified_age_sync"]
C_REDO_WAIT = COL["sim_redo_wait_ms"]
C_DML_READS = COL["dml_reads"]
C_DML_UPDATES = COL["dml_updates"]
C_READ_REQ = COL["buffer_pool_read_requests"]
C_READS = COL["buffer_pool_reads"]
C_YOUNG = COL["buffer_pages_made_young"]
C_NOT_YOUNG = COL["buffer_pages_not_made_young"]
C_TPS = COL["sim_tps"]
C_TRX_RW = COL["trx_rw_commits"]
C_FREE_WAIT_MS = COL["sim_free_wait_ms"]
C_R_S = COL["r_s"]
C_W_S = COL["w_s"]
C_RKB = COL["rkB_s"]
C_WKB = COL["wkB_s"]
C_AQU = COL["aqu_sz"]
C_R_AWAIT = COL["r_await_ms"]
C_W_AWAIT = COL["w_await_ms"]
C_UTIL = COL["util_pct"]
C_FSYNCS = COL["sim_fsyncs"]
C_FSYNC_LAT = COL["sim_fsync_latency_ms"]
C_USER_LRU = COL["sim_user_LRU_batch_pages"]
C_NB_WKB = COL["sim_neighbour_wkB_s"]
C_JBD_FORCED = COL["sim_journal_commits_forced"]
C_DIO_WAIT = COL["sim_dio_lock_wait_ms"]
C_LOG_WRITES = COL["log_writes"]
C_COMMIT_WAIT = COL["sim_commit_wait_ms"]
C_SEARCH_SCANNED = COL["buffer_LRU_search_scanned"]
C_LRU_MUTEX_WAIT = COL["sim_LRU_mutex_wait_ms"]

# Latency histogram: 8 buckets per power of two of microseconds (12.5 % resolution).
HIST_BUCKETS = 48 * 8

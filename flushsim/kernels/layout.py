"""Array layout shared by the numba kernel and its pure-Python twin: dtypes, sentinels, indices.

The kernel keeps its state in a few plain arrays (numba caches module-level functions on arrays,
not jitclasses). Each index below names one field. Frames are stored as rows so that the fields
of one frame share a cache line (docs/development.md, bytes per frame): 9 int32 fields plus 2
int64 fields is 52 bytes of state per frame.
"""

from __future__ import annotations

NO_PAGE = -1  # empty frame / no frame for a page
NIL = -1  # end of a linked list
# The kernel tests for both as `f < 0` (and `f >= 0`), not `f == NIL`: numba wraps a negative
# index (index + size) on every array access, and after `f >= 0` LLVM drops that for f.
# 1.3 % fewer instructions a default run (benchmarks/instructions.py), the series unchanged.

# ---------------------------------------------------------------- frame fields (int32 rows)
F_PAGE = 0  # table page held by the frame, or NO_PAGE
F_PREV = 1  # LRU list: towards the head (young end)
F_NEXT = 2  # LRU list: towards the tail (eviction end); free list: the next free frame
F_FPREV = 3  # flush list: towards the head (newest oldest_modification)
F_FNEXT = 4  # flush list: towards the tail (oldest)
F_LRU = 5  # ON_FREE, or on the LRU list: LRU_YOUNG / LRU_OLD (old sublist)
F_IO = 6  # IO_NONE or the kind of write in flight
F_ACCESS_MS = 7  # first access time of the page in ms (0 = not accessed yet)
F_FCLOCK = 8  # pool freed_page_clock when the page was last put at the LRU head
N_FRAME_I32 = 9

# F_LRU values: one field for "on the LRU list" and "in its old sublist" (4 bytes a frame less)
ON_FREE = 0
LRU_YOUNG = 1
LRU_OLD = 2

# frame fields (int64 rows)
L_OLDEST = 0  # oldest_modification LSN, 0 if clean
L_IO_LATCH = 1  # when the write in flight latched the page: its doublewrite chunk's start (us)
N_FRAME_I64 = 2

IO_NONE = 0
IO_LRU = 1  # page-cleaner LRU batch write: the page is evicted when it completes
IO_LIST = 2  # flush-list batch write: the page stays in the LRU, clean
IO_SINGLE = 3  # user thread's synchronous single-page flush
IO_MA_LRU = 4  # MariaDB 10.11 LRU write: the page stays in the LRU, clean, until a later pass

# ---------------------------------------------------------------- per-instance fields (int64)
I_LRU_HEAD = 0
I_LRU_TAIL = 1
I_LRU_LEN = 2
I_LRU_OLD = 3  # first (head-most) frame of the old sublist, NIL if none
I_OLD_LEN = 4
I_FL_HEAD = 5
I_FL_TAIL = 6
I_FL_LEN = 7
I_FREE_LEN = 8  # frames on the free list of this instance
I_FREED_CLOCK = 9  # pages evicted so far (freed_page_clock)
I_PEND_LRU = 10  # LRU-batch writes in flight
I_PEND_LIST = 11  # flush-list-batch writes in flight
I_TRY_LRU_SCAN = 12  # user threads may scan the LRU tail for a clean page
I_FIRST_FRAME = 13  # frames [first, first + size) belong to this instance
I_SIZE = 14
I_PEND_DONE = 15  # completion time of the last write dispatched by this instance's batches
I_FREE_HEAD = 16  # first frame of the free list (linked through F_NEXT), NIL if empty
# What the last scan_and_free learnt, kept exact by the list operations of pool.py: the first
# I_SCAN_N frames from the LRU tail are I_SCAN_PRE..+I_SCAN_N in order, none replaceable,
# and I_SCAN_NEXT is the frame after them (NIL at the head). The next scan starts there.
I_SCAN_N = 17
I_SCAN_NEXT = 18
I_SCAN_PRE = 19
SCAN_CACHE = 100  # frames remembered: BUF_LRU_SEARCH_SCAN_THRESHOLD
# The LRU's mutex (MySQL: the instance's LRU_list_mutex; MariaDB: buf_pool.mutex) is held by a
# user thread's LRU search or an LRU batch until (us): sim.lru_search, mariadb.ma_lru_batch
I_LRU_MUTEX = I_SCAN_PRE + SCAN_CACHE
# buf_pool.lru_scan_itr: where the last search stopped (NIL: none). A search resumes there if it
# is in the young part of the LRU, else at the tail (LRUItr::start); removing its frame moves it
# to the previous one (LRUHp::adjust)
I_LRU_ITR = I_LRU_MUTEX + 1
N_INST = I_LRU_ITR + 1

# ---------------------------------------------------------------- globals (int64)
G_NOW = 0  # time of the event being processed, us
G_LSN = 1  # current LSN (bytes of redo since start)
G_CKPT = 2  # last checkpoint LSN
G_ACTIVITY = 3  # srv activity count: +1 per committed transaction
G_DEV_BUSY = 4  # device write FIFO busy until (us)
G_RING_HEAD = 5
G_RING_TAIL = 6
G_PC_LOOP_START = 7  # page cleaner: start of the current 1 s loop
G_PC_LAST_ACTIVITY = 8
G_PC_ACTIVE = 9  # is_server_active of the last TIMEOUT
G_PC_EVENT = 10  # buf_flush_event is set
G_PC_SYNC = 11  # the last round was a sync-flush round
G_PC_LAST_PAGES = 12  # n_flushed_list of the last round (feeds avg_page_rate)
G_PC_N_FLUSHED = 13  # pages flushed by the last round (decides whether it sleeps)
G_AF_INIT = 14  # page_recommendation has been called once
G_AF_PREV_LSN = 15
G_AF_PREV_TIME = 16
G_AF_N_ITER = 17
G_AF_SUM_PAGES = 18
G_SEQ_CURSOR = 19  # sequential workload: next row
G_WL_DONE = 20  # sequential workload reached its end
G_SECOND = 21  # seconds already sampled
G_TL_NEXT = 22  # next timeline event
G_PC_DISABLED = 23
G_N_ACTIVE_THREADS = 24
G_END = 25  # simulation end time, us
G_TRX_TOTAL = 26
G_PC_ROUND_END = 27  # when the page cleaner's last round finished dispatching
G_WL_RUNNING = 28  # the workload is running (timeline stop/start)
G_N_THREADS_MAX = 29  # thread slots allocated
G_DEV_BUSY_READ = 30  # device read FIFO busy until (us)
# MariaDB page cleaner (mariadb.py)
G_MA_ASYNC_LSN = 31  # buf_flush_async_lsn
G_MA_SYNC_LSN = 32  # buf_flush_sync_lsn
G_MA_IDLE = 33  # buf_pool.page_cleaner_idle()
G_MA_LAST_ACTIVITY = 34  # the page cleaner's last_activity_count
G_MA_ABSTIME = 35  # end of the next timed wait (us)
G_MA_PHASE = 36  # PH_*: where the cleaner resumes after waiting for its writes
G_MA_LRU_N = 37  # LRU budget of a pass that waits for pending writes first
G_MA_LRU_BUSY = 38  # an LRU batch (buf_pool.n_flush_LRU) has writes in flight until (us)
G_MA_WAKE_ACTIVITY = 39  # buf_pool.last_activity_count (page_cleaner_wakeup)
G_SLEEP = 40  # set by a user thread that must sleep (a page's write, a free block): until (us)
# the I/O path (io.py): a neighbour process's buffered writes and the ext4 journal
G_NB_LAST = 41  # neighbour's dirty page-cache bytes are accounted up to this time (us)
G_NB_DIRTY = 42  # neighbour's dirty page-cache bytes not yet written back
G_JBD_LAST = 43  # time of the last journal commit / writeback of the neighbour's data (us)
G_WB_END = 44  # the neighbour's writeback stream occupies the device until (us)
# ext4 O_DIRECT on kernels 4.9-5.5: the data file's inode lock (io.read_data_page)
G_LOCK_IDX = 45  # ring index of the next page write whose lock is not yet placed
G_LOCK_LAST = 46  # the latest writer holds or waits for the lock until (us)
G_RD_DONE_MAX = 47  # latest completion of a data-page read submitted so far (us)
# redo log writes (io.log_flush): the last write + fsync of the log
G_LOG_FLUSH_LSN = 48  # LSN the last log flush makes durable (its group joined in)
G_LOG_FLUSH_START = 49  # when it starts (us): a commit before then joins it
G_LOG_FLUSH_END = 50  # when its fsync returns (us)
G_LOG_BUSY = 51  # the FIFO of small synchronous writes (log, journal) is busy until (us)
# trx_rate (a paced, open-loop workload)
G_PACE_BASE = 52  # the shared schedule's start k = 0 (ns); start k is at base + k * 1e9 / rate
G_PACE_K = 53  # the next start's k
G_PACE_EPOCH = 54  # the schedule restarted at (us): start slots claimed before it are void
G_FREE_K = 55  # with G_SLEEP, from get_free_block: 1 + the iteration to resume at (0: none;
#   -(1 + the iteration): back from a single-page flush's I/O, past the flush)
G_HELD = 56  # with it: 1 + the frame that single-page flush holds until its I/O is done (0: none)
G_LOCK_FLOOR = 57  # earliest completion (us) of a page write whose lock is not yet placed (0: none)
G_FREE_CHECK = 58  # redo_limits' limit_for_free_check for the knobs now (LSN bytes): sim.py
G_NEXT_PAGE = 59  # hint only: the page prefetch_uniform looked ahead to (sim.py)
N_G = 60

# The kernel's `scatter` argument packs two row maps: (prime << SCATTER_SHIFT) | bits. A zipf
# rank r is row r * prime % table_rows; hot-set row j is sim.spread_row(j, rows, bits).
SCATTER_SHIFT = 6
SCATTER_BITS_MASK = (1 << SCATTER_SHIFT) - 1
# sim.spread_row: odd multiplier of the row permutation. Below 2**26, so that x * SPREAD_KEY
# stays below 2**63 for every x below 2**37 (table_rows <= 10**11).
SPREAD_KEY = 0x2F0B3A5

PH_TOP = 0  # the loop top, right after the wait
PH_FURIOUS_DONE = 1  # furious batch written: fsync, checkpoint, clear the targets
PH_LRU_PASS = 2  # pending writes done: run the LRU pass of G_MA_LRU_N pages
MA_LOG_START_OFFSET = 12288  # log_t::START_OFFSET (10.8+ ib_logfile0 format)
MA_MIB = 1 << 20

INF_TIME = 1 << 62
PC_ROUND_BASE_US = 50  # sim constant: CPU time of one page-cleaner round
PC_PAGE_US = 1  # sim constant: CPU time to dispatch one page write
FREE_WAIT_SLEEP_US = 10_000  # buf_LRU_get_free_block: os_thread_sleep(10000)
REDO_WAIT_POLL_US = 1_000  # sim constant: a thread waiting in log_free_check re-checks this often
SINGLE_FLUSH_POLL_US = 100  # sim constant: an update of a page in a single-page flush re-checks
JBD_COMMIT_US = 5_000_000  # ext4 commit=5 (the default): the journal commits every 5 s
WRITEBACK_CHUNK = 512 * 1024  # sim constant: bytes per writeback request (max_sectors_kb 512)
WRITEBACK_QD = 16  # sim constant: writeback requests the block layer keeps in flight
JOURNAL_BLOCK = 4096  # bytes of the journal commit block
LOG_WRITE_ALIGN = 4096  # sim constant: a redo write is rounded up to whole 4 KiB blocks

# globals (float64)
GF_PAGE_AVG_RATE = 0  # Adaptive_flush page_avg_rate, pages/s
GF_LSN_AVG_RATE = 1  # Adaptive_flush lsn_avg_rate, bytes/s
N_GF = 2

# ---------------------------------------------------------------- knob vector (float64)
KNOBS = (
    "innodb_buffer_pool_size",
    "innodb_buffer_pool_instances",
    "innodb_page_size",
    "innodb_old_blocks_pct",
    "innodb_old_blocks_time",
    "innodb_page_cleaners",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_lru_scan_depth",
    "innodb_max_dirty_pages_pct",
    "innodb_max_dirty_pages_pct_lwm",
    "innodb_adaptive_flushing",
    "innodb_adaptive_flushing_lwm",
    "innodb_flushing_avg_loops",
    "innodb_idle_flush_pct",
    "innodb_flush_sync",
    "innodb_page_cleaner_disabled_debug",
    "innodb_doublewrite",
    "innodb_doublewrite_pages",
    "innodb_redo_log_capacity",
    "innodb_thread_concurrency",
    "workload",
    "threads",
    "table_rows",
    "rows_per_page",
    "rows_per_trx",
    "write_pct",
    "hot_rows",
    "hot_pct",
    "seq_start_row",
    "seq_end_row",
    "think_time_us",
    "cpu_us_per_row",
    "redo_bytes_per_change",
    "device_read_iops",
    "device_read_bandwidth_mb_s",
    "device_read_latency_us",
    "device_write_latency_us",
    "device_fsync_latency_us",
    # appended for MariaDB (issue 3); MySQL runs leave them at KNOB_FILL
    "innodb_lru_flush_size",
    "innodb_log_file_size",
    "engine",
    # appended for the I/O path (issue 4)
    "innodb_flush_method",
    "filesystem",
    "neighbour_write_mb_s",
    "linux_kernel",
    "innodb_flush_log_at_trx_commit",
    # appended for replay (issue 7)
    "trx_rate",
    # the MariaDB release within the 10.6 generation (issue 3)
    "version",
    # Percona Server's formula of the redo-age term (issue 5, seed 004)
    "innodb_cleaner_lsn_age_factor",
    # how the drive takes a cache flush: queued (NVMe) or after the commands in flight (SATA)
    "device_interface",
    # a device's reads and writes have their own rates (a data-center NVMe reads 10x faster)
    "device_write_iops",
    "device_write_bandwidth_mb_s",
)
KNOB_INDEX = {name: i for i, name in enumerate(KNOBS)}
N_KNOBS = len(KNOBS)

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
K_ENGINE = KNOB_INDEX["engine"]
K_FLUSH_METHOD = KNOB_INDEX["innodb_flush_method"]
K_FS = KNOB_INDEX["filesystem"]
K_NB_MB_S = KNOB_INDEX["neighbour_write_mb_s"]
K_KERNEL = KNOB_INDEX["linux_kernel"]
K_TRX_COMMIT = KNOB_INDEX["innodb_flush_log_at_trx_commit"]
K_VERSION = KNOB_INDEX["version"]
K_LSN_AGE_FACTOR = KNOB_INDEX["innodb_cleaner_lsn_age_factor"]
K_DEV_INTERFACE = KNOB_INDEX["device_interface"]

# The kernel value of a knob the engine does not have. innodb_doublewrite_pages: MariaDB writes
# the doublewrite area in batches of up to 128 pages (buf_dblwr_t::block_size(), 2 x 64 pages).
KNOB_FILL = {
    "innodb_idle_flush_pct": 0.0,
    "innodb_page_cleaner_disabled_debug": 0.0,
    "innodb_doublewrite_pages": 128.0,
    "innodb_redo_log_capacity": 0.0,
    "innodb_log_files_in_group": 0.0,
    "innodb_thread_concurrency": 0.0,
    "innodb_lru_flush_size": 0.0,
    "version": 0.0,
    "innodb_cleaner_lsn_age_factor": 0.0,  # legacy: the only formula of MySQL and MariaDB
}
ENGINE_CODES = {"mysql-8.0": 0, "mariadb-10.6": 1, "mariadb-10.11": 2}
ENG_MYSQL80, ENG_MARIADB106, ENG_MARIADB1011 = 0, 1, 2

# enum encodings
WORKLOADS = ("uniform", "zipf", "hotset", "sequential")
WL_UNIFORM, WL_ZIPF, WL_HOTSET, WL_SEQUENTIAL = 0, 1, 2, 3
DOUBLEWRITE = {"OFF": 0, "ON": 1, "DETECT_AND_RECOVER": 1, "DETECT_ONLY": 2}
FLUSH_METHODS = ("fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC")
FM_FSYNC, FM_O_DSYNC, FM_O_DIRECT, FM_O_DIRECT_NO_FSYNC = 0, 1, 2, 3
FILESYSTEMS = ("ext4", "ext4-dioread_nolock", "xfs")
FS_EXT4, FS_EXT4_NOLOCK, FS_XFS = 0, 1, 2
# Percona Server's innodb_cleaner_lsn_age_factor (its typelib's order and spelling)
LSN_AGE_FACTORS = ("legacy", "high_checkpoint")
LAF_LEGACY, LAF_HIGH_CHECKPOINT = 0, 1
# device_interface: NVMe queues a Flush with other commands; SATA's FLUSH CACHE is not an NCQ
# command, so it runs once the commands in flight at the drive (at most NCQ_DEPTH) are done
DEVICE_INTERFACES = ("nvme", "sata")
IF_NVME, IF_SATA = 0, 1
NCQ_DEPTH = 32  # AHCI / SATA native command queuing: 32 commands in flight at most
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
# MariaDB releases of the 10.6 generation (engine mariadb-10.6: 10.6.0-10.6.17, 10.11.0-10.11.7);
# the kernel sees major * 10000 + minor * 100 + patch. From 10.6.13 / 10.11.3 (MDEV-26827) the
# page cleaner also flushes the LRU (mariadb.cleaner_flushes_lru).
MARIADB106_VERSIONS = tuple(f"10.6.{p}" for p in range(18)) + tuple(f"10.11.{p}" for p in range(8))
MA_CLEANER_LRU_FROM_106 = 13  # 10.6.13: the first 10.6 release with MDEV-26827
MA_CLEANER_LRU_FROM_1011 = 3  # 10.11.3
# The adaptive-flushing recommendation (mariadb.recommendation) by release: MDEV-26055 (commit
# d4265fb, 10.6.13 / 10.11.3, the changelog of 10.6.13) corrected the formula and passed
# pct_lwm = 0 at every call, so the recommendation ignored the dirty ratio and the checkpoint age
# until MDEV-31939 (10.5.24 / 10.6.17 / 10.11.7, 7 Feb 2024) passed innodb_max_dirty_pages_pct_lwm.
MA_AF_FORMULA_FROM_106, MA_AF_FORMULA_FROM_1011 = 13, 3
MA_AF_PCT_LWM_FROM_106, MA_AF_PCT_LWM_FROM_1011 = 17, 7
# the file an fsync is for (io.fsync)
FILE_DBLWR, FILE_DATA, FILE_LOG = 0, 1, 2

# ---------------------------------------------------------------- timeline actions
TL_SET = 0  # set knob tl_knob to tl_value
TL_WORKLOAD_STOP = 1
TL_WORKLOAD_START = 2

# ---------------------------------------------------------------- output columns (float64)
COLUMNS = (
    "time_s",
    # pool gauges (end of second)
    "buffer_pool_pages_total",
    "buffer_pool_pages_free",
    "buffer_pool_pages_data",
    "buffer_pool_pages_dirty",
    "buffer_pool_pages_old",  # sim: LRU old sublist length (InnoDB: "Old database pages")
    # flushing counters (per second)
    "buffer_LRU_batch_flush_total_pages",
    "buffer_LRU_batch_evict_total_pages",
    "buffer_LRU_batch_scanned",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_flush_batch_total_pages",
    "sim_single_page_flushes",
    "buffer_LRU_single_flush_failure_count",
    "buffer_LRU_get_free_waits",
    "buffer_pool_wait_free",
    "innodb_dblwr_pages_written",
    "innodb_dblwr_writes",
    "sim_page_cleaner_rounds",
    # adaptive-flushing gauges (last round of the second)
    "buffer_flush_n_to_flush_requested",
    "buffer_flush_pct_for_dirty",
    "buffer_flush_pct_for_lsn",
    "buffer_flush_avg_page_rate",
    "buffer_flush_lsn_avg_rate",
    # redo
    "log_lsn_current",
    "log_lsn_last_checkpoint",
    "log_lsn_checkpoint_age",
    "log_max_modified_age_async",
    "log_max_modified_age_sync",
    "sim_redo_wait_ms",
    # work
    "dml_reads",
    "dml_updates",
    "buffer_pool_read_requests",
    "buffer_pool_reads",
    "buffer_pages_made_young",
    "buffer_pages_not_made_young",
    "sim_tps",
    "sim_free_wait_ms",
    # device, iostat style (attributed to the second an IO completes, as Linux counts them)
    "r_s",
    "w_s",
    "rkB_s",
    "wkB_s",
    "aqu_sz",
    "r_await_ms",
    "w_await_ms",
    "util_pct",
    "sim_fsyncs",
    "sim_fsync_latency_ms",
    # MariaDB 10.6-generation: pages written by user threads' own LRU batches (also counted in
    # buffer_LRU_batch_flush_total_pages, as the server does)
    "sim_user_LRU_batch_pages",
    # the I/O path: a neighbour process on the same device (pidstat kB_wr/s of that process),
    # and journal commits that an fsync forced (ext4 data=ordered)
    "sim_neighbour_wkB_s",
    "sim_journal_commits_forced",
    # time data-page reads waited for ext4's inode lock (O_DIRECT, kernels 4.9-5.5), ms per s
    "sim_dio_lock_wait_ms",
    # redo log writes (one write + fsync each) and the time commits waited for them
    "log_writes",
    "sim_commit_wait_ms",
    # user threads' searches of the LRU for a clean page (buf_LRU_scan_and_free_block): pages
    # examined, and the time other threads waited for the mutex a search held (ms per s)
    "buffer_LRU_search_scanned",
    "sim_LRU_mutex_wait_ms",
    # read-write transactions committed (INNODB_METRICS trx_rw_commits): the binary log's
    # transactions, for the write-amplification chain's optional binlog stage
    "trx_rw_commits",
)
COL = {name: i for i, name in enumerate(COLUMNS)}
N_COLS = len(COLUMNS)

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

# redo constants (log0constants.h, log0files_capacity.cc; docs/model.md, section Redo)
LOG_START_LSN = 16 * 1024
BUF_LRU_OLD_MIN_LEN = 512
BUF_LRU_MIN_LEN = 256
BUF_LRU_OLD_TOLERANCE = 20
BUF_LRU_NON_OLD_MIN_LEN = 5
BUF_LRU_OLD_RATIO_DIV = 1024
BUF_LRU_SEARCH_SCAN_THRESHOLD = 100
FREE_BLOCK_MAX_ITERATIONS = 100_000  # guard: a user thread gives up (never seen in practice)
# sim constant: CPU time (ns) to examine one LRU page in a search, one dependent main-memory
# reference (docs/development.md, memory latency: about 100 ns); the descriptors are far apart
LRU_SCAN_NS = 100

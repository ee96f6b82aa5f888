"""Array layout shared by the numba kernel and its pure-Python twin: dtypes, sentinels, indices.

The kernel's public schema (knob vector, output columns, enum codes) is `flushsim/schema.py`;
this module holds the state's private fields.

The kernel keeps its state in a few plain arrays (numba caches module-level functions on arrays,
not jitclasses). Each index below names one field. Frames are stored as rows so that the fields
of one frame share a cache line (docs/development.md, bytes per frame): 10 int32 fields plus 2
int64 fields is 56 bytes of state per frame, and the LRU's run index (R_*) at most 24 more.
"""

from __future__ import annotations

from collections import namedtuple

from .. import schema as S

# the engine codes the kernel (engine.py) and its twin have code for; check_engine refuses others
ENGINES_HANDLED = (S.ENG_MYSQL80, S.ENG_MARIADB106, S.ENG_MARIADB1011, S.ENG_MYSQL84)

# ---------------------------------------------------------------- the state, grouped by concept
# A kernel function takes the groups it touches (numba passes a tuple's fields as arguments),
# plus the vectors g (G_*, int64), gf (GF_*, float64) and knobs (schema.K_*, float64).
# the buffer pool: frames (F_* int32 rows, L_* int64 rows), instances (I_*), page -> frame,
# and the runs of the LRU list (R_* int32 rows: lru_runs.py, the host's index for the search)
Pool = namedtuple("Pool", ["fr", "frl", "inst", "page_frame", "runs"])
# the write-completion ring (io.py): frame and completion time (us) of each write in flight
Ring = namedtuple("Ring", ["ring_frame", "ring_done"])
# the scheduler: each entity's next event time (us), the binary heap of keys time << 16 | id
# (scheduler.py) and each id's place in it
Sched = namedtuple("Sched", ["times", "heap", "pos"])
# user threads: TH_* rows and the CPU time not yet added (us)
Threads = namedtuple("Threads", ["th", "th_cpu"])
# the workload: the random stream's state, the zipf CDF and the packed row maps (schema.SCATTER_*)
Load = namedtuple("Load", ["rng", "zipf_cdf", "scatter"])
# what a run returns: per-second columns (schema.C_*) and the latency histogram
Series = namedtuple("Series", ["out", "hist"])
# the timeline's events, in time order (schema.TL_*)
Timeline = namedtuple("Timeline", ["tl_time", "tl_kind", "tl_knob", "tl_value"])
# MySQL's page cleaner coordinator: each instance's slot result and the cleaner threads' clocks
Cleaners = namedtuple("Cleaners", ["slots", "clocks"])
# a whole run between two calls of sim.run_state, so it can be kept, copied and resumed: the
# knobs as its timeline left them, the vectors g and gf, and the groups above. The series has
# rows for the latest second the run may be resumed to (a write counted ahead lands there).
State = namedtuple(
    "State", ["knobs", "g", "gf", "pool", "series", "ring", "cleaners", "threads", "sched", "load"]
)

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
F_FREED_CLOCK = 8  # pool freed_page_clock when the page was last put at the LRU head
F_RUN = 9  # the run of the LRU list holding the frame (lru_runs.py), NIL off the LRU
F_DIRTY = 10  # 1 while on the flush list (oldest_modification != 0): pool.replaceable's test
N_FRAME_I32 = 11

# F_LRU values: one field for "on the LRU list" and "in its old sublist" (4 bytes a frame less)
ON_FREE = 0
LRU_YOUNG = 1
LRU_OLD = 2

# frame fields (int64 rows)
L_OLDEST_MODIFICATION = 0  # oldest_modification LSN, 0 if clean
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
I_FREED_PAGE_CLOCK = 9  # pages evicted so far (freed_page_clock)
I_PENDING_LRU = 10  # LRU-batch writes in flight
I_PENDING_LIST = 11  # flush-list-batch writes in flight
I_TRY_LRU_SCAN = 12  # user threads may scan the LRU tail for a clean page
I_FIRST_FRAME = 13  # frames [first, first + size) belong to this instance
I_SIZE = 14
I_PENDING_DONE = 15  # completion time of the last write dispatched by this instance's batches
I_FREE_HEAD = 16  # first frame of the free list (linked through F_NEXT), NIL if empty
# What the last scan_and_free learnt, kept exact by the list operations of pool.py: the first
# I_SCAN_N frames from the LRU tail are I_SCAN_PRE..+I_SCAN_N in order, none replaceable,
# and I_SCAN_NEXT is the frame after them (NIL at the head). The next scan starts there.
I_SCAN_N = 17
I_SCAN_NEXT = 18
I_SCAN_PRE = 19
SCAN_CACHE = 100  # frames remembered: BUF_LRU_SEARCH_SCAN_THRESHOLD
# The LRU's mutex (MySQL: the instance's LRU_list_mutex; MariaDB: buf_pool.mutex) is held by a
# user thread's LRU search or an LRU batch until (us): lru_search.lru_search, mariadb.ma_lru_batch
I_LRU_MUTEX = I_SCAN_PRE + SCAN_CACHE
# buf_pool.lru_scan_itr: where the last search stopped (NIL: none). A search resumes there if it
# is in the young part of the LRU, else at the tail (LRUItr::start); removing its frame moves it
# to the previous one (LRUHp::adjust)
I_LRU_ITR = I_LRU_MUTEX + 1
# MySQL's Double_write instance of this pool instance, one per flush type: its batch in flight
# completes (us) at this time, and the next batch of that type waits for it
# (Double_write::wait_for_pending_batch); on SATA, also for the data-file fsync that follows it
I_DBLWR_LRU_FREE = I_LRU_ITR + 1
I_DBLWR_LIST_FREE = I_DBLWR_LRU_FREE + 1
# MySQL's buf_pool.single_scan_itr: where the last single-page flush stopped (NIL: none); kept
# like I_LRU_ITR (LRUItr::start, LRUHp::adjust)
I_SINGLE_ITR = I_DBLWR_LIST_FREE + 1
# the run index (lru_runs.py): this instance's free run ids (linked through R_UP, NIL if none),
# and the next run id never used (ids of instance i start at its I_FIRST_FRAME)
I_RUN_FREE = I_SINGLE_ITR + 1
I_RUN_FRESH = I_RUN_FREE + 1
# what the last bounded search knew of lru_scan_itr (lru_search._scan_from): the frame, its run,
# how many frames from it to the run's head, and the run's R_VER then (the count holds while
# the frame is still there and the version unchanged)
I_ITR_AT = I_RUN_FRESH + 1
I_ITR_RUN = I_ITR_AT + 1
I_ITR_LEFT = I_ITR_RUN + 1
I_ITR_VER = I_ITR_LEFT + 1
N_INST = I_ITR_VER + 1

# ---------------------------------------------------------------- runs of the LRU list (int32 rows)
# Host work only (lru_runs.py): a run is a stretch of consecutive LRU frames; the search skips
# a run known to hold no replaceable frame, counting its length as pages examined.
R_LEN = 0  # frames in the run (never 0: an emptied run is freed)
R_TAIL = 1  # its tail-most frame (towards the eviction end)
R_HEAD = 2  # its head-most frame
R_UP = 3  # the next run towards the LRU head, NIL if none; a free run: the next free run
R_DOWN = 4  # the next run towards the tail, NIL if none
R_CLEAN = 5  # frames of the run that are clean (F_DIRTY 0): replaceable (pool.replaceable)
R_VER = 6  # bumped whenever a frame joins or leaves the run
N_RUN = 7
RUN_LEN = 64  # frames a new run takes at the LRU head before the next run starts
RUN_MAX = 2 * RUN_LEN  # a run grown past this (midpoint insertions) is split in two
RUN_MIN = RUN_LEN // 4  # a run shrunk below this joins a neighbour that has room

# ---------------------------------------------------------------- globals (int64)
G_NOW = 0  # time of the event being processed, us
G_LSN = 1  # current LSN (bytes of redo since start)
G_CHECKPOINT_LSN = 2  # last checkpoint LSN
G_ACTIVITY = 3  # srv activity count: +1 per committed transaction
G_DEV_BUSY_WRITE = 4  # device write FIFO busy until (us)
G_RING_HEAD = 5
G_RING_TAIL = 6
G_PC_LOOP_START = 7  # page cleaner: start of the current 1 s loop
G_PC_LAST_ACTIVITY = 8  # the coordinator's last_activity: activity count at its last timeout
G_PC_ACTIVE = 9  # is_server_active, decided before the coordinator's sleep, for its next round
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
G_N_ACTIVE = 24
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
G_SLEEP_UNTIL = (
    40  # set by a user thread that must sleep (a page's write, a free block): until (us)
)
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
G_FREE_K = 55  # with G_SLEEP_UNTIL, from get_free_block: 1 + the iteration to resume at (0: none;
#   -(1 + the iteration): back from a single-page flush's I/O, past the flush)
G_HELD = 56  # with it: 1 + the frame that single-page flush holds until its I/O is done (0: none)
G_LOCK_FLOOR = 57  # earliest completion (us) of a page write whose lock is not yet placed (0: none)
G_FREE_CHECK = 58  # redo_limits' limit_for_free_check for the knobs now (LSN bytes): commit.py
G_NEXT_PAGE = 59  # hint only: the page prefetch_uniform looked ahead to (workload.py)
# MySQL's log_checkpointer (cleaner.log_checkpointer): its next timed wake-up (us), its
# old_activity_count, and when it last wrote a checkpoint (us)
G_CKPT_WAKE = 60
G_CKPT_ACTIVITY = 61
G_CKPT_TIME = 62
# the coordinator's was_server_active: commits in the second before its last timeout
G_PC_WAS_ACTIVE = 63
N_G = 64

# workload.spread_row: odd multiplier of the row permutation. Below 2**26, so that x * SPREAD_KEY
# stays below 2**63 for every x below 2**37 (table_rows <= 10**11).
SPREAD_KEY = 0x2F0B3A5

PH_TOP = 0  # the loop top, right after the wait
PH_FURIOUS_DONE = 1  # furious batch written: fsync, checkpoint, clear the targets
PH_LRU_PASS = 2  # pending writes done: run the LRU pass of G_MA_LRU_N pages
MA_LOG_START_OFFSET = 12288  # log_t::START_OFFSET (10.8+ ib_logfile0 format)
MA_MIB = 1 << 20

# "never": above every time a run reaches (scenario.MAX_SECONDS, 2**36 us), and small enough
# that the scheduler's heap keys, time << SCHED_ID_BITS | id, stay below 2**63
INF_TIME = 1 << 46
# a member of the wait group other than its representative (scheduler.py): below INF_TIME, above
# every time a run reaches; never seen outside event_loop
PARKED = 1 << 45
SCHED_ID_BITS = 16  # entities (threads + the page cleaner) have ids below 2**16
PC_ROUND_BASE_US = 50  # sim constant: CPU time of one page-cleaner round
PC_PAGE_US = 1  # sim constant: CPU time to dispatch one page write
FREE_WAIT_SLEEP_US = 10_000  # buf_LRU_get_free_block: os_thread_sleep(10000)
LOG_BUSY_CHECKPOINT_INTERVAL = 7  # log0chkp.cc log_checkpointer: a busy server's period x 7
REDO_WAIT_POLL_US = 1_000  # sim constant: a thread waiting in log_free_check re-checks this often
SINGLE_FLUSH_POLL_US = 100  # sim constant: an update of a page in a single-page flush re-checks
JBD_COMMIT_US = 5_000_000  # ext4 commit=5 (the default): the journal commits every 5 s
WRITEBACK_CHUNK = 512 * 1024  # sim constant: bytes per writeback request (max_sectors_kb 512)
WRITEBACK_QD = 16  # sim constant: writeback requests the block layer keeps in flight
JOURNAL_BLOCK = 4096  # bytes of the journal commit block
LOG_WRITE_ALIGN = 4096  # sim constant: a redo write is rounded up to whole 4 KiB blocks

# ---------------------------------------------------------------- user threads (int64 rows)
TH_ROWS_LEFT = 0  # thread state columns: rows left in the current transaction,
TH_ROWS_DONE = 1  # rows done in it,
TH_START = 2  # its start time (us),
TH_PENDING = 3  # page + 1 of a row kept for the next step (0: none),
TH_PENDING_WRITE = 4  # and whether that row is an update,
TH_WROTE = 5  # the transaction changed a row (its commit flushes the redo),
TH_COMMIT_PENDING = 6  # 1 while its commit waits for the clock before the log flush,
TH_COMMIT_LSN = 7  # and the LSN that flush must cover,
TH_SLOT = 8  # trx_rate: 1 + the start slot (us) it sleeps until (0: none)
TH_FREE_K = 9  # 1 + the get_free_block iteration it sleeps in (0: none; < 0: past a flush)
TH_HELD = 10  # 1 + the frame its single-page flush holds until it wakes (0: none)
TH_BEGUN = 11  # 1 while its transaction, begun at TH_START, waits in log_free_check
N_TH = 12

# globals (float64)
GF_PAGE_AVG_RATE = 0  # Adaptive_flush page_avg_rate, pages/s
GF_LSN_AVG_RATE = 1  # Adaptive_flush lsn_avg_rate, bytes/s
N_GF = 2

NCQ_DEPTH = 32  # AHCI / SATA native command queuing: 32 commands in flight at most
# MariaDB's `version` reaches the kernel as major * 10000 + minor * 100 + patch (schema.encode).
# From 10.6.13 / 10.11.3 (MDEV-26827) the page cleaner also flushes the LRU
# (mariadb.cleaner_flushes_lru).
MA_CLEANER_LRU_FROM_106 = 13  # 10.6.13: the first 10.6 release with MDEV-26827
MA_CLEANER_LRU_FROM_1011 = 3  # 10.11.3
# The adaptive-flushing recommendation (mariadb.recommendation) by release: MDEV-26055 (commit
# d4265fb, 10.6.13 / 10.11.3, the changelog of 10.6.13) corrected the formula and passed
# pct_lwm = 0 at every call, so the recommendation ignored the dirty ratio and the checkpoint age
# until MDEV-31939 (10.5.24 / 10.6.17 / 10.11.7, 7 Feb 2024) passed innodb_max_dirty_pages_pct_lwm.
MA_AF_FORMULA_FROM_106, MA_AF_FORMULA_FROM_1011 = 13, 3
MA_AF_PCT_LWM_FROM_106, MA_AF_PCT_LWM_FROM_1011 = 17, 7
# MDEV-33053 (10.6.17 / 10.11.7): a user thread that takes one of the last free pages wakes the
# page cleaner (free_block_mariadb.wake_for_free_pages); older releases do not
MA_LRU_WAKE_FROM_106, MA_LRU_WAKE_FROM_1011 = 17, 7
# MariaDB's FSP_EXTENT_SIZE: one megabyte of pages up to 16 KiB pages, 64 pages above
MA_EXTENT_BYTES, MA_EXTENT_MIN_PAGES = 1 << 20, 64
# MySQL's dblwr::REDUCED_BATCH_PAGE_SIZE: what innodb_doublewrite=DETECT_ONLY writes per batch
REDUCED_BATCH_PAGE_SIZE = 8192
# the file an fsync is for (io.fsync)
FILE_DBLWR, FILE_DATA, FILE_LOG = 0, 1, 2

# buf0lru.h / buf0lru.cc constants
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

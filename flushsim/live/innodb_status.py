"""Pasted `SHOW ENGINE INNODB STATUS`: the buffer pool and redo log state it prints.

The BUFFER POOL AND MEMORY, INDIVIDUAL BUFFER POOL INFO and LOG sections are read as MySQL 8.0
and MariaDB 10.6+ print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .source_text import WS, ConfigParseError, split_lines

# Section titles as srv_printf_innodb_monitor() (srv0srv.cc) prints them, each between two rows
# of dashes; buf_print_io() (buf0buf.cc) prints INDIVIDUAL BUFFER POOL INFO itself.
_TITLES = frozenset(
    {
        "BACKGROUND THREAD",
        "SEMAPHORES",
        "LATEST FOREIGN KEY ERROR",
        "LATEST DETECTED DEADLOCK",
        "TRANSACTIONS",
        "FILE I/O",
        "INSERT BUFFER AND ADAPTIVE HASH INDEX",
        "LOG",
        "BUFFER POOL AND MEMORY",
        "INDIVIDUAL BUFFER POOL INFO",
        "ROW OPERATIONS",
        "END OF INNODB MONITOR OUTPUT",
    }
)
_DASHES = re.compile(r"-{3,}")
_RULE = re.compile(r"[-=]{3,}")
_N = r"([0-9]{1,20})"  # ULINTPF / LSN_PF: at most 20 digits; longer is not a server number
# (field, prefix that names the line, the whole line). MySQL 8.0 prints them in buf0buf.cc
# buf_print_io_instance() (read in mysql/mysql-server). MariaDB 10.6+ prints them in buf0buf.cc
# buf_print_io() with two percent lines added and "Pending writes: LRU n, flush list n" without
# "single page"; checked against real 10.6+ outputs, not against that source.
# "Buffer pool size, bytes" is printed by some builds (Percona, older MariaDB).
_BP_LINES: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (key, re.compile(prefix), re.compile(whole))
    for key, prefix, whole in (
        ("pool_size_bytes", r"Buffer pool size, bytes", rf"Buffer pool size, bytes[ \t]+{_N}"),
        ("pool_size", r"Buffer pool size(?!,)", rf"Buffer pool size[ \t]+{_N}"),
        ("free", r"Free buffers", rf"Free buffers[ \t]+{_N}"),
        ("database_pages", r"Database pages", rf"Database pages[ \t]+{_N}"),
        ("old_database_pages", r"Old database pages", rf"Old database pages[ \t]+{_N}"),
        ("modified", r"Modified db pages", rf"Modified db pages[ \t]+{_N}"),
        ("pending_reads", r"Pending reads", rf"Pending reads[ \t]+{_N}"),
        (
            "pending_writes",
            r"Pending writes:",
            rf"Pending writes: LRU {_N}, flush list {_N}(?:,? single page {_N})?",
        ),
        ("made_young", r"Pages made young", rf"Pages made young {_N}, not young {_N}"),
        ("pages_read", r"Pages read(?! ahead)", rf"Pages read {_N}, created {_N}, written {_N}"),
        (
            "max_dirty_pct",
            r"Max dirty pages percent:",
            r"Max dirty pages percent: ([0-9]{1,3}(?:\.[0-9]{1,9})?)",
        ),
    )
)
_BP_REQUIRED = (
    ("pool_size", "Buffer pool size"),
    ("free", "Free buffers"),
    ("database_pages", "Database pages"),
    ("modified", "Modified db pages"),
)
_POOL_N = re.compile(rf"---BUFFER POOL {_N}")
# log0log.cc log_print(): MySQL 8.0 pads eight LSN labels to 29 columns (8.0.30+ adds the two
# "Log ... file id is" lines); MariaDB 10.6+ prints "Log sequence number", "Log flushed up to",
# "Pages flushed up to" and "Last checkpoint at" only. Every "label number" line is kept.
_LOG_LINE = re.compile(rf"([A-Z][A-Za-z ]*[a-z])[ \t]+{_N}")
_LOG_KEYS = (
    "Log sequence number",
    "Log flushed up to",
    "Pages flushed up to",
    "Last checkpoint at",
)


@dataclass(frozen=True)
class BufferPoolInfo:
    """One buffer pool (or the sum of all) as `buf_print_io_instance()` prints it; all in pages.

    Attributes:
        pool_size: `Buffer pool size`, frames in the pool.
        free: `Free buffers`, frames on the free list.
        database_pages: `Database pages`, pages on the LRU list (clean and dirty).
        old_database_pages: `Old database pages`, pages in the old sublist of the LRU.
        modified: `Modified db pages`, dirty pages (flush-list length).
        pending_reads: `Pending reads`.
        pending_writes_lru: `Pending writes: LRU n`.
        pending_writes_flush_list: `..., flush list n`.
        pending_writes_single_page: `..., single page n` (MySQL only; None on MariaDB 10.5+).
        pages_made_young: `Pages made young n` (pages, since start).
        pages_not_made_young: `..., not young n`.
        pages_read: `Pages read n` (pages, since start).
        pages_created: `..., created n`.
        pages_written: `..., written n`.
        line: 1-based line where this pool's block starts.
    """

    pool_size: int
    free: int
    database_pages: int
    modified: int
    old_database_pages: int | None = None
    pending_reads: int | None = None
    pending_writes_lru: int | None = None
    pending_writes_flush_list: int | None = None
    pending_writes_single_page: int | None = None
    pages_made_young: int | None = None
    pages_not_made_young: int | None = None
    pages_read: int | None = None
    pages_created: int | None = None
    pages_written: int | None = None
    line: int | None = None

    @property
    def dirty_pct(self) -> float:
        """Dirty pages in %, as buf_get_modified_ratio_pct() has it: modified / (LRU + free)."""
        return 100.0 * self.modified / (1 + self.database_pages + self.free)


@dataclass(frozen=True)
class InnodbStatus:
    """What `SHOW ENGINE INNODB STATUS` says about the buffer pool and the redo log.

    The pool's state at that moment (free, dirty, LRU pages; checkpoint age) is a possible
    starting state for a simulation; flushsim itself starts from an empty pool.

    Attributes:
        buffer_pool: the BUFFER POOL AND MEMORY totals (pages).
        instances: INDIVIDUAL BUFFER POOL INFO, one per instance; empty when the server has one
            pool (MySQL prints the section only for more than one; MariaDB 10.5+ has one).
        pool_size_bytes: `Buffer pool size, bytes` when printed (some builds), else None.
        max_dirty_pages_pct: `Max dirty pages percent` (MariaDB prints innodb_max_dirty_pages_pct).
        log: every `label number` line of the LOG section, label -> number (LSNs in bytes).
        flavour: "mysql" (MySQL 8.0 LOG lines), "mariadb" (MariaDB 10.5+ lines) or "unknown".
        section_line: 1-based line of the BUFFER POOL AND MEMORY title.
        lines: field -> 1-based line it was read from.
        incomplete: why the text is not a whole monitor output, one reason each (empty when
            whole): no `END OF INNODB MONITOR OUTPUT` line after the pool, or instances whose
            `Buffer pool size` do not add up to the total (buf_stats_aggregate_pool_info sums
            them). A cut text still has its totals; its instance count is not to be trusted.
    """

    buffer_pool: BufferPoolInfo
    instances: tuple[BufferPoolInfo, ...] = ()
    pool_size_bytes: int | None = None
    max_dirty_pages_pct: float | None = None
    log: dict[str, int] = field(default_factory=dict, hash=False)
    flavour: str = "unknown"
    section_line: int | None = None
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    incomplete: tuple[str, ...] = ()

    @property
    def pool_pages(self) -> int:
        """Frames in the buffer pool (pages)."""
        return self.buffer_pool.pool_size

    @property
    def free_pages(self) -> int:
        """Frames on the free list (pages)."""
        return self.buffer_pool.free

    @property
    def dirty_pages(self) -> int:
        """Modified pages waiting on the flush list (pages)."""
        return self.buffer_pool.modified

    @property
    def lru_pages(self) -> int:
        """Pages on the LRU list, clean and dirty (pages)."""
        return self.buffer_pool.database_pages

    @property
    def lsn(self) -> int | None:
        """`Log sequence number` (bytes of redo since the log was created), if printed."""
        return self.log.get("Log sequence number")

    @property
    def last_checkpoint(self) -> int | None:
        """`Last checkpoint at` (LSN, bytes), if printed."""
        return self.log.get("Last checkpoint at")

    @property
    def checkpoint_age(self) -> int | None:
        """Redo written since the last checkpoint (bytes): lsn - last checkpoint."""
        if self.lsn is None or self.last_checkpoint is None:
            return None
        return self.lsn - self.last_checkpoint

    @property
    def start(self) -> dict[str, int | float | None]:
        """The pool's state as a starting point: pages free, dirty, on the LRU; checkpoint age."""
        return {
            "pool_pages": self.pool_pages,
            "free_pages": self.free_pages,
            "lru_pages": self.lru_pages,
            "old_pages": self.buffer_pool.old_database_pages,
            "dirty_pages": self.dirty_pages,
            "dirty_pct": self.buffer_pool.dirty_pct,
            "lsn": self.lsn,
            "checkpoint_age_bytes": self.checkpoint_age,
        }


def status_lines(text: str | bytes) -> tuple[list[str], bool]:
    """The monitor text as lines, and whether its line breaks came escaped (as backslash-n)."""
    lines = split_lines(text)
    if any(ln.strip(WS) == "BUFFER POOL AND MEMORY" for ln in lines):
        return lines, False
    joined = "\n".join(lines)
    if "\\n" in joined:
        # a non-\G client or a program printed the Status column with its line breaks escaped
        joined = re.sub(r"\\([nt\\])", lambda m: {"n": "\n", "t": "\t"}.get(m[1], "\\"), joined)
        return joined.split("\n"), True
    return lines, False


def _section_titles(lines: list[str]) -> dict[int, str]:
    """Line index -> title, for titles framed by rules as srv_printf_innodb_monitor prints them."""
    out: dict[int, str] = {}
    for i in range(1, len(lines) - 1):
        title = lines[i].strip(WS)
        if (
            title in _TITLES
            and _DASHES.fullmatch(lines[i - 1].strip(WS))
            and _RULE.fullmatch(lines[i + 1].strip(WS))
        ):
            out[i] = title
    return out


class _Pool:
    """Fields of one pool block while it is being read."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.values: dict[str, tuple[int | float, ...]] = {}
        self.lines: dict[str, int] = {}

    def read(self, s: str, n: int, raw: str) -> bool:
        for key, prefix, whole in _BP_LINES:
            if prefix.match(s):
                m = whole.fullmatch(s)
                if m is None:
                    raise ConfigParseError(
                        f"a malformed '{prefix.pattern.split('(')[0].rstrip(':')}' line", n, raw
                    )
                conv = float if key == "max_dirty_pct" else int
                self.values[key] = tuple(conv(g) if g is not None else -1 for g in m.groups())
                self.lines[key] = n
                return True
        return False

    def whole(self) -> bool:
        """Whether every line a BufferPoolInfo needs was read."""
        return all(key in self.values for key, _ in _BP_REQUIRED)

    def info(self, where: str, raw: str) -> BufferPoolInfo:
        for key, label in _BP_REQUIRED:
            if key not in self.values:
                raise ConfigParseError(f"{where} has no '{label}' line", self.line, raw)

        def get(key: str, i: int = 0) -> int | None:
            v = self.values.get(key)
            return None if v is None or v[i] == -1 else int(v[i])

        return BufferPoolInfo(
            pool_size=int(self.values["pool_size"][0]),
            free=int(self.values["free"][0]),
            database_pages=int(self.values["database_pages"][0]),
            modified=int(self.values["modified"][0]),
            old_database_pages=get("old_database_pages"),
            pending_reads=get("pending_reads"),
            pending_writes_lru=get("pending_writes", 0),
            pending_writes_flush_list=get("pending_writes", 1),
            pending_writes_single_page=get("pending_writes", 2),
            pages_made_young=get("made_young", 0),
            pages_not_made_young=get("made_young", 1),
            pages_read=get("pages_read", 0),
            pages_created=get("pages_read", 1),
            pages_written=get("pages_read", 2),
            line=self.line,
        )


def parse_innodb_status(text: str | bytes) -> InnodbStatus:
    r"""Read the buffer pool and redo log state from pasted `SHOW ENGINE INNODB STATUS` output.

    Accepts the bare monitor text, the `\G` wrapper (`Type: InnoDB`, `Name:`, `Status:`), the
    table form, and the one-line form whose line breaks are escaped as literal `\n`. When the
    text holds several monitor outputs, the last one is read.

    Raises:
        ConfigParseError: no BUFFER POOL AND MEMORY section, a required line missing
            (`Buffer pool size`, `Free buffers`, `Database pages`, `Modified db pages`), or a
            known line whose numbers do not parse; naming the line.
    """
    lines, escaped = status_lines(text)
    try:
        return _read_status(lines)
    except ConfigParseError as exc:
        if not escaped:
            raise
        reason = exc.reason + " (line numbers count each literal \\n as a line break)"
        raise ConfigParseError(reason, exc.line, exc.text) from None


def _read_status(lines: list[str]) -> InnodbStatus:
    titles = _section_titles(lines)
    section = ""
    total: _Pool | None = None
    pools: list[_Pool] = []
    log: dict[str, int] = {}
    log_lines: dict[str, int] = {}
    after: list[str] = []  # the titles after the last BUFFER POOL AND MEMORY, in order
    for i, raw in enumerate(lines):
        n = i + 1
        if i in titles:
            section = titles[i]
            after.append(section)
            if section == "BUFFER POOL AND MEMORY":
                total, pools, after = _Pool(n), [], []  # a later output replaces an earlier one
            elif section == "LOG":
                log, log_lines = {}, {}
            continue
        s = raw.strip(WS)
        if section == "BUFFER POOL AND MEMORY" and total is not None:
            total.read(s, n, raw)
        elif section == "INDIVIDUAL BUFFER POOL INFO" and total is not None:
            if _POOL_N.fullmatch(s):
                pools.append(_Pool(n))
            elif s.startswith("---BUFFER POOL"):
                raise ConfigParseError("a malformed '---BUFFER POOL n' line", n, raw)
            elif pools:
                pools[-1].read(s, n, raw)
        elif section == "LOG":
            m = _LOG_LINE.fullmatch(s)
            if m is not None:
                log[m.group(1).strip(WS)] = int(m.group(2))
                log_lines[m.group(1).strip(WS)] = n
            elif any(s.startswith(k) for k in _LOG_KEYS):
                raise ConfigParseError("a LOG line whose value is not one number", n, raw)
    if total is None:
        raise ConfigParseError(
            "no 'BUFFER POOL AND MEMORY' section: paste the whole output of SHOW ENGINE INNODB "
            "STATUS (the \\G form is easiest)"
        )
    head = lines[total.line - 1]
    ended = "END OF INNODB MONITOR OUTPUT" in after
    if not after and not total.whole():  # the text ends in the pool's own section
        missing = [f"'{label}'" for key, label in _BP_REQUIRED if key not in total.values]
        raise ConfigParseError(
            "the text stops inside the BUFFER POOL AND MEMORY section, before its "
            f"{', '.join(missing)} line{'s' if len(missing) > 1 else ''}: it is cut short, paste "
            "the whole output",
            total.line,
            head,
        )
    aggregate = total.info("the BUFFER POOL AND MEMORY section", head)
    if not ended and pools and not pools[-1].whole():
        pools.pop()  # the text stops inside this instance's block: it is not a reading error
    instances = tuple(
        p.info(f"buffer pool instance at line {p.line}", lines[p.line - 1]) for p in pools
    )
    incomplete = _incomplete(ended, after, aggregate, instances)
    if "Log buffer assigned up to" in log:
        flavour = "mysql"  # log_print() of MySQL 8.0's lock-free redo log
    elif "max_dirty_pct" in total.values or (
        "pending_writes" in total.values and total.values["pending_writes"][2] == -1
    ):
        flavour = "mariadb"
    else:
        flavour = "unknown"
    bytes_ = total.values.get("pool_size_bytes")
    dirty_max = total.values.get("max_dirty_pct")
    return InnodbStatus(
        buffer_pool=aggregate,
        instances=instances,
        pool_size_bytes=int(bytes_[0]) if bytes_ else None,
        max_dirty_pages_pct=float(dirty_max[0]) if dirty_max else None,
        log=log,
        flavour=flavour,
        section_line=total.line,
        lines={**total.lines, **{f"log:{k}": v for k, v in log_lines.items()}},
        incomplete=incomplete,
    )


def _incomplete(
    ended: bool, after: list[str], total: BufferPoolInfo, instances: tuple[BufferPoolInfo, ...]
) -> tuple[str, ...]:
    """Why a status is not whole: srv_printf_innodb_monitor always ends with the END title."""
    out = []
    if not ended:
        last = after[-1] if after else "BUFFER POOL AND MEMORY"
        out.append(f"it ends in the {last} section, with no END OF INNODB MONITOR OUTPUT line")
    size = sum(p.pool_size for p in instances)
    if instances and size != total.pool_size:
        out.append(
            f"its {len(instances)} instance block{'s' if len(instances) > 1 else ''} hold "
            f"{size:,} of the {total.pool_size:,} pages of Buffer pool size"
        )
    return tuple(out)

"""Storage profiles: datasheet figures of real devices turned into the simulator's device knobs.

What this models: the device of `kernels/io.py`. A read occupies the device for
max(1/device_read_iops, bytes/device_read_bandwidth_mb_s), a write for the same with the write
figures, and each completes device_read_latency_us or device_write_latency_us after its service
ends; an fsync adds device_fsync_latency_us. The catalog `data/devices.csv` holds one row per
storage profile (an NVMe SSD, a SATA SSD, a cloud block volume, a spinning disk): the figures as
the cited source prints them (`datasheet_*`) and the latency knobs derived from them
(`device_*_latency_us`), with the source and the caveats of each row. The loader adds the rate
knobs, which are the datasheet's figures.

The rule, applied to every row:

- device_read_iops = datasheet_read_iops and device_write_iops = datasheet_write_iops, the
  random 4 KiB figures; the cost of a 16 KiB InnoDB page then follows from bandwidth in the
  kernel. Reads and writes share the device's time, each at its own rate, so a mix of R reads
  and W writes per second fits when R/device_read_iops + W/device_write_iops <= 1. By this rule
  the Intel DC P4500's 645,000 reads and 62,500 writes per second give about 170,000 random
  4 KiB I/Os per second at 70 % reads (not checked against a mixed figure of Intel's); one rate
  for both, the smaller, would cap every mix at 62,500 and its reads at a tenth of the sheet.
- device_read_bandwidth_mb_s = datasheet_read_mb_s and device_write_bandwidth_mb_s =
  datasheet_write_mb_s, the sequential figures.
  These four are not catalog columns: `load_devices` derives them, so they cannot disagree.
- device_read_latency_us, device_write_latency_us: the datasheet's typical latency where it prints
  one; else 1e6 / the datasheet's QD1 random 4 KiB IOPS where it prints those (the time of one
  I/O with nothing queued); else a cited measurement. The row's `note` says which figures the
  source did not print, where they came from, and which are unverified.
- device_interface (not a catalog column): "sata" for the sata-ssd and hdd kinds, whose cache
  flush waits for the commands in flight, else "nvme" (`interface`).
- device_rotational (not a catalog column): True for the hdd kind (`rotational`).
- device_fsync_latency_us: for a device with a volatile write cache, the cost of a cache flush,
  from a cited measurement; for one without (power-loss protection, or a volume that
  acknowledges only durable writes) a flush has nothing to drain and costs (nearly) nothing.

Units: IOPS in I/O per second, bandwidth in MB/s with 1 MB = 10**6 bytes (the kernel divides
bytes by bandwidth x 10**6; a source printing MiB/s is converted, and the note says so),
latencies in microseconds. The `device_*` values must lie in the ranges of the storage knobs of
`flushsim.params` (`BY_NAME`).

Simplifications, stated once: datasheet IOPS are best-case figures at a deep queue (QD32 for the
SSDs, QD16 for the disk); the simulator serves each direction from its FIFO at that rate, with the
latency on top, so it reaches the rate once latency/service I/Os are in flight. Consumer drives'
SLC-cache cliffs, steady-state write drops, garbage collection and a cloud volume's burst credits
are not modelled.
"""

from __future__ import annotations

import csv
import difflib
import math
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

import polars as pl

from .params import BY_NAME

__all__ = [
    "CATALOG_PATH",
    "KINDS",
    "KNOBS",
    "Device",
    "SATA_KINDS",
    "device",
    "interface",
    "knobs",
    "load_devices",
    "names",
]

CATALOG_PATH = Path(__file__).resolve().parent.parent / "data" / "devices.csv"

KINDS = ("nvme", "sata-ssd", "cloud", "hdd")
"""The kinds of storage profile a row may have."""

KNOBS = (
    "device_read_iops",
    "device_write_iops",
    "device_read_bandwidth_mb_s",
    "device_write_bandwidth_mb_s",
    "device_read_latency_us",
    "device_write_latency_us",
    "device_fsync_latency_us",
)
"""The storage knobs of `flushsim.params` that a profile sets, in the order `knobs` returns."""

_SCHEMA = {
    "name": pl.String,
    "model": pl.String,
    "kind": pl.String,
    "datasheet_read_iops": pl.Int64,
    "datasheet_write_iops": pl.Int64,
    "datasheet_read_mb_s": pl.Float64,
    "datasheet_write_mb_s": pl.Float64,
    "device_read_latency_us": pl.Float64,
    "device_write_latency_us": pl.Float64,
    "device_fsync_latency_us": pl.Float64,
    "volatile_write_cache": pl.Boolean,
    "source": pl.String,
    "note": pl.String,
}
"""The catalog file's columns and types."""

_RATES = {
    "device_read_iops": "datasheet_read_iops",
    "device_write_iops": "datasheet_write_iops",
    "device_read_bandwidth_mb_s": "datasheet_read_mb_s",
    "device_write_bandwidth_mb_s": "datasheet_write_mb_s",
}
"""The rate knobs `load_devices` adds: each is its datasheet column."""


@dataclass(frozen=True)
class Device:
    """A storage profile: a row of `data/devices.csv`.

    Attributes:
        name: catalog key, lower case (e.g. "nvme-pcie4").
        model: the product (or cloud volume type) the figures describe.
        kind: one of `KINDS`.
        datasheet_read_iops: random 4 KiB read IOPS as the source prints them.
        datasheet_write_iops: random 4 KiB write IOPS as the source prints them.
        datasheet_read_mb_s: sequential read bandwidth, MB/s (10**6 bytes/s).
        datasheet_write_mb_s: sequential write bandwidth, MB/s (10**6 bytes/s).
        device_read_iops: knob, reads per second (datasheet_read_iops).
        device_write_iops: knob, writes per second (datasheet_write_iops).
        device_read_bandwidth_mb_s: knob, MB/s (datasheet_read_mb_s).
        device_write_bandwidth_mb_s: knob, MB/s (datasheet_write_mb_s).
        device_read_latency_us: knob, microseconds a read completes after its service.
        device_write_latency_us: knob, microseconds a write completes after its service.
        device_fsync_latency_us: knob, microseconds an fsync adds.
        volatile_write_cache: whether written data can sit in a cache lost on power failure.
        source: where the figures come from (document title and URL or repository path).
        note: which figures the source did not print, where they came from, what is unverified.
    """

    name: str
    model: str
    kind: str
    datasheet_read_iops: int
    datasheet_write_iops: int
    datasheet_read_mb_s: float
    datasheet_write_mb_s: float
    device_read_iops: int
    device_write_iops: int
    device_read_bandwidth_mb_s: float
    device_write_bandwidth_mb_s: float
    device_read_latency_us: float
    device_write_latency_us: float
    device_fsync_latency_us: float
    volatile_write_cache: bool
    source: str
    note: str = ""

    @property
    def knobs(self) -> dict[str, float]:
        """The seven `device_*` knob values, keyed by knob name (see `KNOBS`)."""
        return {k: float(getattr(self, k)) for k in KNOBS}


def _check_row(row: dict) -> None:
    """Raise a ValueError (without the row's name) if a row breaks the catalog's rules."""
    for col, value in row.items():
        if value is None and col != "note":
            raise ValueError(f"{col} is empty")
    if row["name"] != row["name"].strip().lower() or not row["name"]:
        raise ValueError("the name must be a non-empty lower-case key")
    if row["kind"] not in KINDS:
        raise ValueError(f"kind={row['kind']!r} must be one of {', '.join(KINDS)}")
    if not row["source"].strip():
        raise ValueError("source is empty: cite where the figures come from")
    for col in ("datasheet_read_iops", "datasheet_write_iops"):
        if row[col] <= 0:
            raise ValueError(f"{col}={row[col]!r} must be > 0 (I/O per second)")
    for col in ("datasheet_read_mb_s", "datasheet_write_mb_s"):
        if not math.isfinite(row[col]) or row[col] <= 0:
            raise ValueError(f"{col}={row[col]!r} must be a finite number > 0 (MB/s)")
    for knob in KNOBS:
        p = BY_NAME[knob]
        value = row[knob]
        if not math.isfinite(value) or not p.min <= value <= p.max:
            raise ValueError(
                f"{knob}={value!r} is out of range: the knob must be {p.range_text()} {p.unit}"
            )


@cache
def _load(path: Path, mtime_ns: int, size: int) -> pl.DataFrame:
    # keyed on the file's stat too, so an edited catalog is read again
    with path.open(newline="") as fh:
        header = next(csv.reader(fh), [])
    if header != list(_SCHEMA):
        raise ValueError(f"{path}: columns {header} differ from {list(_SCHEMA)}")
    df = pl.read_csv(path, schema=_SCHEMA)
    # the rate knobs, right after the datasheet figures they copy
    cols = list(_SCHEMA)
    at = cols.index("datasheet_write_mb_s") + 1
    rates = [pl.col(sheet).alias(knob) for knob, sheet in _RATES.items()]
    df = df.with_columns(rates).select(*cols[:at], *_RATES, *cols[at:])
    seen: set[str] = set()
    for i, row in enumerate(df.iter_rows(named=True), start=2):  # line 1 is the header
        label = f"{path.name} line {i} ({row['name']!r})"
        if row["name"] in seen:
            raise ValueError(f"{label}: the name appears twice; names must be unique")
        seen.add(row["name"])
        try:
            _check_row(row)
        except ValueError as exc:
            raise ValueError(f"{label}: {exc}") from None
    return df


def load_devices() -> pl.DataFrame:
    """The device catalog (`data/devices.csv`), one row per storage profile, in file order.

    Returns:
        A polars DataFrame with typed columns: name, model, kind (str); datasheet_read_iops,
        datasheet_write_iops (int, IO/s); datasheet_read_mb_s, datasheet_write_mb_s (float,
        MB/s); device_read_iops, device_write_iops (int, IO/s); device_read_bandwidth_mb_s,
        device_write_bandwidth_mb_s (float, MB/s);
        device_read_latency_us, device_write_latency_us, device_fsync_latency_us (float, us);
        volatile_write_cache (bool); source, note (str).

    Raises:
        FileNotFoundError: the CSV is missing.
        ValueError: the columns differ from the expected ones, a name repeats, a knob lies outside
            its range in `flushsim.params`, or a rule of the module docstring is broken; the
            message names the file line, the column and the value.
    """
    path = CATALOG_PATH
    if not path.is_file():
        raise FileNotFoundError(
            f"device catalog {path} is missing; install flushsim from a checkout with "
            "`pip install -e .`"
        )
    stat = path.stat()
    return _load(path, stat.st_mtime_ns, stat.st_size)


def names() -> tuple[str, ...]:
    """The profile names, in file order (e.g. "nvme-pcie4")."""
    return tuple(load_devices()["name"].to_list())


def device(name: str) -> Device:
    """The storage profile called `name` (case-insensitive).

    Args:
        name: catalog key, one of `names()`.

    Returns:
        The Device.

    Raises:
        ValueError: no such profile; the message names the argument, the bad value, a
            did-you-mean suggestion and the valid names.
    """
    rows = {row["name"]: row for row in load_devices().iter_rows(named=True)}
    key = name.strip().lower() if isinstance(name, str) else None
    if key in rows:
        keep = {f.name for f in fields(Device)}
        return Device(**{k: v for k, v in rows[key].items() if k in keep})
    valid = list(rows)
    close = [n for n in valid if key and key in n][:3]
    close = close or difflib.get_close_matches(key or "", valid, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(
        f"name={name!r} is not a device profile{hint} (valid names: {', '.join(valid)})"
    )


SATA_KINDS = ("sata-ssd", "hdd")
"""Kinds whose drives sit on SATA: an fsync's FLUSH CACHE waits for the commands in flight."""


def interface(name: str) -> str:
    """The `device_interface` of profile `name`: "sata" for a SATA kind, else "nvme".

    Raises:
        ValueError: no such profile (see `device`).
    """
    return "sata" if device(name).kind in SATA_KINDS else "nvme"


ROTATIONAL_KINDS = ("hdd",)
"""Kinds that spin: the kernel's rotational flag is set, so seeks cost (device_rotational)."""


def rotational(name: str) -> bool:
    """The `device_rotational` of profile `name`: True for a spinning kind.

    Raises:
        ValueError: no such profile (see `device`).
    """
    return device(name).kind in ROTATIONAL_KINDS


def knobs(name: str) -> dict[str, float]:
    """The seven storage knobs of profile `name`, ready to pass to a scenario.

    Args:
        name: catalog key, one of `names()` (case-insensitive).

    Returns:
        {knob: value} for exactly device_read_iops, device_write_iops (IO/s),
        device_read_bandwidth_mb_s, device_write_bandwidth_mb_s (MB/s), device_read_latency_us,
        device_write_latency_us, device_fsync_latency_us (us), as floats.

    Raises:
        ValueError: no such profile (see `device`).
    """
    return device(name).knobs

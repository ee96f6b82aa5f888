"""A run as the explorer's data: one column dict per named source, per second or per run.

`run_data(run, ...)` turns a Run into plain column dicts ("pool", "flush", "redo", "work", "wa",
"ssd", "ssd_now"): the only place that knows which InnoDB metric feeds which curve;
`make_sources` wraps them in `ColumnDataSource`s the figures draw from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl
from bokeh.models import (
    ColumnDataSource,
)

from .. import amplification, ssd
from ..lifetime import daily_rate, run_lifetime
from ..run import Run

MiB = 1024 * 1024


# Pages flushed per second by who flushed them (InnoDB's counters; single-page flushes by user
# threads are flushsim's `sim_single_page_flushes`, InnoDB counts only their scans).
FLUSH_KINDS = (
    ("buffer_LRU_batch_flush_total_pages", "LRU batch", "#d62728"),
    ("buffer_flush_adaptive_total_pages", "adaptive", "#1f77b4"),
    ("buffer_flush_background_total_pages", "idle", "#2ca02c"),
    ("buffer_flush_sync_total_pages", "sync", "#9467bd"),
    ("sim_single_page_flushes", "single-page", "#ff7f0e"),
)
POOL_CURVES = (
    ("free", "free", "#2ca02c"),
    ("clean", "clean (data - dirty)", "#7f7f7f"),
    ("dirty", "dirty", "#d62728"),
)


@dataclass(frozen=True)
class SsdSetting:
    """The drive the run writes to, for the wear figures.

    Attributes:
        drive: a catalog drive (`flushsim.ssd.drive(name)`).
        fill: fraction of the drive's capacity holding data, 0 <= fill < 1.
    """

    drive: ssd.Drive
    fill: float = 0.5


DEFAULT_DRIVE = "intel-dc-p4610-1.6tb"


def default_ssd() -> SsdSetting:
    """Seed 004's drive, half full."""
    return SsdSetting(ssd.drive(DEFAULT_DRIVE), 0.5)


def run_data(run: Run, setting: SsdSetting | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts for every named source of `build`, from one run."""
    return {**time_data(run), **wear_data(run, setting)}


def time_data(run: Run) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts of the animated time figures ("pool", "flush", "redo", "work"), per second."""
    s = run.series
    t = s["time_s"].to_numpy().astype(np.float64)
    used = {
        "buffer_pool_pages_free",
        "buffer_pool_pages_data",
        "buffer_pool_pages_dirty",
        "log_lsn_checkpoint_age",
        "log_max_modified_age_async",
        "log_max_modified_age_sync",
        "sim_tps",
        "sim_free_wait_ms",
        "sim_redo_wait_ms",
        "sim_trx_latency_p99_ms",
        *(name for name, _, _ in FLUSH_KINDS),
    }
    col = {name: s[name].to_numpy().astype(np.float64) for name in used}
    pool = {
        "time_s": t,
        "buffer_pool_pages_free": col["buffer_pool_pages_free"],
        "buffer_pool_pages_dirty": col["buffer_pool_pages_dirty"],
        "free": col["buffer_pool_pages_free"],
        "clean": col["buffer_pool_pages_data"] - col["buffer_pool_pages_dirty"],
        "dirty": col["buffer_pool_pages_dirty"],
    }
    flush = {"time_s": t}
    for name, _, _ in FLUSH_KINDS:
        flush[name] = col[name]
    flush["total"] = np.sum([col[name] for name, _, _ in FLUSH_KINDS], axis=0)
    redo = {
        "time_s": t,
        "age_mib": col["log_lsn_checkpoint_age"] / MiB,
        "async_mib": col["log_max_modified_age_async"] / MiB,
        "sync_mib": col["log_max_modified_age_sync"] / MiB,
    }
    # Thread-seconds spent waiting per second: > 1 means more than one thread stalled on average.
    work = {
        "time_s": t,
        "sim_tps": col["sim_tps"],
        "stall_s": (col["sim_free_wait_ms"] + col["sim_redo_wait_ms"]) / 1000.0,
        "sim_trx_latency_p99_ms": np.nan_to_num(col["sim_trx_latency_p99_ms"]),
    }
    return {"pool": pool, "flush": flush, "redo": redo, "work": work}


# The lifetime figure's curves: the headline's model and the seed's free-space model.
LIFETIME_MODELS = (ssd.DEFAULT_MODEL, "seed004")


def wear_data(run: Run, setting: SsdSetting | None = None) -> dict[str, dict[str, object]]:
    """Column dicts of the whole-run figures ("wa", "ssd", "ssd_now") for the drive `setting`.

    "ssd_now" is one point: the lifetime at the drive's fill (`lifetime.run_lifetime`), labelled
    with its headline.
    """
    setting = setting or default_ssd()
    wa_factor = float(ssd.write_amplification(setting.fill, model=ssd.DEFAULT_MODEL))
    tot = amplification.totals(run, wa_factor)
    wa = {
        "label": tot["label"].to_list(),
        "mb_s": (tot["bytes_per_s"] / MiB).to_numpy(),
        "factor": [
            _factor_text(f, stage)
            for f, stage in zip(tot["factor"].to_list(), tot["stage"].to_list(), strict=True)
        ],
    }
    life = run_lifetime(run, setting.drive, setting.fill)
    fills = np.linspace(0.0, 0.95, 96)
    sd = {"fill_pct": fills * 100.0}
    rate = daily_rate(life.write_bytes_per_s, life.hours_per_day)
    for model in LIFETIME_MODELS:
        years = setting.drive.lifetime_years(rate, fill=fills, model=model)
        sd[model] = _plottable(years)
    marker = {
        "fill_pct": [setting.fill * 100.0],
        "years": list(_plottable(np.array([life.years]))),
        "label": [life.headline],
    }
    return {"wa": wa, "ssd": sd, "ssd_now": marker}


_STAGE_LABELS = dict(amplification.STAGES + amplification.OPTIONAL_STAGES)


def _factor_text(factor: float | None, stage: str) -> str:
    """'x96.36 of rows changed': a factor says what it is relative to."""
    base = amplification.FACTOR_BASE[stage]
    return "" if factor is None or base is None else f"x{factor:.2f} of {_STAGE_LABELS[base]}"


def _plottable(years) -> np.ndarray:
    # Plotting needs finite numbers: an idle run would last forever; cap at a century.
    return np.minimum(np.nan_to_num(np.asarray(years, dtype=np.float64), posinf=100.0), 100.0)


def empty_data() -> dict[str, dict[str, list]]:
    """Sources of the right shape with no rows (the pinned baseline before anything is pinned)."""
    return {
        "pool": {
            k: []
            for k in (
                "time_s",
                "buffer_pool_pages_free",
                "buffer_pool_pages_dirty",
                "free",
                "clean",
                "dirty",
            )
        },
        "flush": {k: [] for k in ("time_s", "total", *(n for n, _, _ in FLUSH_KINDS))},
        "redo": {k: [] for k in ("time_s", "age_mib", "async_mib", "sync_mib")},
        "work": {k: [] for k in ("time_s", "sim_tps", "stall_s", "sim_trx_latency_p99_ms")},
        "wa": {"label": [], "mb_s": [], "factor": []},
        "ssd": {"fill_pct": [], **{m: [] for m in LIFETIME_MODELS}},
        "ssd_now": {"fill_pct": [], "years": [], "label": []},
        "regimes": {"time_s": [], "y": [], "n": [], "at": [], "text": []},
        "help": {"knob": [], "text": []},  # the explorer's controls' help (player._HELP_TITLES)
    }


def regime_marks(run: Run, table: pl.DataFrame) -> dict[str, list]:
    """Numbered markers for the regime changes along the top of the pool figure, and their words.

    `time_s` is where a mark sits (the table's `x`), `at` the second the change is listed at
    (the table's `time_s`), `text` the words.
    """
    top = float(run.series["buffer_pool_pages_total"].max())
    return {
        "time_s": table["x"].to_list(),
        "y": [top * 1.04] * table.height,
        "n": [str(i + 1) for i in range(table.height)],
        "at": [int(t) for t in table["time_s"]],
        "text": table["text"].to_list(),
    }


def make_sources(data: Mapping[str, Mapping], suffix: str = "") -> dict[str, ColumnDataSource]:
    """One named ColumnDataSource per entry of `run_data` (or `empty_data`)."""
    return {
        key: ColumnDataSource(
            data={k: list(v) if isinstance(v, list) else v for k, v in d.items()}, name=key + suffix
        )
        for key, d in data.items()
    }

"""What-if: the DBA's own server against the same server with some knobs changed.

CONFIG is a my.cnf, a saved SHOW GLOBAL VARIABLES or a recording; both sides run from a warm
start, same workload and seed.

`read_config` reads CONFIG into a `live.config.ConfigReport` (a my.cnf with its `!include` and
`!includedir` followed); `whatif` runs both sides and returns `WhatIf`, whose `figures()` are
the rows of the report's first table and of `--json`: {"current", "proposed", "difference"}.
The HTML report is `report.write_whatif_html`. docs/model.md, "What-if".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import amplification, params, ssd
from .knob_text import server_value
from .lifetime import Lifetime, drive_device, run_lifetime
from .live.config import ConfigParseError, ConfigReport, read_mycnf, read_variables
from .presets import read_text
from .run import Run, simulate
from .scenario import Scenario
from .sweep import WearSetting, summarize
from .warmup import lengthened_run, warm_up

MiB = 1024**2
RECORDING_SUFFIXES = (".parquet", ".csv")
# row name -> (unit, what it is); the first table of the report, in this order
ROWS = {
    "tps": ("trx/s", "transactions a second, mean"),
    "trx_latency_p99_ms": ("ms", "99th percentile transaction latency"),
    "buffer_pool_wait_free": ("waits", "Innodb_buffer_pool_wait_free, total"),
    "lru_flushed_per_s": ("pages/s", "pages flushed a second by LRU batches"),
    "adaptive_flushed_per_s": ("pages/s", "pages flushed a second by adaptive flushing"),
    # MariaDB's buf_flush_page_cleaner counts its flushing to a checkpoint target
    # (buf_flush_list(srv_max_io_capacity, lsn_limit)) here too, under load
    "background_flushed_per_s": (
        "pages/s",
        "pages flushed a second by background batches (MySQL: idle flushing; MariaDB: also "
        "flushing to the checkpoint target)",
    ),
    "sync_flushed_per_s": ("pages/s", "pages flushed a second by sync (furious) flushing"),
    "single_page_flushed_per_s": ("pages/s", "single-page flushes a second by user threads"),
    "checkpoint_age_max_mb": ("MiB", "largest checkpoint age"),
    "checkpoint_age_async_mb": ("MiB", "log_max_modified_age_async: adaptive flushing hurries"),
    "checkpoint_age_sync_mb": ("MiB", "log_max_modified_age_sync: sync flushing starts"),
    "db_write_mb_s": ("MB/s", "data pages + doublewrite + redo written to the drive"),
    "flash_write_mb_s": ("MB/s", "what the drive writes to flash (its FTL amplification)"),
    "ssd_lifetime_years": ("years", "projected SSD lifetime at the chosen fill"),
}
_FLUSH = {
    "lru_flushed_per_s": "buffer_LRU_batch_flush_total_pages",
    "adaptive_flushed_per_s": "buffer_flush_adaptive_total_pages",
    "background_flushed_per_s": "buffer_flush_background_total_pages",
    "sync_flushed_per_s": "buffer_flush_sync_total_pages",
    "single_page_flushed_per_s": "sim_single_page_flushes",
}


def read_config(path: str | Path, engine: str | None = None, **knobs: object) -> ConfigReport:
    """CONFIG as a ConfigReport: a recording (.parquet, .csv), a my.cnf or SHOW GLOBAL VARIABLES.

    A text with a `[group]` line is a my.cnf, any other text a saved SHOW GLOBAL VARIABLES.

    Raises:
        ValueError: one line naming the file (and its line) and what is wrong.
    """
    path = Path(path)
    if path.suffix.lower() in RECORDING_SUFFIXES:
        from .replay import scenario_for

        sc = scenario_for(path, engine, **knobs)
        # the recording's own settings, as the knob table shows them; what --set gave is not
        own = {
            k: server_value(params.get(k, sc.engine), v)
            for k, v in sc.knobs.items()
            if k not in knobs
        }
        return ConfigReport(sc, "recording", sc.engine, "the recording's", modelled=own)
    text = read_text(path)
    if not any(line.strip().startswith("[") for line in text.splitlines()):
        try:
            return read_variables(text, engine, **knobs)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    lines = _with_includes(text, path)
    try:
        report = read_mycnf("".join(t + "\n" for _, _, t in lines), engine, **knobs)
    except ConfigParseError as exc:
        if exc.line is None:
            raise ValueError(f"{path}: {exc.reason}") from None
        where, n, raw = lines[exc.line - 1]
        raise ValueError(
            f"{where}, line {n}: {exc.reason} (the line reads {raw.strip()!r})"
        ) from None
    included = sorted({str(f) for f, _, _ in lines if f != path})
    known = {k: n for k, n in report.lines.items() if 0 < n <= len(lines)}
    own = {k: lines[n - 1][1] for k, n in known.items()}
    files = {k: str(lines[n - 1][0]) for k, n in known.items()}
    notes = [f"Read {f} (included); its settings' lines are its own." for f in included]
    return dataclasses.replace(report, lines=own, files=files, notes=(*report.notes, *notes))


def _with_includes(text: str, path: Path, depth: int = 0) -> list[tuple[Path, int, str]]:
    """(file, line number, text) of each line, `!include` and `!includedir` (*.cnf) read in place.

    As mysys's search_default_file_with_ext does, at most 10 levels deep; relative paths are
    taken from the including file's folder.
    """
    out: list[tuple[Path, int, str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        word = next((w for w in ("!includedir", "!include") if s.split(maxsplit=1)[:1] == [w]), "")
        if not word:
            out.append((path, n, line))
            continue
        if depth >= 10:
            raise ValueError(f"{path}, line {n}: includes nested more than 10 deep")
        target = path.parent / s[len(word) :].strip()
        for f in sorted(target.glob("*.cnf")) if word == "!includedir" else [target]:
            try:
                inner = f.read_text()
            except OSError as exc:
                raise ValueError(f"{path}, line {n}: {f} cannot be read ({exc.strerror})") from None
            out += _with_includes(inner, f, depth + 1)
    return out


def parse_changes(items: Sequence[str], what: str = "--change") -> dict[str, str]:
    """`KNOB=VALUE` strings as {knob: value as written}; a knob given twice is refused."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name or not text.strip():
            raise ValueError(f"{what} {item!r} must look like KNOB=VALUE")
        if name in out:
            raise ValueError(f"{what} {name} is given twice: give it once")
        params.parse_value(name, text)  # a bad value fails here, before any run
        out[name] = text.strip()
    return out


@dataclass(frozen=True)
class WhatIf:
    """Current and proposed runs (each with its warm-up still in), and what to cut."""

    current: Run
    proposed: Run
    changes: Mapping[str, str]
    warmup_s: int
    warmup_note: str
    wear: WearSetting

    def figures(self) -> dict[str, dict[str, float]]:
        """{"current": {row: value}, "proposed": {...}, "difference": proposed - current}."""
        cur = side_figures(self.current, self.warmup_s, self.wear)
        new = side_figures(self.proposed, self.warmup_s, self.wear)
        diff = {k: _minus(new[k], cur[k]) for k in ROWS}
        return {"current": cur, "proposed": new, "difference": diff}

    def lifetimes(self) -> dict[str, Lifetime]:
        """{"current": Lifetime, "proposed": Lifetime}: the drive's life under each side."""
        drive = self.wear.resolved()
        return {
            side: run_lifetime(
                run, drive, self.wear.fill, warmup_s=self.warmup_s, model=self.wear.model
            )
            for side, run in (("current", self.current), ("proposed", self.proposed))
        }

    def adjustments(self) -> dict[str, tuple[str, ...]]:
        """{"current": ..., "proposed": ...}: the server's warnings of values it adjusted.

        The proposed side's are those the changes brought (the current side's are not repeated):
        `--change innodb_io_capacity=4000` above a max of 3000 runs 3000, as SET GLOBAL would.
        """
        cur = self.current.scenario.adjustments
        new = tuple(a for a in self.proposed.scenario.adjustments if a not in cur)
        return {"current": cur, "proposed": new}

    def ran(self) -> dict[str, dict[str, str]]:
        """{"current": {knob: value}, "proposed": {...}}: the changed knobs as each side ran them.

        The server's own form (12G, ON); a changed knob the server adjusted shows the value it
        runs, and a knob the server adjusted because of a change is in too.
        """
        cur, new = self.current.scenario, self.proposed.scenario
        moved = (p.name for p in params.for_engine(cur.engine) if cur[p.name] != new[p.name])
        names = [*self.changes, *moved]
        return {
            side: {k: server_value(params.get(k, sc.engine), sc[k]) for k in dict.fromkeys(names)}
            for side, sc in (("current", cur), ("proposed", new))
        }

    def json_figures(self) -> dict[str, dict]:
        """`figures()` with JSON's null where a figure is not finite (no writes: no wear).

        Plus "ssd_lifetime": each side's lifetime in words (`Lifetime.headline`); "knobs": the
        changed knobs as each side ran them (`ran`); "adjustments": the server's warnings.
        """
        out: dict[str, dict] = {
            side: {k: v if math.isfinite(v) else None for k, v in rows.items()}
            for side, rows in self.figures().items()
        }
        out["ssd_lifetime"] = {side: life.headline for side, life in self.lifetimes().items()}
        out["knobs"] = self.ran()
        out["adjustments"] = {side: list(a) for side, a in self.adjustments().items()}
        return out


def _minus(a: float, b: float) -> float:
    if math.isinf(a) and math.isinf(b):
        return 0.0
    return a - b


def side_figures(run: Run, warmup_s: int, wear: WearSetting) -> dict[str, float]:
    """One run's rows of the first table (`ROWS`), after its first `warmup_s` seconds."""
    s = summarize(run, warmup_s=warmup_s, wear=wear)
    series = run.series.slice(warmup_s)
    db = float(amplification.db_bytes(run).slice(warmup_s).mean() or 0.0)
    ftl = float(ssd.write_amplification(wear.fill, wear.model))
    out = {
        "tps": s["tps_mean"],
        "trx_latency_p99_ms": s["trx_latency_p99_ms"],
        "buffer_pool_wait_free": s["buffer_pool_wait_free"],
        **{row: float(series[col].mean()) for row, col in _FLUSH.items()},
        "checkpoint_age_max_mb": float(series["log_lsn_checkpoint_age"].max()) / MiB,
        "checkpoint_age_async_mb": float(series["log_max_modified_age_async"].max()) / MiB,
        "checkpoint_age_sync_mb": float(series["log_max_modified_age_sync"].max()) / MiB,
        "db_write_mb_s": db / 1e6,
        "flash_write_mb_s": db * ftl / 1e6,
        "ssd_lifetime_years": s["ssd_lifetime_years"],
    }
    return {k: out[k] for k in ROWS}


def proposed_scenario(current: Scenario, changes: Mapping[str, str]) -> Scenario:
    """The current scenario with the changed knobs (validated as the server would)."""
    for name in changes:
        params.get(name, current.engine)  # a knob the engine lacks fails naming the engine
    return current.replace(**dict(changes), name="proposed")


def whatif(
    current: Scenario,
    changes: Mapping[str, str],
    *,
    warmup: int | str = "auto",
    drive: str = "",
    fill: float | None = None,
) -> WhatIf:
    """Run `current` and `current` with `changes` from one warm start, same workload and seed.

    warmup "auto" is the current side's settle time, used for both. A `drive` (catalog name)
    sets both sides' `device` to its performance profile unless `current` sets `device`.
    """
    from .sweep import DEFAULT_DRIVE, DEFAULT_FILL

    wear = WearSetting(drive or DEFAULT_DRIVE, DEFAULT_FILL if fill is None else fill)
    picked = wear.resolved()  # an unknown drive fails before any run
    if not 0.0 <= wear.fill <= 0.95:
        raise ValueError(f"--fill {wear.fill!r} must be between 0 and 0.95 (fraction of the SSD)")
    if drive:  # the drive the DBA named is also the device both sides run on
        current = current.replace(**drive_device(picked, current.knobs))
    proposed = proposed_scenario(current, changes)
    warmed = warm_up(current, warmup)  # the current side's warm-up, simulated once
    ran = lengthened_run(warmed, current)
    longer = ran.scenario
    proposed_longer = proposed.replace(seconds=longer.seconds, timeline=longer.timeline)
    return WhatIf(
        current=ran,
        proposed=simulate(proposed_longer),
        changes=dict(changes),
        warmup_s=warmed.seconds,
        warmup_note=warmed.note,
        wear=wear,
    )

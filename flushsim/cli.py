"""Command line: `python -m flushsim COMMAND`, one subcommand a task.

Commands: presets, knobs, run, report, sweep, whatif, record, replay, validate, warm.

Every user error (unknown preset or knob, value out of range, bad number, bad output file)
prints one line naming the problem and exits with status 2; no traceback reaches the user.
Output files are checked before any work and written atomically (flushsim.outputs); an
existing file is replaced only with --force. SIGTERM and SIGHUP stop a command as Ctrl-C does
(a sweep writes the rows it finished); the exit status is then 128 + the signal's number.
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence

from . import outputs, params, presets
from .live import recorder
from .run import simulate
from .warmup import AUTO_CAP_S

_PRESET_HELP = "preset name (see `presets`) or a scenario file FILE.toml in data/presets' format"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m flushsim", description="Simulate InnoDB page flushing."
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("presets", help="list the named scenarios")
    run = sub.add_parser("run", help="simulate a preset and write one row per second")
    report = sub.add_parser(
        "report", help="simulate a preset and write its figures as one standalone HTML file"
    )
    for cmd in (run, report):
        cmd.add_argument("preset", help=_PRESET_HELP)
        _add_set(cmd, "override a knob, e.g. --set innodb_io_capacity=300 (repeatable)")
        cmd.add_argument("--seconds", type=int, help="simulated seconds")
        cmd.add_argument("--seed", type=int, help="random seed")
        _add_warmup(cmd)
        _add_engine(cmd)
    run.add_argument("--out", help="write the series to FILE.csv or FILE.parquet")
    _add_force(run)
    report.add_argument("--html", required=True, help="the report file (FILE.html)")
    report.add_argument(
        "--baseline",
        metavar="PRESET",
        help="a second preset or FILE.toml, drawn dashed (same --seconds, --seed, --warmup, "
        "--engine)",
    )
    _add_force(report)
    report.add_argument("--drive", help=_DRIVE_HELP)
    report.add_argument(
        "--fill", type=float, help="fraction of the SSD holding data, 0 to 0.95 (default 0.5)"
    )
    sw = sub.add_parser(
        "sweep", help="simulate a preset over a grid of knob values, one summary row per run"
    )
    sw.add_argument("preset", help=_PRESET_HELP)
    sw.add_argument(
        "--grid",
        action="append",
        default=[],
        required=True,
        metavar="KNOB=V1,V2,...",
        help="values of one knob, e.g. --grid innodb_io_capacity=100,200,400 (repeatable: the "
        "runs are the cross product)",
    )
    _add_set(sw, "fixed override")
    sw.add_argument("--seconds", type=int, help="simulated seconds of every run")
    sw.add_argument("--seed", type=int, help="first seed (the preset's by default)")
    sw.add_argument("--seeds", type=int, default=1, help="seeds per configuration: seed, +1, ...")
    sw.add_argument(
        "--workers",
        type=int,
        help="cores: this process and N-1 worker processes (default: every core)",
    )
    _add_warmup(sw)
    _add_engine(sw)
    sw.add_argument("--drive", help=_DRIVE_HELP)
    sw.add_argument("--fill", type=float, help="fraction of the SSD holding data (0.5)")
    sw.add_argument("--out", required=True, help="FILE.parquet or FILE.csv")
    _add_force(sw)
    recorder.add_arguments(
        sub.add_parser("record", help="sample a running MySQL 8.0 / MariaDB server once per second")
    )
    rp = sub.add_parser(
        "replay", help="run the model under a recording's own load and compare the two"
    )
    rp.add_argument("recording", help="a recording made by `record` (FILE.parquet or FILE.csv)")
    _add_set(
        rp,
        "the workload a recording cannot know (e.g. --set workload=hotset --set "
        "table_rows=300000), or a server knob to change (repeatable)",
    )
    rp.add_argument(
        "--engine", choices=params.ENGINES, help="default: the recording's (a CSV file needs it)"
    )
    rp.add_argument("--out", help="write server and model per second (long) to FILE.parquet/.csv")
    rp.add_argument("--force", action="store_true", help="replace an existing --out")
    wi = sub.add_parser(
        "whatif",
        help="your server (a my.cnf, SHOW GLOBAL VARIABLES or a recording) against the same "
        "with knobs changed, from a warm start, as one HTML report",
    )
    wi.add_argument(
        "config",
        help="my.cnf (its !include files are read), a saved SHOW GLOBAL "
        "VARIABLES, or a recording (FILE.parquet / FILE.csv)",
    )
    wi.add_argument(
        "--change",
        action="append",
        default=[],
        required=True,
        metavar="KNOB=VALUE",
        help="the proposed setting (repeatable)",
    )
    _add_set(
        wi,
        "the workload and anything the config does not say, e.g. --set threads=48 "
        "(repeatable; both sides)",
    )
    wi.add_argument(
        "--engine",
        choices=params.ENGINES,
        help="default: from the config's version, else mysql-8.0",
    )
    wi.add_argument("--seconds", type=int, default=120, help="simulated seconds after warm-up")
    wi.add_argument("--seed", type=int, help="random seed")
    _add_warmup(wi, default="auto")
    wi.add_argument("--drive", help=_DRIVE_HELP)
    wi.add_argument("--fill", type=float, help="fraction of the SSD holding data (0.5)")
    wi.add_argument("--html", required=True, help="the report file (FILE.html)")
    wi.add_argument("--json", help="the figures as FILE.json: current, proposed, difference")
    _add_force(wi)
    va = sub.add_parser(
        "validate",
        help="replay every reference recording and write one table of server vs model means",
    )
    va.add_argument(
        "--recordings",
        help="folder of recordings made by scripts/record_reference.py "
        "(default data/reference/mariadb-10.11)",
    )
    va.add_argument("--out", help="write the table to FILE.csv, FILE.parquet or FILE.md")
    va.add_argument("--figures", help="existing folder for one NAME.svg figure a recording")
    _add_force(va)
    kn = sub.add_parser("knobs", help="list every knob with its default, range and unit")
    kn.add_argument("--engine", choices=params.ENGINES, default=params.MYSQL80)
    sub.add_parser("warm", help="compile the numba kernels into numba's cache")
    return p


_DRIVE_HELP = (
    "SSD from data/ssd_catalog.csv: its endurance for the lifetime, and its performance "
    "profile for the run (device=..., unless --set device=... is given); or your own drive "
    "as CAPACITY:RATING from its datasheet, e.g. 960GB:600TBW (endurance only)"
)


def _add_set(parser: argparse.ArgumentParser, help_text: str) -> None:
    """The repeatable `--set KNOB=VALUE` option (parsed by `_overrides`)."""
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE", help=help_text)


def _add_engine(parser: argparse.ArgumentParser) -> None:
    """`--engine` of run, report and sweep: the scenario moved by `_on_engine`."""
    parser.add_argument(
        "--engine",
        choices=params.ENGINES,
        help="run the preset on this engine: the redo log size is translated, knobs the "
        "engine lacks are dropped to its defaults (one warning each)",
    )


def _add_warmup(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """`--warmup auto|SECONDS`: simulated first and cut, so that the series starts warm."""
    parser.add_argument(
        "--warmup",
        metavar="auto|SECONDS",
        default=default,
        help="simulate this warm-up first and leave it out, so the run starts at a warm server; "
        "'auto': until dirty pages, free pages and checkpoint age settle (at most "
        f"{AUTO_CAP_S} s). Default: {default or 'a cold start'}",
    )


def _warm(scenario, text):
    """The scenario lengthened by --warmup, and the seconds to cut (a note on stderr)."""
    from .warmup import parse_warmup, warm

    longer, seconds, note = warm(scenario, parse_warmup(text))
    if text is not None:
        print(note, file=sys.stderr)
    return longer, seconds


def _sweep_warm(scenario, text):
    """Like _warm, but `auto` is found for each run of the sweep, not once for the base."""
    from .warmup import AUTO, AUTO_CAP_S, parse_warmup

    if parse_warmup(text) != AUTO:
        return _warm(scenario, text)
    print(
        "warm-up auto: each run's own, until its dirty pages, free pages and checkpoint age "
        f"settle (at most {AUTO_CAP_S} s; the warmup_s column)",
        file=sys.stderr,
    )
    return scenario, AUTO


def _add_force(parser: argparse.ArgumentParser) -> None:
    """`--force`: replace an existing output file (refused otherwise)."""
    parser.add_argument("--force", action="store_true", help="replace an existing output file")


def _overrides(items: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"--set {item!r} must look like KNOB=VALUE")
        value = params.parse_value(name, text)
        if name in out:
            raise ValueError(
                f"--set {name} is given twice ({out[name]!r}, then {value!r}): give it once"
            )
        out[name] = value
    return out


def _drive_set(args: argparse.Namespace, given: set[str] = frozenset()) -> list[str]:
    """`--drive` also sets `device` to the drive's profile, unless `--set`/`given` sets it.

    Adds that `device=...` to `args.set` and returns it as a list ([] when nothing is added).
    """
    if args.drive is None:
        return []
    from . import ssd
    from .lifetime import drive_device

    knobs = dict.fromkeys(given, None) | _overrides(args.set)
    added = [f"{k}={v}" for k, v in drive_device(ssd.drive(args.drive), knobs).items()]
    args.set = [*args.set, *added]
    return added


def _scenario(args: argparse.Namespace):
    scenario = presets.resolve(args.preset)
    engine = getattr(args, "engine", None)
    if engine is not None and engine != scenario.engine:
        scenario = _on_engine(scenario, engine)
    changes: dict[str, object] = _overrides(args.set)
    if args.seconds is not None:
        changes["seconds"] = args.seconds
    if args.seed is not None:
        changes["seed"] = args.seed
    return scenario.replace(**changes) if changes else scenario


def _on_engine(scenario, engine: str):
    """The scenario on `engine`, one warning line per knob translated or dropped."""
    from .knob_text import translation_text
    from .scenario import translate

    moved = translate(scenario, engine)
    for row in moved.translated:
        warnings.warn(translation_text(*row, engine), params.FlushsimWarning, stacklevel=2)
    for name in moved.dropped:
        warnings.warn(
            f"{params.missing_message(name, engine)}: dropped",
            params.FlushsimWarning,
            stacklevel=2,
        )
    return moved.scenario


def _simulate(args: argparse.Namespace):
    """The command's scenario simulated, its --warmup cut."""
    return _simulate_warm(_scenario(args), args.warmup)


def _simulate_warm(scenario, text):
    """`scenario` run from its --warmup (a note on stderr); the warm-up is simulated once."""
    from .warmup import COLD_NOTE, parse_warmup, simulate_warm, warm_up

    warmup = parse_warmup(text)
    warm = warm_up(scenario, warmup) if warmup else None
    if text is not None:
        print(warm.note if warm else COLD_NOTE, file=sys.stderr)
    return simulate_warm(scenario, warm=warm) if warm else simulate(scenario)


def _cmd_report(args: argparse.Namespace) -> int:
    html = outputs.check_output(args.html, suffixes=(".html",), force=args.force, what="--html")
    if args.fill is not None and not 0.0 <= args.fill <= 0.95:
        raise ValueError(f"--fill {args.fill!r} must be between 0 and 0.95 (fraction of the SSD)")
    picked = _drive_set(args)  # an unknown drive fails before the simulation runs
    from .report import write_html

    baseline = None
    if args.baseline is not None:
        other = argparse.Namespace(**{**vars(args), "preset": args.baseline, "set": picked})
        other_scenario = _scenario(other)  # a bad baseline fails before any run
    run = _simulate(args)
    if args.baseline is not None:
        baseline = _simulate_warm(other_scenario, args.warmup)
    path = write_html(run, html, drive=args.drive, fill=args.fill, baseline=baseline)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB, opens without a server)")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    out = None
    if args.out is not None:  # "" is refused, not taken for "print"
        out = outputs.check_output(args.out, suffixes=outputs.FRAME_SUFFIXES, force=args.force)
    run = _simulate(args)
    if out is not None:
        with outputs.signals_held():
            path = outputs.write_frame(run.series, out)
        print(f"wrote {run.series.height} rows x {run.series.width} columns to {path}")
    else:
        with _wide():
            print(
                run.series.select(
                    [
                        "time_s",
                        "buffer_pool_pages_free",
                        "buffer_pool_pages_dirty",
                        "sim_tps",
                        "buffer_LRU_batch_flush_total_pages",
                        "buffer_flush_adaptive_total_pages",
                        "buffer_flush_background_total_pages",
                        "buffer_flush_sync_total_pages",
                        "buffer_pool_wait_free",
                    ]
                )
            )
    return 0


def _wide():
    import polars as pl

    return pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=60)


def _grid(items: Sequence[str]) -> dict[str, list[object]]:
    grid: dict[str, list[object]] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        values = [v.strip() for v in text.split(",")]
        if not sep or not name or not all(values):
            raise ValueError(f"--grid {item!r} must look like KNOB=V1,V2,...")
        if name in grid:
            raise ValueError(f"--grid {name} is given twice")
        grid[name] = [params.parse_value(name, v) for v in values]
    return grid


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep import DEFAULT_DRIVE, DEFAULT_FILL, IncompleteSweep, sweep

    out = outputs.check_output(args.out, suffixes=outputs.FRAME_SUFFIXES, force=args.force)
    grid = _grid(args.grid)
    _drive_set(args, given=set(grid))
    both = sorted(set(grid) & set(_overrides(args.set)))
    if both:
        raise ValueError(
            f"--grid and --set both give {', '.join(both)}: give each knob in one of them"
        )
    scenario, warmup_s = _sweep_warm(_scenario(args), args.warmup)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        table = sweep(
            scenario,
            grid,
            seeds=args.seeds,
            workers=args.workers,
            warmup_s=warmup_s,
            drive=args.drive or DEFAULT_DRIVE,
            fill=DEFAULT_FILL if args.fill is None else args.fill,
            progress=True,
        )
    incomplete = [w.message for w in caught if isinstance(w.message, IncompleteSweep)]
    for w in caught:
        if issubclass(w.category, RuntimeWarning):
            print(f"{'' if w.message in incomplete else 'warning: '}{w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if table.height:
        with outputs.signals_held():  # a signal now would cost the rows: it waits for the file
            outputs.write_frame(table, out)
        print(f"wrote {table.height} rows x {table.width} columns to {out}")
    if not incomplete:
        return 0
    why = incomplete[0]
    kept = f"the {table.height} finished rows are in {out}" if table.height else "nothing written"
    print(f"error: {why.missing} rows missing; {kept}", file=sys.stderr)
    return _status(why.interrupted) if why.interrupted else 1


def _cmd_whatif(args: argparse.Namespace, print_warnings=lambda: None) -> int:
    import json

    from .report import write_whatif_html
    from .warmup import parse_warmup
    from .whatif import parse_changes, proposed_scenario, read_config, whatif

    html = outputs.check_output(args.html, suffixes=(".html",), force=args.force, what="--html")
    js = None
    if args.json is not None:
        js = outputs.check_output(args.json, suffixes=(".json",), force=args.force, what="--json")
    warmup = parse_warmup(args.warmup)
    changes = parse_changes(args.change)
    fields = {"seconds": args.seconds, **({"seed": args.seed} if args.seed is not None else {})}
    config = read_config(args.config, args.engine, **_overrides(args.set), **fields)
    proposed_scenario(config.scenario, changes)  # a bad change fails before any output
    if args.fill is not None and not 0.0 <= args.fill <= 0.95:
        raise ValueError(f"--fill {args.fill!r} must be between 0 and 0.95 (fraction of the SSD)")
    if args.drive is not None:
        from . import ssd

        ssd.drive(args.drive)
    from .tables import config_table, frame_text

    print(f"{config.source}, engine {config.engine} ({config.engine_note}):", file=sys.stderr)
    print(frame_text(config_table(config)), file=sys.stderr)
    result = whatif(config.scenario, changes, warmup=warmup, drive=args.drive or "", fill=args.fill)
    print(result.warmup_note, file=sys.stderr)
    print_warnings()  # the server's adjustments before the files that show them
    written = {k.lower(): v for k, v in config.modelled.items()}
    origin = {
        k.lower(): f"{config.files[k]}, line {config.lines[k]}"
        for k in config.modelled
        if k in config.files and k in config.lines
    }
    path = write_whatif_html(result, html, written=written, origin=origin)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB, opens without a server)")
    if js is not None:
        with outputs.atomic_path(js) as tmp:
            text = json.dumps(result.json_figures(), indent=2, allow_nan=False)
            tmp.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {js}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from .outputs import check_output, write_frame
    from .replay import replay, scenario_for

    if args.out is not None:
        check_output(args.out, suffixes=(".csv", ".parquet"), force=args.force)
    result = replay(
        args.recording, scenario_for(args.recording, args.engine, **_overrides(args.set))
    )
    for note in result.notes:
        print(f"note: {note}")
    real, model = result.updates_per_page_flushed()
    print(
        f"warm-up {result.warmup_s} s ({result.start_data_pages:,} pages read, "
        f"{result.start_dirty_pages:,} dirtied); updates per page flushed: server {real:.1f}, "
        f"model {model:.1f}"
    )
    with _wide():
        print(result.errors())
    if args.out is not None:
        table = result.side_by_side()
        write_frame(table, args.out)
        print(f"wrote {table.height} rows (time_s, column, real, model) to {args.out}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from . import validation

    out = None
    if args.out is not None:
        out = outputs.check_output(
            args.out, suffixes=(*outputs.FRAME_SUFFIXES, ".md"), force=args.force
        )
    paths = validation.recordings(args.recordings or validation.FOLDER)
    for path in paths:
        validation.reference(path)  # a file without the metadata is refused before any replay
    figures = []
    if args.figures is not None:
        folder = pathlib.Path(args.figures)
        if not folder.is_dir():
            raise ValueError(f"--figures {args.figures!r} is not an existing folder")
        figures = [
            outputs.check_output(
                folder / f"{p.stem}.svg", suffixes=(".svg",), force=args.force, what="--figures"
            )
            for p in paths
        ]
    done = []
    for path in paths:
        print(f"replaying {path.name}", file=sys.stderr, flush=True)
        done.append(validation.replay_one(path))
    matrix = validation.table(done)
    with outputs.signals_held():
        if out is not None and out.suffix.lower() == ".md":
            with outputs.atomic_path(out) as tmp:
                tmp.write_text(
                    "Error of the model's mean (%); * outside the tolerance; (model) where the "
                    "server's mean is 0\n\n"
                    + validation.wide_markdown(matrix)
                    + "\n"
                    + validation.markdown(matrix)
                )
        elif out is not None:
            outputs.write_frame(matrix, out)
        for v, svg in zip(done, figures, strict=False):
            with outputs.atomic_path(svg) as tmp:
                tmp.write_text(validation.figure(v))
    if out is not None:
        print(f"wrote {matrix.height} rows ({len(done)} recordings) to {out}")
    else:
        with _wide():
            print(matrix.drop("regime", "column"))
    if figures:
        print(f"wrote {len(figures)} figures to {args.figures}")
    held = matrix["verdict"].to_list()
    print(f"{held.count('miss')} of {len(held) - held.count('')} held columns miss")
    return 0


def _cmd_knobs(engine: str) -> int:
    from .knob_text import knobs_table

    print(knobs_table(engine))
    return 0


def _cmd_warm() -> int:
    import time

    from .warmup import simulate_warm

    # a cold compile prints nothing for minutes: say so before it starts
    print(
        "loading the model's kernels from numba's cache, or compiling them "
        "(the first time: one to three minutes on two cores)",
        flush=True,
    )
    start = time.perf_counter()
    simulate(presets.get("default"), seconds=1)
    simulate_warm(presets.get("default").replace(seconds=1), 1)  # a kept run resumed, too
    print(f"numba kernels ready in {time.perf_counter() - start:.1f} s")
    return 0


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, so that it stops as Ctrl-C stops it."""


def _status(interrupted: str) -> int:
    """128 + the signal's number, the shell's convention ("Ctrl-C" is SIGINT: 130)."""
    name = interrupted if interrupted.startswith("SIG") else "SIGINT"
    return 128 + int(signal.Signals[name])


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Terminated("SIGTERM"), ... while the command runs."""

    def handler(signum, _frame):
        raise Terminated(signal.Signals(signum).name)

    try:
        old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread (main() called from a thread): leave them be
        yield
        return
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        printed: set[str] = set()
        with _signals_raise(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", params.FlushsimWarning)
            if args.command == "presets":
                for name in presets.names():
                    print(f"{name:24s} {presets.get(name).description}")
                status = 0
            elif args.command == "knobs":
                status = _cmd_knobs(args.engine)
            elif args.command == "warm":
                status = _cmd_warm()
            elif args.command == "report":
                status = _cmd_report(args)
            elif args.command == "sweep":
                status = _cmd_sweep(args)
            elif args.command == "record":
                status = recorder.run_command(args)
            elif args.command == "whatif":
                status = _cmd_whatif(args, lambda: _print_warnings(caught, printed))
            elif args.command == "replay":
                status = _cmd_replay(args)
            elif args.command == "validate":
                status = _cmd_validate(args)
            else:
                status = _cmd_run(args)
        _print_warnings(caught, printed)
        return status
    except (ValueError, FileNotFoundError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        how = str(exc) or "Ctrl-C"
        print(f"interrupted ({how})", file=sys.stderr)
        return _status(how)


def _print_warnings(caught: list, printed: set[str]) -> None:
    """Each warning caught so far and not yet printed, once, as a `warning:` line on stderr.

    Once each: a scenario built for both sides of a what-if, or per phase, warns again.
    """
    for text in dict.fromkeys(str(w.message) for w in caught):
        if text not in printed:
            printed.add(text)
            print(f"warning: {text}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

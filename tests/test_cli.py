"""The command line: presets, run with overrides, and clear one-line errors (exit status 2)."""

import importlib
import subprocess
import sys

import polars as pl
import pytest

from flushsim import cli, presets

SWEEP = importlib.import_module("flushsim.sweep")  # the module: `flushsim.sweep` is the function


def test_presets_lists_every_preset_with_a_description(capsys):
    assert cli.main(["presets"]) == 0
    out = capsys.readouterr().out
    for name in presets.names():
        line = next(x for x in out.splitlines() if x.startswith(name + " "))
        assert len(line.split(None, 1)[1]) > 20
    assert {"seed001-lru-burst", "seed004-idle-flush", "default"} <= set(presets.names())


def test_run_writes_one_row_per_second(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    status = cli.main(
        [
            "run",
            "seed001-lru-burst",
            "--seconds",
            "5",
            "--seed",
            "3",
            "--set",
            "innodb_io_capacity=300",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    df = pl.read_parquet(out)
    assert df.height == 5 and df["time_s"].to_list() == [1, 2, 3, 4, 5]
    assert "buffer_LRU_batch_flush_total_pages" in df.columns
    csv = tmp_path / "run.csv"
    assert cli.main(["run", "seed004-idle-flush", "--seconds", "2", "--out", str(csv)]) == 0
    assert pl.read_csv(csv).height == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "seed001-lru-burst", "--set", "innodb_io_capacity=50"],
            "innodb_io_capacity=50 is out of range: it must be between 100 and",
        ),
        (
            ["run", "seed001-lru-burst", "--set", "innodb_io_capcity=300"],
            "did you mean 'innodb_io_capacity'",
        ),
        (
            ["run", "seed001-lru-burst", "--set", "innodb_io_capacity=lots"],
            "innodb_io_capacity='lots' is not a whole number",
        ),
        (["run", "seed001-lru-burst", "--set", "innodb_io_capacity"], "must look like KNOB=VALUE"),
        (["run", "no-such-preset"], "unknown preset 'no-such-preset'"),
        (["run", "seed001-lru-burst", "--out", "x.xlsx"], "must end in .csv or .parquet"),
        (["run", "seed001-lru-burst", "--seconds", "0"], "seconds=0 must be"),
    ],
)
def test_bad_input_is_one_clear_line(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_server_adjustment_is_a_warning_not_an_error(capsys):
    status = cli.main(
        ["run", "seed001-lru-burst", "--seconds", "1", "--set", "innodb_io_capacity_max=150"]
    )
    assert status == 0
    assert "Setting innodb_io_capacity to 150" in capsys.readouterr().err


def test_module_entry_point_has_no_traceback():
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "flushsim",
            "run",
            "seed001-lru-burst",
            "--set",
            "innodb_lru_scan_depth=5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2
    assert "innodb_lru_scan_depth=5 is out of range" in res.stderr
    assert "Traceback" not in res.stderr


def test_knobs_lists_server_names_with_ranges(capsys):
    assert cli.main(["knobs"]) == 0
    out = capsys.readouterr().out
    assert "innodb_lru_scan_depth" in out and "between 100 and" in out


def test_report_writes_a_standalone_html_file(tmp_path, capsys):
    pytest.importorskip("bokeh")
    out = tmp_path / "report.html"
    argv = ["report", "seed004-idle-flush", "--seconds", "15", "--fill", "0.8"]
    assert cli.main([*argv, "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    # BokehJS is inlined (no CDN: opens offline) and the figures carry the run's data
    assert "cdn.bokeh.org" not in page and "Bokeh.embed" in page
    assert "buffer_flush_background_total_pages" in page
    assert "at 10 s: the workload stops" in page  # the regime list
    assert "at 80 % full at this load, 24 hours a day" in page  # the lifetime headline


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--html", "out.htm"], "--html 'out.htm' must end in .html"),
        (["--html", "x.html", "--fill", "0.99"], "--fill 0.99 must be between 0 and 0.95"),
        (["--html", "x.html", "--drive", "floppy"], "unknown drive 'floppy'"),
        (["--html", "x.html", "--set", "innodb_io_capacity=1"], "innodb_io_capacity"),
    ],
)
def test_report_bad_input_is_one_line(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report", "default", "--seconds", "2", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


# ---------------------------------------------------------------- output files (issue #34, 2)
def _no_simulation(monkeypatch):
    def boom(*_a, **_k):
        raise AssertionError("simulate() ran before the output path was checked")

    monkeypatch.setattr(cli, "simulate", boom)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "default", "--out", ""], "--out is empty"),
        (["run", "default", "--out", "missing/x.csv"], "the folder 'missing' does not exist"),
        (["run", "default", "--out", "."], "is a folder"),
        (["report", "default", "--html", "missing/r.html"], "the folder 'missing' does not exist"),
        (["report", "default", "--html", "r.htm"], "--html 'r.htm' must end in .html"),
        (
            [
                "sweep",
                "default",
                "--grid",
                "innodb_io_capacity=100,200",
                "--out",
                "missing/x.parquet",
            ],
            "the folder 'missing' does not exist",
        ),
        (["sweep", "default", "--grid", "innodb_io_capacity=100", "--out", ""], "--out is empty"),
    ],
)
def test_an_output_path_is_checked_before_any_work(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    _no_simulation(monkeypatch)
    monkeypatch.setattr(SWEEP, "simulate", lambda *_a: pytest.fail("a sweep ran"))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["run", "default", "--seconds", "2", "--out"], "x.CSV"),
        (["report", "default", "--seconds", "2", "--html"], "r.HTML"),
        (
            ["sweep", "default", "--seconds", "2", "--grid", "innodb_io_capacity=200", "--out"],
            "s.Parquet",
        ),
    ],
)
def test_an_existing_file_is_replaced_only_with_force(tmp_path, monkeypatch, capsys, argv, name):
    if argv[0] == "report":
        pytest.importorskip("bokeh")
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text("the user's own file\n")
    assert cli.main([*argv, name]) == 2
    assert f"--{argv[-1].lstrip('-')} '{name}' exists: pass --force to replace it" in (
        capsys.readouterr().err
    )
    assert (tmp_path / name).read_text() == "the user's own file\n"
    assert cli.main([*argv, name, "--force"]) == 0
    assert (tmp_path / name).read_bytes() != b"the user's own file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary left behind


# ---------------------------------------------------------------- small ones (issue #34, 8)
SEQUENTIAL = "run default --set workload=sequential --set table_rows=1000000 "


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            "run default --set innodb_io_capacity=300 --set innodb_io_capacity=400",
            "--set innodb_io_capacity is given twice (300, then 400): give it once",
        ),
        (
            "sweep default --grid innodb_io_capacity=100,200 --set innodb_io_capacity=300 "
            "--out s.csv",
            "--grid and --set both give innodb_io_capacity: give each knob in one of them",
        ),
        (
            SEQUENTIAL + "--set seq_start_row=2000000",
            "seq_start_row=2,000,000 is past the table: it must be between 0 and table_rows - 1 "
            "(999,999)",
        ),
        (
            SEQUENTIAL + "--set seq_start_row=5000 --set seq_end_row=4000",
            "seq_end_row=4,000 must be 0 (the end of the table) or between seq_start_row + 1 "
            "(5,001) and table_rows (1,000,000)",
        ),
        (
            SEQUENTIAL + "--set seq_end_row=1000001",
            "seq_end_row=1,000,001 must be 0 (the end of the table) or between",
        ),
    ],
)
def test_contradictory_input_is_refused_naming_the_knob(
    tmp_path, monkeypatch, capsys, argv, message
):
    monkeypatch.chdir(tmp_path)
    _no_simulation(monkeypatch)
    monkeypatch.setattr(SWEEP, "simulate", lambda *_a: pytest.fail("a sweep ran"))
    assert cli.main(argv.split()) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_sequential_range_inside_the_table_runs_transactions(tmp_path):
    out = tmp_path / "seq.csv"
    argv = SEQUENTIAL + f"--set seq_start_row=1000 --set seq_end_row=900000 --seconds 2 --out {out}"
    assert cli.main(argv.split()) == 0
    assert pl.read_csv(out)["sim_tps"].sum() > 0


def test_the_documented_maximum_pool_size_meets_the_simulators_limit_not_a_range_error(capsys):
    # the MySQL 8.0 manual's maximum, 2**64-1, was read through a float, rounded up past itself
    # and refused as out of range; now the server's range accepts it and flushsim's own limit
    # (64 GiB of 16 KiB pages) answers
    top = str(2**64 - 1)
    assert cli.main(["run", "default", "--set", f"innodb_buffer_pool_size={top}"]) == 2
    err = capsys.readouterr().err
    assert "out of range" not in err
    assert "flushsim simulates at most 4,194,304 pages (64 GiB at innodb_page_size=16384)" in err
    argv = ["run", "default", "--engine", "mariadb-10.11", "--set"]
    assert cli.main([*argv, f"innodb_buffer_pool_size={2**63 - 1}"]) == 2
    assert "out of range" not in capsys.readouterr().err
    assert cli.main([*argv, f"innodb_buffer_pool_size={2**63}"]) == 2
    assert "is out of range" in capsys.readouterr().err
    assert cli.main(["knobs"]) == 0
    # the knob's cells wrap onto the lines below its name, up to the next knob's line
    lines = capsys.readouterr().out.splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("innodb_buffer_pool_size "))
    rest = lines[first + 1 :]
    block = [lines[first], *rest[: next(i for i, x in enumerate(rest) if not x.startswith(" "))]]
    assert "flushsim: at most 64G (16K pages)" in " ".join(" ".join(block).split())


def test_a_timeline_event_at_or_after_the_end_is_refused():
    import flushsim as fs

    sc = fs.Scenario(seconds=30)
    with pytest.raises(
        ValueError,
        match=r"'at 30 s: the workload stops' is at or after the end of "
        r"the run: its time must be below seconds=30",
    ):
        sc.stop_workload(30)
    with pytest.raises(ValueError, match="innodb_io_capacity = 300' is at or after the end"):
        sc.at(45, innodb_io_capacity=300)
    assert sc.at(29.5, innodb_io_capacity=300).changes == (
        (29.5, "set", "innodb_io_capacity", 300),
    )


def test_a_preset_file_with_an_event_after_its_end_is_refused(tmp_path):
    path = tmp_path / "late.toml"
    path.write_text('seconds = 20\n[[timeline]]\nat = 25\naction = "stop_workload"\n')
    with pytest.raises(
        ValueError, match=r"late.toml, line 3: timeline event 'at 25 s: the workload stops'"
    ):
        presets.load(path)

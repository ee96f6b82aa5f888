"""The command line: presets, run with overrides, and clear one-line errors (exit status 2)."""

import subprocess
import sys

import polars as pl
import pytest

from flushsim import cli, presets


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
            "innodb_io_capacity='lots' is not a number",
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
    assert "80% full" in page


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

"""`python -m flushsim whatif`: a my.cnf (its includes read) against the same with changes."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import polars as pl
import pytest

from flushsim import Scenario, cli, params, schema, tables
from flushsim.whatif import ROWS, parse_changes, read_config, whatif

MYCNF = """\
[mysqld]
innodb_buffer_pool_size = 64M
innodb_io_capacity = 200
max_connections = 500
!includedir conf.d
"""
SMALL = ["--set", "table_rows=200000", "--set", "threads=4", "--seconds", "8"]


@pytest.fixture
def mycnf(tmp_path):
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "redo.cnf").write_text("[mysqld]\ninnodb_redo_log_capacity = 64M\n")
    (tmp_path / "conf.d" / "skip.txt").write_text("[mysqld]\ninnodb_io_capacity = 999\n")
    path = tmp_path / "my.cnf"
    path.write_text(MYCNF)
    return path


def test_read_config_follows_includedir(mycnf):
    report = read_config(mycnf)
    assert report.scenario["innodb_redo_log_capacity"] == 64 * 1024**2
    assert report.scenario["innodb_io_capacity"] == 200  # only *.cnf files are read
    assert report.modelled["innodb_buffer_pool_size"] == "64M"
    assert "max_connections" in report.not_modelled


def test_figures_and_difference(mycnf):
    sc = read_config(mycnf, table_rows=200_000, threads=4, seconds=8).scenario
    same = whatif(sc, {"innodb_io_capacity": "200"}, warmup=5).figures()
    assert same["current"] == same["proposed"]  # same workload and seed
    assert all(v == 0 for v in same["difference"].values())
    fig = whatif(sc, {"innodb_io_capacity_max": "4000"}, warmup=5).figures()
    assert list(fig["current"]) == list(ROWS)
    for k in ROWS:
        assert fig["difference"][k] == pytest.approx(fig["proposed"][k] - fig["current"][k])


def test_whatif_drive_sets_both_sides_device_and_its_lifetime(mycnf):
    from flushsim import ssd
    from flushsim.lifetime import run_lifetime

    sc = read_config(mycnf, table_rows=200_000, threads=4, seconds=8).scenario
    w = whatif(sc, {"innodb_io_capacity": "400"}, warmup=5, drive="crucial-t500-2tb", fill=0.5)
    assert w.current.scenario["device"] == w.proposed.scenario["device"] == "nvme-pcie4"
    life = run_lifetime(w.current, ssd.drive("crucial-t500-2tb"), 0.5, warmup_s=w.warmup_s)
    assert w.figures()["current"]["ssd_lifetime_years"] == life.years
    assert w.json_figures()["ssd_lifetime"]["current"] == life.headline
    kept = whatif(sc.replace(device="sata-ssd"), {}, warmup=5, drive="crucial-t500-2tb")
    assert kept.current.scenario["device"] == "sata-ssd"  # the user's device wins


def test_cli_whatif_writes_html_and_json(mycnf, tmp_path, capsys):
    html, js = tmp_path / "w.html", tmp_path / "w.json"
    argv = ["whatif", str(mycnf), "--change", "innodb_io_capacity=2k", *SMALL]
    argv += ["--warmup", "5", "--html", str(html), "--json", str(js), "--fill", "0.8"]
    assert cli.main(argv) == 0
    doc = json.loads(js.read_text())
    assert set(doc) == {"current", "proposed", "difference", "ssd_lifetime", "knobs", "adjustments"}
    assert "ssd_lifetime_years" in doc["difference"]
    # the JSON's words are the HTML's, and the same function's as the explorer's summary
    for side in ("current", "proposed"):
        words = doc["ssd_lifetime"][side]
        assert re.fullmatch(
            r"about [\d.,]+ (years?|months?|days?|hours?) at 80 % full at "
            r"this load, 24 hours a day",
            words,
        ), words
        assert f"{side}: <b>{words}</b>" in html.read_text()
    page = html.read_text()
    # the knob table shows sizes as written; the change as given
    assert "<td>64M</td>" in page and "<td>2k</td>" in page
    assert page.count("<h3>Regimes (each once") == 1
    assert "warm-up 5 s" in capsys.readouterr().err


def test_a_startup_warning_is_printed_once(mycnf, tmp_path, capsys):
    # both sides, and the warm-up of each, build the scenario again: the server warns once
    argv = ["whatif", str(mycnf), "--change", "innodb_io_capacity_max=100", *SMALL]
    assert cli.main([*argv, "--warmup", "2", "--html", str(tmp_path / "w.html")]) == 0
    err = capsys.readouterr().err
    assert err.count("innodb_io_capacity cannot be set higher than innodb_io_capacity_max") == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--change", "innodb_io_capacity=1.5k"], "innodb_io_capacity='1.5k' is not a whole"),
        (["--change", "innodb_lru_flush_size=64"], "not a mysql-8.0 setting"),
        (["--change", "x"], "--change 'x' must look like KNOB=VALUE"),
        (["--change", "innodb_io_capacity=300", "--warmup", "soon"], "--warmup 'soon' must be"),
        (["--change", "innodb_io_capacity=300", "--drive", "floppy"], "floppy"),
        (["--change", "innodb_io_capacity=300", "--fill", "1"], "--fill 1.0 must be between"),
    ],
)
def test_bad_input_is_one_line_before_any_run(mycnf, tmp_path, capsys, extra, message):
    argv = ["whatif", str(mycnf), *extra, "--html", str(tmp_path / "w.html")]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "w.html").exists()


def test_parse_changes_keeps_the_text():
    assert parse_changes(["innodb_buffer_pool_size=12G"]) == {"innodb_buffer_pool_size": "12G"}
    with pytest.raises(ValueError, match="given twice"):
        parse_changes(["innodb_io_capacity=300", "innodb_io_capacity=400"])


def test_report_takes_a_baseline_and_names_it(tmp_path):
    html = tmp_path / "r.html"
    argv = ["report", "default", "--baseline", "seed001-lru-burst", "--seconds", "3"]
    assert cli.main([*argv, "--warmup", "2", "--html", str(html)]) == 0
    page = html.read_text()
    assert "<h3>Baseline: seed001-lru-burst, drawn dashed</h3>" in page
    assert "<th>this run</th><th>baseline</th><th>difference</th>" in page
    # the knobs that differ, each side's value
    differ = re.findall(r"<tr><td><code>(\w+)</code></td><td>[^<]*</td><td>[^<]*</td></tr>", page)
    assert differ and all(k != "seed" for k in differ)
    assert page.count('"value":"baseline: seed001-lru-burst (dashed)"') >= 3  # legends


def test_an_error_in_an_included_file_names_that_file_and_line(mycnf):
    bad = mycnf.parent / "conf.d" / "zz.cnf"
    bad.write_text("[mysqld]\n# io\ninnodb_io_capacity = 5\n")
    with pytest.raises(ValueError) as err:
        read_config(mycnf)
    assert str(err.value).startswith(f"{bad}, line 3: innodb_io_capacity=5 is out of range")


def test_settings_keep_the_line_of_their_own_file(mycnf):
    report = read_config(mycnf)
    assert report.lines["innodb_io_capacity"] == 3  # my.cnf's own line
    assert report.lines["innodb_redo_log_capacity"] == 2  # conf.d/redo.cnf's
    assert any("redo.cnf (included)" in n for n in report.notes)


def test_each_setting_names_its_file_as_written(mycnf, monkeypatch, tmp_path, capsys):
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "lru.cnf").write_text("[mysqld]\n\ninnodb_lru_scan_depth = 512\n")
    (tmp_path / "conf.d" / "zz.cnf").write_text("[mysqld]\n!include ../extra/lru.cnf\n")
    monkeypatch.chdir(tmp_path)
    report = read_config("my.cnf")
    assert report.files == {
        "innodb_buffer_pool_size": "my.cnf",
        "innodb_io_capacity": "my.cnf",
        "max_connections": "my.cnf",
        "innodb_redo_log_capacity": "conf.d/redo.cnf",
        "innodb_lru_scan_depth": "conf.d/../extra/lru.cnf",  # from the including file's folder
    }
    rows = {r["setting"]: r for r in tables.config_table(report).iter_rows(named=True)}
    assert tables.config_table(report).columns[0] == "file"
    assert (rows["innodb_redo_log_capacity"]["file"], rows["innodb_redo_log_capacity"]["line"]) == (
        "conf.d/redo.cnf",
        2,
    )
    argv = ["whatif", "my.cnf", "--change", "innodb_io_capacity=300", *SMALL]
    assert cli.main([*argv, "--warmup", "2", "--html", "w.html"]) == 0
    page = (tmp_path / "w.html").read_text()
    assert "<td>conf.d/redo.cnf, line 2</td>" in page and "<td>my.cnf, line 2</td>" in page
    assert capsys.readouterr().err.splitlines()[1].split()[:2] == ["file", "line"]


def test_the_knob_table_shows_what_ran_where_from_and_the_servers_adjustment(mycnf, tmp_path):
    html, js = tmp_path / "w.html", tmp_path / "w.json"
    # my.cnf says innodb_io_capacity = 200 (line 3); the command line says 300, max 1000; the
    # proposed 2000 is above that max: the server runs 1000 and warns, as SET GLOBAL would
    argv = ["whatif", str(mycnf), "--change", "innodb_io_capacity=2000", *SMALL]
    argv += ["--set", "innodb_io_capacity=300", "--set", "innodb_io_capacity_max=1000"]
    assert cli.main([*argv, "--warmup", "2", "--html", str(html), "--json", str(js)]) == 0
    page = html.read_text()
    row = "<tr><td>innodb_io_capacity</td><td>300</td><td>1000 (asked 2000)</td>"
    assert f"{row}<td>--set (the config&#x27;s 200: {mycnf}, line 3)</td></tr>" in page
    assert "<tr><td>innodb_io_capacity_max</td><td>1000</td><td></td><td>--set</td>" in page
    assert "<tr><td>innodb_buffer_pool_size</td><td>64M</td>" in page  # as written
    warning = "innodb_io_capacity cannot be set higher than innodb_io_capacity_max"
    assert f"<li>proposed: {warning}" in page
    doc = json.loads(js.read_text())
    assert doc["knobs"] == {
        "current": {"innodb_io_capacity": "300"},
        "proposed": {"innodb_io_capacity": "1000"},
    }
    assert doc["adjustments"]["current"] == []
    assert [warning in a for a in doc["adjustments"]["proposed"]] == [True]
    # counts whole, the lifetime in words and its change in days, the hours said
    assert re.search(r"wait_free, total</td><td>waits</td><td[^>]*>[\d,]+</td>", page)
    assert "ssd_hours_per_day" not in page.split("<script")[0]
    assert re.search(r"50% full, 24 hours a day</td><td></td><td[^>]*>about [\d.,]+ \w+</td>", page)
    assert re.search(r"<td[^>]*>[+-][\d.,]+ days( \([+-]\d+ %\))?</td></tr>", page)
    # the workload is said, and that it is not the config's
    line = "Workload: flushsim&#x27;s defaults except table_rows, threads: uniform access to"
    assert f"{line} 200,000 rows (46 MiB), 4 threads, 20 % writes" in page
    # each regime once per side, none repeated under the player
    head = page.split("<h3>Regimes")[1].split("</div>")[0]
    for side in head.split("<h4>")[1:]:
        items = re.findall(r"<li>(.*?)</li>", side)
        assert len(items) == len(set(items))
    assert "<b>1</b> at" not in page


def test_regime_summary_lists_each_regime_once_with_its_seconds():
    from flushsim.viz.regimes import regime_summary, rule_text

    n = 8
    cols = {c: [0] * n for c in schema.COL}
    cols["time_s"] = list(range(1, n + 1))
    cols["sim_tps"] = [100] * n
    cols["buffer_flush_sync_total_pages"] = [0, 5, 0, 5, 0, 5, 0, 0]  # sync, adaptive in turn
    cols["buffer_flush_adaptive_total_pages"] = [5, 0, 5, 0, 5, 0, 5, 5]
    run = types.SimpleNamespace(series=pl.DataFrame(cols), scenario=Scenario())
    got = regime_summary(run)
    assert got.rows() == [
        (1, 5, rule_text("adaptive", "mysql-8.0")),
        (2, 3, rule_text("sync", "mysql-8.0")),
    ]


def test_a_recordings_settings_are_its_own_and_a_set_knob_is_the_command_lines():
    rec = Path(__file__).resolve().parents[1] / "data/reference/mariadb-10.11/burst-lwm10.parquet"
    report = read_config(rec, threads=4)
    assert report.modelled and "threads" not in report.modelled
    for k, text in report.modelled.items():  # the knob table's text reads as the value that ran
        assert str(params.parse_value(k, text)) == str(report.scenario.knobs[k]), k


def test_the_servers_adjustment_is_printed_before_the_report_is_written(
    mycnf, tmp_path, capsys, monkeypatch
):
    from flushsim import report

    seen = []
    write = report.write_whatif_html

    def recording(*a, **k):
        seen.append(capsys.readouterr().err)  # what the terminal showed before the file
        return write(*a, **k)

    monkeypatch.setattr(report, "write_whatif_html", recording)
    argv = ["whatif", str(mycnf), "--change", "innodb_io_capacity=2000", *SMALL]
    argv += ["--set", "innodb_io_capacity_max=1000", "--warmup", "2"]
    assert cli.main([*argv, "--html", str(tmp_path / "w.html")]) == 0
    warning = "innodb_io_capacity cannot be set higher than innodb_io_capacity_max"
    assert seen[0].count(warning) == 1
    assert warning not in capsys.readouterr().err  # not again at the end

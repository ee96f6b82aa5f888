"""Scenario files (a TOML of one's own, data/presets' format) and --engine translation."""

from __future__ import annotations

import warnings

import pytest

from flushsim import cli, params, presets
from flushsim.scenario import TRANSLATIONS, translate

GOOD = """\
name = "mine"
seconds = 5
seed = 3
[knobs]
innodb_buffer_pool_size = "256M"
innodb_io_capacity = 400
[[timeline]]
at = 2
set = { innodb_io_capacity = 800 }
"""


def test_a_scenario_file_is_read_like_a_preset(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(GOOD)
    sc = presets.resolve(str(path))
    assert (sc.name, sc.seconds, sc.seed) == ("mine", 5, 3)
    assert sc["innodb_buffer_pool_size"] == 256 * 1024**2
    assert sc.changes == ((2, "set", "innodb_io_capacity", 800),)
    assert presets.resolve("default") == presets.get("default")


@pytest.mark.parametrize(
    ("replace", "by", "where"),
    [
        ("innodb_io_capacity = 400", "innodb_io_capacity = 50", ", line 6 (innodb_io_capacity): "),
        (
            "innodb_io_capacity = 800",
            "innodb_io_capacity_max = 1",
            ", line 9 (innodb_io_capacity_max)",
        ),
        ('"256M"', '"1.5G"', ", line 5 (innodb_buffer_pool_size): "),
        ("seconds = 5", "seconds = 0", ", line 2 (seconds): "),
        ("at = 2", "at = 9", ", line 9 (innodb_io_capacity): "),
        ("innodb_io_capacity = 400", "innodb_io_capcity = 400", ", line 6 (innodb_io_capcity): "),
    ],
)
def test_an_error_names_file_line_and_knob(tmp_path, replace, by, where):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace(replace, by))
    with pytest.raises(ValueError) as err:
        presets.resolve(str(path))
    assert str(err.value).startswith(f"{path}{where}")


@pytest.mark.parametrize(
    ("replace", "by", "where", "says"),
    [
        ("seconds = 5", "second = 5", ", line 2 (second): ", "did you mean seconds or seed?"),
        ("[knobs]", "[knob]", ", line 4 (knob): ", "unknown table [knob] at the top"),
        ("seed = 3", "innodb_io_capacity = 9", ", line 3 (innodb_io_capacity): ", "[knobs]"),
        ("at = 2", "at = 2\nacton = 'x'", ", line 9 (acton): ", "did you mean action?"),
        ("set = {", "innodb_io_capacity = 1\nset = {", ", line 9 (innodb_io_capacity): ", "set"),
    ],
)
def test_an_unknown_key_or_table_is_refused_with_its_line(tmp_path, replace, by, where, says):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace(replace, by))
    with pytest.raises(ValueError) as err:
        presets.resolve(str(path))
    assert str(err.value).startswith(f"{path}{where}") and says in str(err.value)


def test_a_mycnf_given_to_run_is_sent_to_whatif(tmp_path, capsys):
    path = tmp_path / "my.cnf"
    path.write_text("# mine\n[mysqld]\ninnodb_io_capacity=2000\n")
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"error: {path}, line 2: [mysqld] is a my.cnf option group") and (
        "whatif" in err
    )


def test_the_cli_gives_file_errors_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace("[knobs]", "[knobs"))
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {path}: ") and "line 4" in err
    assert cli.main(["run", str(tmp_path / "none.toml")]) == 2
    assert "cannot be read (No such file or directory)" in capsys.readouterr().err


@pytest.mark.parametrize("mysql", params.MYSQL)
def test_redo_capacity_becomes_mariadbs_log_file_size(mysql):
    moved = translate(presets.get("seed004-idle-flush").replace(engine=mysql), params.MARIADB1011)
    assert moved.scenario["innodb_log_file_size"] == 8 * 1024**3
    assert moved.dropped == ()
    assert moved.translated == (
        ((("innodb_redo_log_capacity", "8G"),), "innodb_log_file_size", 8 * 1024**3),
    )


def test_mysqls_log_file_pair_becomes_one_mariadb_file():
    sc = presets.get("default").replace(innodb_log_file_size="64M", innodb_log_files_in_group=3)
    assert translate(sc, params.MARIADB106).scenario["innodb_log_file_size"] == 192 * 1024**2


@pytest.mark.parametrize("mysql", params.MYSQL)
def test_mariadb_to_mysql_translates_redo_and_drops_the_rest(mysql):
    moved = translate(presets.get("seed003-lru-flush-size"), mysql)
    assert moved.scenario["innodb_redo_log_capacity"] == 20 * 1024**3
    assert "innodb_log_file_size" not in moved.scenario.knobs
    assert set(moved.dropped) == {"version", "innodb_lru_flush_size"}
    # what it does not set takes MySQL's defaults
    assert moved.scenario["innodb_lru_scan_depth"] == 1024


def test_what_the_engine_cannot_hold_is_refused():
    sc = presets.get("default").replace(engine=params.MARIADB1011, innodb_log_file_size="200G")
    with pytest.raises(ValueError, match="innodb_redo_log_capacity=.* out of range"):
        translate(sc, params.MYSQL80)


def test_every_translation_row_names_knobs_its_engines_have():
    for row in TRANSLATIONS:
        for engine in row.from_engines:
            assert any(engine in params.BY_NAME[k].engines for k in row.sources)
        for engine in row.to_engines:
            assert engine in params.BY_NAME[row.target].engines


def test_cli_engine_warns_once_per_knob(capsys):
    argv = ["run", "seed003-lru-flush-size", "--engine", "mysql-8.0", "--seconds", "1"]
    with warnings.catch_warnings():
        assert cli.main([*argv, "--set", "threads=4", "--set", "table_rows=100000"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "warning: innodb_log_file_size=20G is innodb_redo_log_capacity=20G on mysql-8.0",
        "warning: version is not a mysql-8.0 setting (it exists on mariadb-10.6): dropped",
        "warning: innodb_lru_flush_size is not a mysql-8.0 setting (it exists on mariadb-10.6, "
        "mariadb-10.11): dropped",
    ]


class _Ran(Exception):
    """Raised in place of the simulation: the scenario the command would have run."""


@pytest.mark.parametrize(
    ("argv", "runs"),
    [
        (["report", "seed004-idle-flush", "--html", "r.html"], "_simulate_warm"),
        (["sweep", "seed004-idle-flush", "--grid", "threads=2,4", "--out", "s.csv"], "_sweep_warm"),
    ],
)
def test_report_and_sweep_take_engine_as_run_does(tmp_path, monkeypatch, capsys, argv, runs):
    def ran(scenario, _warmup):
        raise _Ran(scenario)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, runs, ran)
    with pytest.raises(_Ran) as got:
        cli.main([*argv, "--engine", "mariadb-10.11"])
    scenario = got.value.args[0]
    assert scenario.engine == "mariadb-10.11"
    assert scenario["innodb_log_file_size"] == 8 * 1024**3  # innodb_redo_log_capacity=8G

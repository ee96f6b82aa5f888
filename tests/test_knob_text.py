"""Knob values, help and the `knobs` table as a DBA reads them, per engine."""

import pytest

from flushsim import cli, params, presets
from flushsim.knob_text import help_text, knobs_table, server_value

ENGINES = ("mysql-8.0", "mariadb-10.6", "mariadb-10.11", "mysql-8.4")


def test_values_print_as_the_server_and_my_cnf_write_them():
    size = params.get("innodb_buffer_pool_size")
    assert server_value(size, 134217728) == "128M"
    assert server_value(size, 8 * 1024**3) == "8G"
    assert server_value(size, 5 * 1024**2 + 1) == str(5 * 1024**2 + 1)  # no exact suffix
    flag = params.get("innodb_adaptive_flushing")
    assert (server_value(flag, True), server_value(flag, False)) == ("ON", "OFF")
    assert server_value(params.get("innodb_max_dirty_pages_pct"), 90.0) == "90"
    # as a preset writes it: the string "OFF" is not a true value
    assert server_value(flag, "OFF") == "OFF"


def test_a_scenario_describes_its_timeline_in_words():
    text = presets.get("seed001-lru-burst").describe()
    assert "at 11 s: the workload switches to 100 % writes;" in text
    assert "at 40 s: SET GLOBAL innodb_page_cleaner_disabled_debug = OFF" in text
    assert "SET GLOBAL write_pct" not in text
    assert "innodb_flush_sync = OFF" in text and "True" not in text  # the preset says "OFF"
    stall = presets.get("seed000-stall").describe()
    assert "innodb_buffer_pool_size = 128M" in stall


@pytest.mark.parametrize("engine", ENGINES)
def test_knobs_table_is_whole_and_the_engines_own(engine):
    table = knobs_table(engine)
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 120
    assert "…" not in table and "True" not in table and "False" not in table
    words = set(table.split())
    for p in params.for_engine(engine):
        assert p.name in words
        for choice in p.choices:  # every choice whole, wrapped onto more lines if need be
            assert choice in words or f"{choice}," in words, choice
    assert "134217728" not in table and "128M" in table
    depth = next(line for line in lines if line.startswith("innodb_lru_scan_depth "))
    assert depth.split()[1] == ("1024" if engine in params.MYSQL else "1536")
    assert ("innodb_lru_flush_size" in words) == (engine in params.MARIADB)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("knob", ["innodb_buffer_pool_instances", "innodb_page_cleaners"])
def test_knobs_says_what_mariadb_ignores_instead_of_a_range(engine, knob):
    lines = knobs_table(engine).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(f"{knob} "))
    rest = lines[first + 1 :]
    block = " ".join([lines[first], *rest[: next(i for i, x in enumerate(rest) if x[:1] != " ")]])
    words = block.split()  # the cell wraps between the other columns' cells
    ignored = {"none:", "ignored;", "gone", "10.6.0"} <= set(words)
    assert ignored == (engine in params.MARIADB)
    assert ("between 1 and 64" in block) == (engine in params.MYSQL)


def test_knobs_command_takes_an_engine(capsys):
    assert cli.main(["knobs", "--engine", "mariadb-10.11"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Knobs of mariadb-10.11:") and "cloud-ebs-gp3" in out


def test_help_names_the_engine_its_default_and_range():
    text = help_text("innodb_io_capacity_max", "mariadb-10.11")
    assert "(mariadb-10.11)" in text and "LRU flushing ignores it" not in text
    assert "Server default 2 x innodb_io_capacity, at least 2000;" in text
    assert "valid between 5M and" in help_text("innodb_buffer_pool_size", "mysql-8.0")

"""One size grammar (flushsim.sizes): the same table through every place a size is read.

--set (the CLI), a my.cnf, a TOML scenario file and the explorer's readouts all read sizes as
the server reads an option file (my_getopt's eval_num_suffix); docs/model.md, "Sizes".
"""

from __future__ import annotations

import pytest

from flushsim import cli, params, presets, sizes
from flushsim.live import config

KiB, MiB, GiB = 1024, 1024**2, 1024**3

# text -> bytes: what the server accepts
ACCEPTED = [
    ("0", 0),
    ("1073741824", GiB),
    ("16k", 16 * KiB),
    ("16K", 16 * KiB),
    ("128m", 128 * MiB),
    ("128M", 128 * MiB),
    ("1g", GiB),
    ("1G", GiB),
    ("1GB", GiB),  # the server reads only the letter after the digits
    ("1048576K", GiB),
    ("+1G", GiB),
    ("2t", 2 * 1024 * GiB),
    ("1P", 2**50),
    ("1e", 2**60),
    (" 1G\t", GiB),
    ("18446744073709551615", 2**64 - 1),
]
# text -> the reason in the refusal
REFUSED = [
    ("1.5G", "no fractions"),
    ("-1G", "cannot be negative"),
    ("12Q", "unknown suffix 'Q'"),
    ("1 G", "unknown suffix ' '"),
    ("1GiB", "the server would read 1G and ignore the 'iB' after it"),
    ("4Gx", "the server would read 4G and ignore the 'x' after it"),
    # what both servers do with scientific notation (mariadbd 10.11.19 --help shows 2**60)
    ("1e9", "is not read as 1,000,000,000: the server takes the 'e' for its exa suffix"),
    ("2E3", "ignores the '3' after it, so it would read 2E"),
    ("G", "whole number with an optional K, M, G, T, P or E suffix"),
    ("", "whole number with an optional K, M, G, T, P or E suffix"),
    ("16E", "larger than 18,446,744,073,709,551,615"),
    ("18446744073709551616", "larger than"),
]


@pytest.mark.parametrize(("text", "size"), ACCEPTED)
def test_parse_size_accepts_what_the_server_does(text, size):
    assert sizes.parse_size(text) == size


@pytest.mark.parametrize(("text", "reason"), REFUSED)
def test_parse_size_refuses_with_the_reason(text, reason):
    with pytest.raises(sizes.SizeError) as err:
        sizes.parse_size(text)
    assert repr(text) in str(err.value) and reason in str(err.value)


# every reader of a knob value, as a function of (knob, text) -> the value it keeps
def _set(name, text):
    return cli._overrides([f"{name}={text}"])[name]


def _mycnf(name, text):
    return config.read_mycnf(f"[mysqld]\n{name} = {text}\n").scenario[name]


def _toml(name, text, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(f'seconds = 5\n[knobs]\n{name} = "{text}"\n')
    return presets.load(path)[name]


def _explorer(name, text):
    from flushsim.viz.explorer import _parse_value

    return _parse_value(name, text)


READERS = ["set", "mycnf", "toml", "explorer"]


def _read(reader, name, text, tmp_path):
    if reader == "toml":
        return _toml(name, text, tmp_path)
    return {"set": _set, "mycnf": _mycnf, "explorer": _explorer}[reader](name, text)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("text", "size"), [t for t in ACCEPTED if 256 * MiB <= t[1] <= 4 * GiB])
def test_every_reader_takes_the_same_sizes(reader, text, size, tmp_path):
    value = _read(reader, "innodb_buffer_pool_size", text, tmp_path)
    if reader in ("set", "explorer"):  # read, not yet validated
        value = params.check_value(params.get("innodb_buffer_pool_size"), value)
    assert value == size


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("text", "reason"), REFUSED[:6])
def test_every_reader_refuses_the_same_sizes(reader, text, reason, tmp_path):
    with pytest.raises(ValueError) as err:
        _read(reader, "innodb_buffer_pool_size", text, tmp_path)
    assert "innodb_buffer_pool_size" in str(err.value) and reason in str(err.value)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text", ["16k", "16K", "16384"])
def test_page_size_reads_as_a_size_everywhere(reader, text, tmp_path):
    value = _read(reader, "innodb_page_size", text, tmp_path)
    assert params.check_value(params.get("innodb_page_size"), value) == 16384


def test_counts_take_the_suffixes_too():
    # every integer option goes through eval_num_suffix: innodb_io_capacity=2k is 2048
    assert _set("innodb_io_capacity", "2k") == 2048
    with pytest.raises(ValueError, match="innodb_io_capacity='2.5k' is not a whole number"):
        _set("innodb_io_capacity", "2.5k")

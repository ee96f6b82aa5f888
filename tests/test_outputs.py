"""flushsim.outputs: output paths checked before any work, files written whole or not at all."""

import os
import signal
import stat
import threading
import time

import polars as pl
import pytest

from flushsim import outputs
from flushsim.outputs import OutputError, atomic_path, check_output, write_frame

FRAMES = outputs.FRAME_SUFFIXES


@pytest.mark.parametrize("name", ["x.csv", "x.CSV", "x.Parquet", "x.PARQUET"])
def test_a_known_suffix_in_any_case_is_accepted(tmp_path, name):
    assert check_output(tmp_path / name, suffixes=FRAMES) == tmp_path / name


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "--out is empty: give a file name ending in .csv or .parquet"),
        ("  ", "--out is empty"),
        ("x.xlsx", "must end in .csv or .parquet"),
        ("x", "must end in .csv or .parquet"),
        ("no-such-folder/x.csv", "the folder"),
    ],
)
def test_a_bad_path_is_one_line_naming_it(tmp_path, monkeypatch, name, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match=message) as exc:
        check_output(name, suffixes=FRAMES)
    assert "\n" not in str(exc.value)
    assert not (tmp_path / "no-such-folder").exists()  # never created behind the user's back


def test_a_folder_is_refused(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        check_output(tmp_path / "d.csv", suffixes=FRAMES)


def test_an_existing_file_needs_force(tmp_path):
    out = tmp_path / "x.csv"
    out.write_text("mine\n")
    with pytest.raises(OutputError, match=r"exists: pass --force to replace it"):
        check_output(out, suffixes=FRAMES)
    assert check_output(out, suffixes=FRAMES, force=True) == out
    assert out.read_text() == "mine\n"  # checking writes nothing


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to a read-only folder")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(OutputError, match="is not writable"):
            check_output(folder / "x.csv", suffixes=FRAMES)
    finally:
        folder.chmod(stat.S_IRWXU)


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "x.csv"
    out.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), atomic_path(out) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".x.") and tmp.suffix == ".csv"
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]


def test_a_clean_write_replaces_the_file_with_ordinary_permissions(tmp_path):
    out = tmp_path / "x.csv"
    with atomic_path(out) as tmp:
        tmp.write_text("new\n")
    assert out.read_text() == "new\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]


@pytest.mark.parametrize("name", ["t.CSV", "t.parquet", "t.PARQUET"])
def test_write_frame_goes_by_the_suffix_in_any_case(tmp_path, name):
    df = pl.DataFrame({"a": [1, 2], "b": [0.5, 1.5]})
    path = write_frame(df, tmp_path / name)
    read = pl.read_csv if name.lower().endswith(".csv") else pl.read_parquet
    assert read(path).equals(df)


def test_signals_held_delivers_the_signal_after_the_block():
    got = []
    old = signal.signal(signal.SIGHUP, lambda *_: got.append("hup"))
    # another thread, as polars' pool is: the kernel may hand it a process-directed signal
    idle = threading.Event()
    other = threading.Thread(target=idle.wait, daemon=True)
    other.start()
    try:
        with outputs.signals_held():
            for _ in range(20):
                os.kill(os.getpid(), signal.SIGHUP)
                time.sleep(0.005)
            assert got == []  # held while the file is written
        assert got == ["hup"]  # then delivered, once
    finally:
        idle.set()
        signal.signal(signal.SIGHUP, old)

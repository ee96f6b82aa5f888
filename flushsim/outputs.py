"""Output files: checked before any work, written under a temporary name, never half written.

Every command that writes a file (run, report, sweep, record, replay) calls `check_output` on
its path before it simulates or records anything: the suffix is known (in any case), the path
is not empty and not a folder, the folder exists (it is never created behind the user's back)
and is writable, and an existing file is replaced only with `--force`. The file is then
written through `atomic_path`: a hidden temporary file in the same folder, fsynced and renamed
over the target with `os.replace`, so an interrupt or a crash never leaves a half file under
the user's name (the rename is atomic within one file system).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import tempfile
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

FRAME_SUFFIXES = (".csv", ".parquet")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class OutputError(ValueError):
    """One line for the user: names the path and what is valid."""


def check_output(
    path: str | os.PathLike,
    *,
    suffixes: Sequence[str],
    force: bool = False,
    what: str = "--out",
) -> pathlib.Path:
    """Check an output path before any work and return it as a Path.

    Args:
        path: the file the user asked for.
        suffixes: the accepted suffixes, e.g. (".csv", ".parquet"); compared in any case.
        force: whether an existing file may be replaced.
        what: how the user gave the path (the option name), for the message.

    Raises:
        OutputError: an empty path, an unknown suffix, a folder, a missing or read-only folder,
            or an existing file without `force`.
    """
    text = os.fspath(path)
    known = " or ".join(suffixes)
    if not text.strip():
        raise OutputError(f"{what} is empty: give a file name ending in {known}")
    out = pathlib.Path(text).expanduser()
    if out.is_dir():
        raise OutputError(f"{what} {text!r} is a folder: give a file name ending in {known}")
    if out.suffix.lower() not in {s.lower() for s in suffixes}:
        raise OutputError(f"{what} {text!r} must end in {known}")
    folder = out.parent
    if not folder.is_dir():
        raise OutputError(f"{what} {text!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{what} {text!r}: the folder {str(folder)!r} is not writable")
    if out.exists() and not force:
        raise OutputError(f"{what} {text!r} exists: pass --force to replace it")
    return out


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[pathlib.Path]:
    """Yield a temporary path beside `path`; on a clean exit, rename it over `path`.

    The temporary file is hidden (`.name.XXXX.suffix`, same suffix so writers that go by the
    suffix still work); it is fsynced before the rename and removed if the block raises.
    """
    target = pathlib.Path(path)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=target.suffix, dir=target.parent or "."
    )
    os.close(fd)
    tmp = pathlib.Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        # mkstemp makes the file 0600: give it the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_frame(df: pl.DataFrame, path: str | os.PathLike) -> pathlib.Path:
    """Write a polars frame as .csv or .parquet (by suffix, any case) through `atomic_path`."""
    target = pathlib.Path(path)
    suffix = target.suffix.lower()
    if suffix not in FRAME_SUFFIXES:
        raise OutputError(f"output file {str(path)!r} must end in .csv or .parquet")
    with atomic_path(target) as tmp:
        if suffix == ".parquet":
            df.write_parquet(tmp)
        else:
            df.write_csv(tmp)
    return target


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends, then deliver them.

    Around the write of results that took long to make: a Ctrl-C during the write would
    otherwise cost the file. The signals are recorded by a Python handler (not masked: a
    process-directed signal goes to any thread that does not mask it, e.g. polars' pool) and
    raised again once the old handlers are back. Python's handlers run in the main thread
    only; elsewhere this holds nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    old = {sig: signal.signal(sig, lambda s, _f: pending.append(s)) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)

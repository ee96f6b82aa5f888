"""Output files: checked before the work starts, written atomically, never replaced silently.

`check_output` refuses a path the work could not be saved to (wrong suffix, a directory, a
missing or read-only folder) or an existing file without `force`, before anything runs.
`atomic_path` and `write_frame` write to a hidden temporary file in the same folder and rename
it over the target at the end, so an interrupted write never leaves a half file under the
user's name.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = ["OutputError", "atomic_path", "check_output", "write_frame"]


class OutputError(ValueError):
    """One line for the user: names the path and what is valid."""


def check_output(
    path: str | os.PathLike,
    *,
    suffixes: Sequence[str],
    force: bool = False,
    what: str = "--out",
) -> pathlib.Path:
    """The output path, checked before any work.

    The suffix is one of `suffixes` in any case, the path is not "" and not a directory, its
    folder exists (never created silently) and is writable, and an existing file is refused
    unless `force`.

    Raises:
        OutputError: the path cannot take the output.
    """
    text = os.fspath(path)
    valid = " or ".join(suffixes)
    if not text:
        raise OutputError(f"{what} is empty: give a FILE ending in {valid}")
    p = pathlib.Path(text)
    if p.is_dir():
        raise OutputError(f"{what} {text} is a directory: give a FILE ending in {valid}")
    if p.suffix.lower() not in {s.lower() for s in suffixes}:
        raise OutputError(f"{what} {text} must end in {valid}")
    folder = p.parent
    if not folder.is_dir():
        raise OutputError(f"{what} {text}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{what} {text}: the folder {folder} is not writable")
    if p.exists() and not force:
        raise OutputError(f"{text} exists: pass --force to replace it")
    return p


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[pathlib.Path]:
    """A hidden temporary path beside `path`, renamed over it on a clean exit.

    On an exception the temporary file is removed and `path` is left as it was.
    """
    target = pathlib.Path(path)
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.tmp{target.suffix}")
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_frame(df: pl.DataFrame, path: str | os.PathLike) -> pathlib.Path:
    """Write a polars frame as .csv or .parquet (by suffix, any case) through atomic_path."""
    target = pathlib.Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise OutputError(f"{target} must end in .csv or .parquet")
    with atomic_path(target) as tmp:
        if suffix == ".csv":
            df.write_csv(tmp)
        else:
            df.write_parquet(tmp)
    return target

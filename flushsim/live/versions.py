"""Which flushsim engine models a server: from its `version` and `version_comment`."""

from __future__ import annotations

import re

from .. import params
from ..schema import MARIADB106_VERSIONS
from .source_text import ConfigParseError

VERSION_NUMBER = re.compile(r"([0-9]{1,4})\.([0-9]{1,4})\.([0-9]{1,4})")
# First release of each MariaDB series with MDEV-33613 (user threads no longer flush the LRU):
# 10.6.18 and 10.11.8 per params.py and docs/model.md (server behaviour); the 11.x ones from the
# May 2024 release notes (not checked in source).
_MARIADB_NEW_FROM = {(10, 6): 18, (10, 11): 8, (11, 0): 6, (11, 1): 5, (11, 2): 4, (11, 4): 2}


# Percona Server's `version` is "8.0.36-28" (its release after the dash); Oracle's is "8.0.36",
# with "-log" or "-debug" on some builds. `version_comment` says "Percona Server (GPL), ...".
_PERCONA_VERSION = re.compile(r"^\s*[0-9]+\.[0-9]+\.[0-9]+-[0-9]+(?:\.[0-9]+)?\b")
# Percona Server's defaults of the knobs Oracle MySQL lacks: filled in when a Percona server's
# text does not list them (Percona Server 8.0 ha_innodb.cc; params.py has the sources)
PERCONA_DEFAULTS = {"innodb_cleaner_lsn_age_factor": "high_checkpoint"}
_PERCONA_NOTE = (
    "; Percona Server's innodb_cleaner_lsn_age_factor is modelled (default high_checkpoint), "
    "its LRU manager threads are not (flushsim flushes the LRU as MySQL's page cleaner does)"
)


def is_percona(version: str, comment: str = "") -> bool:
    """Whether a server's `version` / `version_comment` is Percona Server for MySQL's."""
    return "percona" in comment.lower() or _PERCONA_VERSION.match(version) is not None


def _mysql_engine(series: tuple[int, int]) -> tuple[str, str]:
    """The MySQL engine of a major.minor series, and ", modelled as ..." when it is not its own.

    8.4.0 changed the InnoDB defaults (params.py): the 8.1-8.3 innovation releases keep 8.0's,
    9.x keeps 8.4's.
    """
    if series == (8, 0):
        return params.MYSQL80, ""
    if series == (8, 4):
        return params.MYSQL84, ""
    if series < (8, 0):
        return params.MYSQL80, ", modelled as MySQL 8.0 (flushsim starts at 8.0)"
    if series < (8, 4):
        return params.MYSQL80, ", modelled as MySQL 8.0 (its InnoDB defaults are 8.0's)"
    return params.MYSQL84, ", modelled as MySQL 8.4 (flushsim's newest MySQL)"


def engine_and_note(version: str, comment: str = "") -> tuple[str | None, str]:
    """The flushsim engine for a server's `version` / `version_comment`, and how it was chosen.

    Returns (None, why) when `version` holds no major.minor.patch number.
    """
    m = VERSION_NUMBER.search(version)
    if m is None:
        return None, f"version {version!r} has no major.minor.patch number"
    major, minor, patch = (int(g) for g in m.groups())
    mariadb = "mariadb" in (version + " " + comment).lower()
    series = (major, minor)
    if not mariadb:
        engine, modelled = _mysql_engine(series)
        if is_percona(version, comment):
            who = f"Percona Server {version.strip()}" + modelled
            return engine, who + _PERCONA_NOTE
        return engine, f"MySQL {m.group(0)}" + modelled
    if series < (10, 6):
        return (
            params.MARIADB106,
            f"MariaDB {m.group(0)}, modelled as 10.6 (flushsim starts at 10.6)",
        )
    if series in _MARIADB_NEW_FROM:
        new = patch >= _MARIADB_NEW_FROM[series]
    else:
        new = series > (11, 4)  # 10.7-10.10 and 11.3 ended before the change
    engine = params.MARIADB1011 if new else params.MARIADB106
    generation = "10.6.18/10.11.8+" if new else "10.6.0-10.11.7"
    return engine, f"MariaDB {m.group(0)}: the {generation} generation ({engine})"


def mariadb106_release(version: str) -> tuple[str | None, str]:
    """The `version` knob of engine mariadb-10.6 for a server's version string, and a note.

    "10.6.3-MariaDB-log" -> "10.6.3". Releases of other series are mapped to the 10.6 release
    that flushes alike: 10.5 to 10.6.0 (no LRU flushing in the page cleaner); 10.7 to 10.10 to
    10.6.12 before MDEV-26827 reached them (10.8.8, 10.9.6, 10.10.4), else 10.6.13; 11.x
    (before MDEV-33613) to 10.6.17 once MDEV-33053 reached it, else 10.6.13.
    Returns (None, why) when the text holds no version of the 10.6 generation.
    """
    m = VERSION_NUMBER.search(str(version))
    if m is None:
        return None, f"version {version!r} has no major.minor.patch number: release 10.6.17 assumed"
    major, minor, patch = (int(g) for g in m.groups())
    release = f"{major}.{minor}.{patch}"
    if release in MARIADB106_VERSIONS:
        return release, ""
    if (major, minor) < (10, 6):
        return "10.6.0", f"MariaDB {release} flushes like 10.6.0 here (version = 10.6.0)"
    if (10, 7) <= (major, minor) <= (10, 10):
        fixed = {(10, 8): 8, (10, 9): 6, (10, 10): 4}.get((major, minor))
        alike = "10.6.13" if fixed is not None and patch >= fixed else "10.6.12"
    elif major == 11:
        # MDEV-33053 (the 10.6.17 page cleaner) reached 11.0.5, 11.1.4 and 11.2.3
        fixed = {0: 5, 1: 4, 2: 3}.get(minor, 0)
        alike = "10.6.17" if patch >= fixed else "10.6.13"
    else:
        return None, f"MariaDB {release} is not of the 10.6.0-10.11.7 generation"
    return alike, f"MariaDB {release} flushes like {alike} here (version = {alike})"


def engine_for_version(version: str, version_comment: str = "") -> str:
    """The flushsim engine for a server's `version` (and `version_comment`) variable.

    "8.0.36" -> "mysql-8.0"; "8.4.2" and Percona's "8.4.2-2" -> "mysql-8.4"; MariaDB
    10.6.0-10.6.17, 10.7-10.10 and 10.11.0-10.11.7 -> "mariadb-10.6"; MariaDB 10.6.18+,
    10.11.8+ and later series -> "mariadb-10.11" (params.py: from 10.6.18/10.11.8 only the page
    cleaner flushes the LRU).

    Raises:
        ConfigParseError: when the text holds no major.minor.patch version.
    """
    engine, note = engine_and_note(str(version), str(version_comment))
    if engine is None:
        raise ConfigParseError(note)
    return engine

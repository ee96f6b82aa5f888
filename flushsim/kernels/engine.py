"""Which server a run simulates: the kernel's only reading of the `engine` knob.

Every engine-specific branch of the kernel asks one of these predicates; `check_engine` refuses,
at the start of a run, a code that no branch handles (a new engine must add its own).
"""

from __future__ import annotations

from numba import njit

from .. import schema as S


@njit(cache=True, inline="always", _nrt=False)
def is_mysql(knobs):
    """MySQL 8.0 or 8.4: per-instance page cleaners, buf_LRU_get_free_block, single-page flush."""
    e = knobs[S.K_ENGINE]
    return e == S.ENG_MYSQL80 or e == S.ENG_MYSQL84


@njit(cache=True, inline="always", _nrt=False)
def is_mariadb(knobs):
    """Either MariaDB engine (10.6 generation or 10.11.8+): one pool, one page cleaner."""
    e = knobs[S.K_ENGINE]
    return e == S.ENG_MARIADB106 or e == S.ENG_MARIADB1011


@njit(cache=True, inline="always", _nrt=False)
def is_mariadb1011(knobs):
    """MariaDB 10.11.8+ (10.6.18+): only the page cleaner flushes the LRU."""
    return knobs[S.K_ENGINE] == S.ENG_MARIADB1011


@njit(cache=True)
def check_engine(knobs):
    """Raise ValueError if the knob vector names an engine the kernel has no code for."""
    if not (is_mysql(knobs) or is_mariadb(knobs)):
        raise ValueError("the kernel has no code for the engine code in knobs[K_ENGINE]")

"""Sampling: the end-of-second gauges of the per-second series (sample_second)."""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .cleaner import redo_limits
from .engine import is_mysql
from .mariadb import ma_redo_limits


@njit(cache=True, _nrt=False)
def sample_second(g, inst, knobs, out, s):
    """Gauges at the end of second s (row s covers [s, s+1) seconds)."""
    if s >= out.shape[0]:
        return
    free = 0
    data = 0
    dirty = 0
    old = 0
    for i in range(inst.shape[0]):
        free += inst[i, L.I_FREE_LEN]
        data += inst[i, L.I_LRU_LEN]
        dirty += inst[i, L.I_FL_LEN]
        old += inst[i, L.I_OLD_LEN]
    if is_mysql(knobs):
        _, age_async, age_sync, _, _, _ = redo_limits(knobs)
    else:
        _, age_async, age_sync = ma_redo_limits(knobs)
    out[s, S.C_TIME] = s + 1
    out[s, S.C_TOTAL] = inst.shape[0] * inst[0, L.I_SIZE]
    out[s, S.C_FREE] = free
    out[s, S.C_DATA] = data
    out[s, S.C_DIRTY] = dirty
    out[s, S.C_OLD] = old
    out[s, S.C_LSN] = g[L.G_LSN]
    out[s, S.C_CKPT] = g[L.G_CHECKPOINT_LSN]
    out[s, S.C_CKPT_AGE] = g[L.G_LSN] - g[L.G_CHECKPOINT_LSN]
    out[s, S.C_AGE_ASYNC] = age_async
    out[s, S.C_AGE_SYNC] = age_sync

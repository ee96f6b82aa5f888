"""SSD wear: endurance ratings, FTL write amplification and drive lifetime, as plain functions.

What this models: the flash wear caused by the bytes InnoDB writes (data pages, doublewrite, redo,
undo, binlog: see docs/model.md), turned into a drive lifetime. Two models of how a drive's fill
factor matters:

- **seed 004** ("Give Love to Your SSDs – Reduce innodb_io_capacity_max!", Percona, 2019): only
  the free part of the drive absorbs writes, so a drive that is 75 % full wears 4x faster. As a
  write-amplification factor that is `1 / (1 - fill)`. It has no FTL: factory over-provisioning
  and TRIM do not enter it, and a full drive has zero life.
- **Desnoyers**, "Analytic Modeling of SSD Write Performance", SYSTOR 2012: a page-mapped FTL
  whose cleaner picks the oldest block (LRU/FIFO, Eq. 4) or the emptiest (greedy, Eq. 12), under
  uniform random page writes; hot/cold (k-temperature) traffic with Eq. 14 / Eq. 16. The drive's
  fill factor, factory over-provisioning and TRIM give the FTL's spare factor
  (`effective_spare_factor`). This is the "better than the simple model" curve.

Notation (docs/model.md, the SSD model): T physical pages, U live pages, alpha = T/U,
spare factor S_f = (T - U)/T = 1 - 1/alpha, over-provisioning rho = (T - U)/U = alpha - 1.

Units: sizes and endurance in bytes, write rates in bytes/s, times in years of 365 days
(`SECONDS_PER_YEAR`, as the article and the DWPD definition count them). Fractions (fill, spare
factor, over-provisioning) are plain numbers, not percent. The constants `KB`...`PB` (powers of
1000, what vendors print) and `KiB`...`PiB` (powers of 1024) convert.

Its simplifications (rated endurance as host bytes at WA 1, the FTL assumptions of Desnoyers'
models, doublewrite and 16 KiB pages) are stated once in docs/model.md, the SSD model.

Lambert W is written here (`lambert_w0`): SciPy is not a dependency and numba cannot call it.
"""

from __future__ import annotations

import csv
import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_OVER_PROVISIONING",
    "JESD219_DATA_FRACTIONS",
    "JESD219_WRITE_FRACTIONS",
    "MODELS",
    "MODEL_NAMES",
    "SECONDS_PER_YEAR",
    "Drive",
    "catalog_drives",
    "drive",
    "effective_spare_factor",
    "endurance_bytes",
    "lambert_w0",
    "lifetime_years",
    "load_catalog",
    "sustainable_write_rate",
    "wa_desnoyers_greedy",
    "wa_desnoyers_hot_cold",
    "wa_desnoyers_lru",
    "wa_seed004",
    "write_amplification",
]

KB, MB, GB, TB, PB = 10**3, 10**6, 10**9, 10**12, 10**15
KiB, MiB, GiB, TiB, PiB = 2**10, 2**20, 2**30, 2**40, 2**50
SECONDS_PER_YEAR = 365 * 24 * 3600
"""Seconds in the 365-day year that the article, TBW and DWPD figures count in."""

MODELS = ("seed004", "desnoyers-lru", "desnoyers-greedy")
"""The fill-factor models `write_amplification` and `lifetime_years` accept."""

DEFAULT_MODEL = "desnoyers-greedy"
"""The model of the lifetime headline (`lifetime.run_lifetime`), sweeps and what-ifs."""

DEFAULT_OVER_PROVISIONING = 0.07
"""Factory over-provisioning the FTL models assume: (raw - user) / user, GiB of flash sold as GB."""

_OP = f"{DEFAULT_OVER_PROVISIONING:.0%}".replace("%", " %")
MODEL_NAMES = {
    "seed004": "no FTL, 0 % over-provisioning",
    "desnoyers-lru": f"LRU FTL, {_OP} over-provisioning, TRIM",
    "desnoyers-greedy": f"greedy FTL, {_OP} over-provisioning, TRIM",
}
"""Each model named for what it assumes, short enough for a legend (docs/model.md, SSD wear:
"no FTL" is seed 004's free-space-only model; the FTLs clean the LRU or the emptiest block)."""

JESD219_WRITE_FRACTIONS = (0.5, 0.3, 0.2)
"""JESD219 enterprise workload: share of writes going to each LBA class (docs/model.md)."""
JESD219_DATA_FRACTIONS = (0.05, 0.15, 0.80)
"""JESD219 enterprise workload: share of the LBA span in each class (first 5 %, next 15 %, rest)."""

CATALOG_PATH = Path(__file__).resolve().parent.parent / "data" / "ssd_catalog.csv"
NAND_TYPES = ("", "MLC", "TLC", "QLC", "3D XPoint")
"""The catalog's `nand` values ("": the source does not say)."""

_MINUS_INV_E = -math.exp(-1.0)
# W0 about the branch point in p = sqrt(2 (e x + 1)): Corless et al., "On the Lambert W
# function", Adv. Comput. Math. 5 (1996), series about the branch point
_BRANCH_SERIES = (
    -1.0,
    1.0,
    -1.0 / 3.0,
    11.0 / 72.0,
    -43.0 / 540.0,
    769.0 / 17280.0,
    -221.0 / 8505.0,
)
_EPS = np.finfo(float).eps


# --------------------------------------------------------------------------- validation helpers


def _array(value, name: str) -> np.ndarray:
    """`value` as a float64 array; a ValueError naming `name` if it is not numeric or is NaN."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} is NaN: it must be a number")
    return arr


def _first_bad(arr: np.ndarray, bad: np.ndarray, name: str) -> str:
    """`name=value` for the first offending element, with its index when `arr` is an array."""
    if arr.ndim == 0:
        return f"{name}={float(arr)!r}"
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = index[0] if len(index) == 1 else index
    return f"{name}[{where}]={float(arr[index])!r}"


def _check_range(
    arr: np.ndarray,
    name: str,
    lo: float | None,
    hi: float | None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    what: str = "",
    why: str = "",
) -> None:
    """Raise a ValueError naming `name` and its valid range if any element is outside it."""
    bad = np.zeros(arr.shape, dtype=bool)
    if lo is not None:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi is not None:
        bad |= (arr >= hi) if hi_open else (arr > hi)
    if not bad.any():
        return
    if lo is not None and hi is not None:
        rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    elif lo is not None:
        rng = f"{'>' if lo_open else '>='} {lo:g}"
    else:
        rng = f"{'<' if hi_open else '<='} {hi:g}"
    both = lo is not None and hi is not None
    text = f"{_first_bad(arr, bad, name)} is out of range: it must be {'in ' if both else ''}{rng}"
    if what:
        text += f" ({what})"
    if why:
        text += f"; {why}"
    raise ValueError(text)


def _result(arr: np.ndarray, *inputs: np.ndarray) -> float | np.ndarray:
    """A float when every input was a scalar, else the array."""
    if all(np.ndim(a) == 0 for a in inputs):
        return float(arr)
    return arr


def _fill(fill, *, strict: bool) -> np.ndarray:
    """`fill` as an array in [0, 1) (`strict`, seed 004) or [0, 1]; else a ValueError saying why."""
    arr = _array(fill, "fill")
    bad = (arr < 0.0) | ((arr >= 1.0) if strict else (arr > 1.0))
    if not bad.any():
        return arr
    value = float(arr[tuple(np.argwhere(bad)[0])])
    text = (
        f"{_first_bad(arr, bad, 'fill')} is out of range: it must be in "
        f"{'[0, 1)' if strict else '[0, 1]'} (fraction of the drive holding data)"
    )
    if value == 1.0:
        text += "; at fill=1 the drive has no free space to absorb writes"
    elif 1.0 < value <= 100.0:
        # the commonest slip: a percentage where a fraction is wanted
        text += f"; fill is a fraction: {value:g} % full is fill={value / 100:g}"
    raise ValueError(text)


# ---------------------------------------------------------------------------------- Lambert W


def _w0(x: np.ndarray) -> np.ndarray:
    """Principal-branch Lambert W of a float array whose elements are all >= -1/e (unchecked)."""
    shape = np.shape(x)
    x = np.atleast_1d(np.asarray(x, dtype=float)).ravel()
    w = np.empty_like(x)
    big = x > math.e  # W >= 1: Newton on w + ln w = ln x never overflows
    near = x < -0.25  # close to the branch point -1/e: series in p = sqrt(2(e x + 1))
    mid = ~big & ~near

    if big.any():
        xb = x[big]
        finite = np.isfinite(xb)
        lx = np.log(np.where(finite, xb, 10.0))  # placeholder for inf, replaced below
        llx = np.log(lx)
        wb = lx - llx + llx / lx  # asymptotic start (de Bruijn)
        for _ in range(50):
            step = (wb + np.log(wb) - lx) / (1.0 + 1.0 / wb)
            wb = wb - step
            if np.all(np.abs(step) <= 4 * _EPS * wb):
                break
        w[big] = np.where(finite, wb, np.inf)

    p = np.sqrt(np.maximum(2.0 * (math.e * x[near] + 1.0), 0.0))
    if near.any():
        series = np.zeros_like(p)
        for c in reversed(_BRANCH_SERIES):  # Horner
            series = series * p + c
        w[near] = series
    if mid.any():
        lp = np.log1p(x[mid])
        w[mid] = lp * (1.0 - np.log1p(lp) / (2.0 + lp))  # Winitzki's approximation

    # Halley's iteration where the start is not already exact: the branch-point series is good to
    # ~p^7, and Halley's denominators vanish as p -> 0, so leave p < 1e-3 alone.
    polish = mid.copy()
    polish[near] = p >= 1e-3
    if polish.any():
        wh, xh = w[polish], x[polish]
        for _ in range(50):
            ew = np.exp(wh)
            f = wh * ew - xh
            wp1 = wh + 1.0
            denom = ew * wp1 - (wh + 2.0) * f / (2.0 * wp1)
            step = f / denom
            wh = wh - step
            if np.all(np.abs(step) <= 4 * _EPS * (1.0 + np.abs(wh))):
                break
        w[polish] = wh
    w[x == _MINUS_INV_E] = -1.0
    w[x == 0.0] = 0.0
    return w.reshape(shape)


def lambert_w0(x):
    """Principal branch W0 of the Lambert W function: the w >= -1 with w * exp(w) = x.

    Halley's iteration (Newton on w + ln w = ln x above e), started from a series at the branch
    point, Winitzki's approximation near zero, or the asymptotic expansion for large x.
    Vectorised over numpy arrays; no SciPy.

    Args:
        x: float or array, each element >= -1/e (about -0.36788). `inf` gives `inf`.

    Returns:
        W0(x): a float for a scalar input, else an array of the broadcast shape.

    Raises:
        ValueError: an element is below -1/e or NaN (the message names it).
    """
    arr = _array(x, "x")
    bad = arr < _MINUS_INV_E
    if bad.any():
        raise ValueError(
            f"{_first_bad(arr, bad, 'x')} is out of range: the principal branch of Lambert W "
            f"needs x >= -1/e ({_MINUS_INV_E!r})"
        )
    return _result(_w0(arr), arr)


# ------------------------------------------------------------------- write-amplification models


def wa_seed004(fill):
    """Seed 004's wear factor: only the free fraction of the drive absorbs writes.

    The article scales the sustainable write rate by the free fraction (83 MB/s empty, about
    21 MB/s at 75 % full), i.e. lifetime is proportional to (1 - fill). Expressed as a
    write-amplification factor: WA = 1 / (1 - fill), so lifetime = endurance / (rate x WA).

    Args:
        fill: fraction 0 <= fill < 1 of the drive holding data (float or array).

    Returns:
        1 / (1 - fill): 1 for an empty drive, 4 at 75 % full.

    Raises:
        ValueError: fill outside [0, 1); at fill = 1 the drive has no free space to absorb writes.
    """
    f = _fill(fill, strict=True)
    return _result(1.0 / (1.0 - f), f)


def _spare_factor(spare_factor) -> np.ndarray:
    sf = _array(spare_factor, "spare_factor")
    _check_range(
        sf,
        "spare_factor",
        0.0,
        1.0,
        lo_open=True,
        what="(T - U) / T: spare share of the flash",
        why="at spare_factor=0 the FTL has no free space to absorb writes",
    )
    return sf


def _alpha(sf: np.ndarray) -> np.ndarray:
    """Return alpha = T/U = 1 / (1 - S_f); inf where S_f = 1 (no live data)."""
    return np.divide(1.0, 1.0 - sf, out=np.full(sf.shape, np.inf), where=sf < 1.0)


def _lru_of_alpha(alpha: np.ndarray) -> np.ndarray:
    """Desnoyers Eq. 4 for alpha > 1 (inf allowed): A = alpha / (alpha + W0(-alpha e^-alpha))."""
    out = np.ones(alpha.shape)
    fin = np.isfinite(alpha)
    a = alpha[fin]
    arg = np.maximum(-a * np.exp(-a), _MINUS_INV_E)  # rounding can dip below -1/e near a = 1
    out[fin] = a / (a + _w0(arg))
    return out


def _greedy_k(pages_per_block) -> np.ndarray:
    npb = _array(pages_per_block, "pages_per_block")
    _check_range(npb, "pages_per_block", 1.0, None, what="flash pages per erase block")
    return 1.0 + 1.0 / (2.0 * npb)


def wa_desnoyers_lru(spare_factor):
    """Write amplification of LRU (FIFO) cleaning under uniform random writes (Desnoyers Eq. 4).

    A = alpha / (alpha + W0(-alpha * exp(-alpha))) with alpha = 1 / (1 - spare_factor).
    Test points: spare factor 0.07 -> 7.32; rho = 0.3 (spare factor 0.3/1.3) -> 2.36.

    Args:
        spare_factor: S_f = (T - U) / T in (0, 1]; T physical pages, U live pages. Use
            `effective_spare_factor` to get it from a drive's fill and over-provisioning.

    Returns:
        Write amplification (flash pages written per host page), >= 1; 1 at spare_factor = 1.

    Raises:
        ValueError: spare_factor outside (0, 1].
    """
    sf = _spare_factor(spare_factor)
    return _result(_lru_of_alpha(_alpha(sf)), sf)


def wa_desnoyers_greedy(spare_factor, pages_per_block=64):
    """Write amplification of greedy cleaning under uniform random writes (Desnoyers Eq. 12).

    A_greedy(alpha) = A_LRU(k alpha) / k with k = 1 + 1 / (2 N_p). Test point: spare factor 0.07,
    64 pages per block -> 6.60. The approximation tends to 1/k < 1 as the spare factor grows
    (below about 20 % fill); flushsim clamps it at 1, since an FTL cannot program fewer flash
    pages than the host writes.

    Args:
        spare_factor: S_f = (T - U) / T in (0, 1].
        pages_per_block: N_p, flash pages per erase block (>= 1).

    Returns:
        Write amplification, >= 1.

    Raises:
        ValueError: spare_factor outside (0, 1] or pages_per_block < 1.
    """
    sf = _spare_factor(spare_factor)
    k = _greedy_k(pages_per_block)
    sf_b, k_b = np.broadcast_arrays(sf, k)
    return _result(np.maximum(_lru_of_alpha(k_b * _alpha(sf_b)) / k_b, 1.0), sf, k)


def _lru_hc_of_alpha(alpha: np.ndarray, r: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Solve Desnoyers Eq. 14, x = 1 + sum_i r_i / (exp(alpha r_i / (f_i x)) - 1), for x.

    The nontrivial root lies in [1, alpha / (alpha - 1)] (each term is <= f_i x / alpha), where
    g(x) = rhs - x goes from > 0 to <= 0; bisection there is safe and vectorised over alpha.
    Each term is written (f_i x / alpha) * z / expm1(z), z = alpha r_i / (f_i x), which stays
    finite for r_i = 0 (data never rewritten) and never overflows.
    """
    out = np.ones(alpha.shape)
    fin = np.isfinite(alpha)
    a = alpha[fin][:, None]
    rr, ff = r[None, :], f[None, :]

    def g(x):
        z = a * rr / (ff * x[:, None])
        em = -np.expm1(-z)
        ratio = np.divide(z * np.exp(-z), em, out=np.ones(z.shape), where=z > 0)
        return 1.0 + np.sum(ff * x[:, None] / a * ratio, axis=1) - x

    lo = np.ones(a.shape[0])
    hi = a[:, 0] / (a[:, 0] - 1.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        pos = g(mid) > 0
        lo = np.where(pos, mid, lo)
        hi = np.where(pos, hi, mid)
        if np.all(hi - lo <= 2 * _EPS * hi):
            break
    out[fin] = 0.5 * (lo + hi)
    return out


def wa_desnoyers_hot_cold(
    spare_factor,
    write_fractions: Sequence[float] = JESD219_WRITE_FRACTIONS,
    data_fractions: Sequence[float] = JESD219_DATA_FRACTIONS,
    *,
    cleaning: str = "lru",
    pages_per_block=64,
):
    """Write amplification for k-temperature random writes (Desnoyers Eq. 14 LRU, Eq. 16 greedy).

    Class i holds a fraction f_i of the live data and receives a fraction r_i of the writes.
    LRU: A = x solving x = 1 + sum_i r_i / (exp(alpha r_i / (f_i x)) - 1). Greedy:
    A_LRU,hc(k alpha) / k with k = 1 + 1 / (2 N_p), clamped at 1 as in `wa_desnoyers_greedy`.
    With one class (or r_i = f_i) this equals
    the uniform model. The defaults are the JESD219 enterprise skew, so this backs out the WA
    hidden in a vendor rating.

    Args:
        spare_factor: S_f = (T - U) / T in (0, 1] (float or array).
        write_fractions: r_i, each >= 0, summing to 1.
        data_fractions: f_i, each > 0, summing to 1, same length as write_fractions.
        cleaning: "lru" or "greedy".
        pages_per_block: N_p for greedy cleaning (>= 1).

    Returns:
        Write amplification, >= 1.

    Raises:
        ValueError: a fraction or spare_factor is out of range, the fractions do not sum to 1 or
            differ in length, or cleaning is unknown.
    """
    sf = _spare_factor(spare_factor)
    r = _array(write_fractions, "write_fractions").ravel()
    f = _array(data_fractions, "data_fractions").ravel()
    if r.size == 0 or r.size != f.size:
        raise ValueError(
            f"write_fractions has {r.size} classes and data_fractions {f.size}: "
            "they must be non-empty and of the same length"
        )
    _check_range(r, "write_fractions", 0.0, 1.0, what="share of writes per class")
    _check_range(f, "data_fractions", 0.0, 1.0, lo_open=True, what="share of data per class")
    for name, v in (("write_fractions", r), ("data_fractions", f)):
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"{name} sums to {float(v.sum())!r}: it must sum to 1")
    if cleaning == "lru":
        return _result(_lru_hc_of_alpha(_alpha(sf), r, f), sf)
    if cleaning == "greedy":
        k = _greedy_k(pages_per_block)
        sf_b, k_b = np.broadcast_arrays(sf, k)
        return _result(np.maximum(_lru_hc_of_alpha(k_b * _alpha(sf_b), r, f) / k_b, 1.0), sf, k)
    raise ValueError(f"cleaning={cleaning!r} is not known: it must be 'lru' or 'greedy'")


def effective_spare_factor(fill, over_provisioning=DEFAULT_OVER_PROVISIONING, trim=True):
    """The FTL's spare factor for a drive `fill` full with factory over-provisioning.

    Raw flash T = user capacity x (1 + over_provisioning). With TRIM the FTL's live data is
    U = fill x user capacity; without TRIM every LBA once written stays live, and flushsim
    assumes the whole span has been written (U = user capacity). S_f = 1 - U / T, so with TRIM
    alpha = (1 + over_provisioning) / fill.

    Args:
        fill: fraction 0..1 of the user capacity holding data (float or array).
        over_provisioning: factory over-provisioning rho = (raw - user) / user, >= 0. About 0.07
            on most drives (GiB of flash sold as GB); 0.28 on many enterprise models.
        trim: whether the filesystem passes discards to the drive (`discard` or `fstrim`).

    Returns:
        S_f in (0, 1]; 1 for an empty drive with TRIM.

    Raises:
        ValueError: fill outside [0, 1], over_provisioning < 0, or no spare flash at all
            (fill = 1 or no TRIM, with over_provisioning = 0).
    """
    fl = _fill(fill, strict=False)
    op = _array(over_provisioning, "over_provisioning")
    _check_range(op, "over_provisioning", 0.0, None, what="(raw - user) / user capacity")
    live = fl if trim else np.ones(fl.shape)
    live, opb = np.broadcast_arrays(live, op)
    sf = 1.0 - live / (1.0 + opb)
    bad = sf <= 0.0
    if bad.any():
        flb = np.broadcast_to(fl, sf.shape)
        i = tuple(int(j) for j in np.argwhere(bad)[0])
        cause = f"fill={float(flb[i])!r}" if trim else "trim=False (every LBA counts as live)"
        raise ValueError(
            f"{cause} with over_provisioning={float(opb[i])!r}: the drive has no free space to "
            "absorb writes; it needs fill < 1 with TRIM, or over_provisioning > 0"
        )
    return _result(sf, fl, op)


def write_amplification(
    fill,
    model: str = "seed004",
    *,
    over_provisioning=DEFAULT_OVER_PROVISIONING,
    trim: bool = True,
    pages_per_block=64,
):
    """Write amplification at a fill factor under one of `MODELS`.

    Args:
        fill: fraction of the drive holding data; [0, 1) for "seed004", [0, 1] for the
            Desnoyers models (1 needs over_provisioning > 0).
        model: "seed004", "desnoyers-lru" or "desnoyers-greedy".
        over_provisioning: factory over-provisioning (Desnoyers models only; seed 004 has none).
        trim: whether TRIM reaches the drive (Desnoyers models only).
        pages_per_block: N_p for "desnoyers-greedy".

    Returns:
        Write amplification, >= 1.

    Raises:
        ValueError: unknown model or an argument out of range.
    """
    if model == "seed004":
        return wa_seed004(fill)
    if model == "desnoyers-lru":
        return wa_desnoyers_lru(effective_spare_factor(fill, over_provisioning, trim))
    if model == "desnoyers-greedy":
        sf = effective_spare_factor(fill, over_provisioning, trim)
        return wa_desnoyers_greedy(sf, pages_per_block)
    close = difflib.get_close_matches(str(model), MODELS, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"model={model!r} is not known{hint} (models: {', '.join(MODELS)})")


# ------------------------------------------------------------------------ endurance and lifetime


def endurance_bytes(capacity_bytes, cycles=None, tbw_bytes=None, dwpd=None, warranty_years=None):
    """Rated endurance in bytes from exactly one rating form.

    - `cycles`: full-drive writes (the article's "endurance (cycle)"): capacity x cycles.
    - `tbw_bytes`: total bytes written, as rated (give bytes: 1,200 TBW is 1200 * 10**12).
    - `dwpd` with `warranty_years`: capacity x DWPD x 365 x years (JESD218 definition).

    Args:
        capacity_bytes: user capacity in bytes (> 0).
        cycles: rated full-drive write cycles (> 0).
        tbw_bytes: rated total bytes written (> 0).
        dwpd: rated drive writes per day (> 0); needs warranty_years.
        warranty_years: the period the DWPD rating covers, in years (> 0); only with dwpd.

    Returns:
        Endurance in bytes.

    Raises:
        ValueError: not exactly one form given, warranty_years without dwpd (or the reverse), or
            a value <= 0.
    """
    given = [
        n
        for n, v in (("cycles", cycles), ("tbw_bytes", tbw_bytes), ("dwpd", dwpd))
        if v is not None
    ]
    if len(given) != 1:
        raise ValueError(
            "give exactly one endurance rating: cycles, tbw_bytes, or dwpd with warranty_years"
            f" (got {', '.join(given) if given else 'none'})"
        )
    if (dwpd is None) != (warranty_years is None):
        raise ValueError(
            "warranty_years goes with dwpd and only with dwpd (a DWPD rating covers a period)"
        )
    cap = _array(capacity_bytes, "capacity_bytes")
    _check_range(cap, "capacity_bytes", 0.0, None, lo_open=True, what="bytes")
    if cycles is not None:
        c = _array(cycles, "cycles")
        _check_range(c, "cycles", 0.0, None, lo_open=True, what="full-drive writes")
        return _result(cap * c, cap, c)
    if tbw_bytes is not None:
        t = _array(tbw_bytes, "tbw_bytes")
        _check_range(t, "tbw_bytes", 0.0, None, lo_open=True, what="bytes")
        return _result(np.broadcast_arrays(t, cap)[0].copy(), cap, t)
    d = _array(dwpd, "dwpd")
    y = _array(warranty_years, "warranty_years")
    _check_range(d, "dwpd", 0.0, None, lo_open=True, what="drive writes per day")
    _check_range(y, "warranty_years", 0.0, None, lo_open=True, what="years")
    return _result(cap * d * 365.0 * y, cap, d, y)


def _budget(capacity_bytes, cycles, tbw_bytes, dwpd, warranty_years, rating_wa) -> np.ndarray:
    e = np.asarray(endurance_bytes(capacity_bytes, cycles, tbw_bytes, dwpd, warranty_years))
    rw = _array(rating_wa, "rating_wa")
    _check_range(rw, "rating_wa", 1.0, None, what="write amplification inside the rating")
    return e * rw


def lifetime_years(
    write_bytes_per_s,
    capacity_bytes,
    *,
    cycles=None,
    tbw_bytes=None,
    dwpd=None,
    warranty_years=None,
    fill=0.0,
    model: str = "seed004",
    over_provisioning=DEFAULT_OVER_PROVISIONING,
    trim: bool = True,
    pages_per_block=64,
    rating_wa=1.0,
):
    """Years until host writes at `write_bytes_per_s` use up the rated endurance.

    lifetime = endurance x rating_wa / (write rate x WA(fill) x SECONDS_PER_YEAR). A load that
    runs only some hours a day writes at its day's mean rate (`lifetime.daily_rate`).
    Seed 004: a 1.6 TB drive rated 7,840 cycles, 75 % full, written at 2,000 pages/s x 36 KB
    lasts under 1.5 years.

    Args:
        write_bytes_per_s: host write rate in bytes/s (>= 0; 0 gives inf).
        capacity_bytes: user capacity in bytes.
        cycles: endurance as full-drive write cycles (one rating form, see `endurance_bytes`).
        tbw_bytes: endurance as total bytes written.
        dwpd: endurance as drive writes per day, with warranty_years.
        warranty_years: the DWPD rating period in years.
        fill: fraction of the drive holding data.
        model: "seed004" (default), "desnoyers-lru" or "desnoyers-greedy".
        over_provisioning: factory over-provisioning (Desnoyers models).
        trim: whether TRIM reaches the drive (Desnoyers models).
        pages_per_block: N_p for "desnoyers-greedy".
        rating_wa: write amplification already inside the rating (>= 1; 1 treats the rating as
            flash bytes at WA 1, as seed 004 does).

    Returns:
        Lifetime in years (float, or array for array inputs).

    Raises:
        ValueError: any argument out of range (negative write rate, fill = 1 under seed 004, ...).
    """
    rate = _array(write_bytes_per_s, "write_bytes_per_s")
    _check_range(rate, "write_bytes_per_s", 0.0, None, what="bytes/s")
    budget = _budget(capacity_bytes, cycles, tbw_bytes, dwpd, warranty_years, rating_wa)
    wa = np.asarray(
        write_amplification(
            fill,
            model,
            over_provisioning=over_provisioning,
            trim=trim,
            pages_per_block=pages_per_block,
        )
    )
    budget, wear = np.broadcast_arrays(budget, rate * wa * SECONDS_PER_YEAR)
    with np.errstate(over="ignore"):  # a vanishing rate gives inf years, not a warning
        years = np.divide(budget, wear, out=np.full(budget.shape, np.inf), where=wear > 0)
    return _result(
        years,
        *(np.asarray(v) for v in (write_bytes_per_s, capacity_bytes, fill, over_provisioning)),
        *(np.asarray(v) for v in (cycles, tbw_bytes, dwpd, warranty_years, pages_per_block)),
        np.asarray(rating_wa),
    )


def sustainable_write_rate(
    years,
    capacity_bytes,
    *,
    cycles=None,
    tbw_bytes=None,
    dwpd=None,
    warranty_years=None,
    fill=0.0,
    model: str = "seed004",
    over_provisioning=DEFAULT_OVER_PROVISIONING,
    trim: bool = True,
    pages_per_block=64,
    rating_wa=1.0,
):
    """Average host write rate in bytes/s that uses up the rated endurance in `years`.

    The inverse of `lifetime_years`. Seed 004: a DC P4610 (12.25 PB) sustains about 83 MB/s for
    5 years empty and about 21 MB/s at 75 % full (the article's MB are MiB, see the tests).

    Args:
        years: wanted lifetime in years (> 0).
        capacity_bytes: user capacity in bytes.
        cycles: endurance as full-drive write cycles (one rating form, see `endurance_bytes`).
        tbw_bytes: endurance as total bytes written.
        dwpd: endurance as drive writes per day, with warranty_years.
        warranty_years: the DWPD rating period in years.
        fill: fraction of the drive holding data.
        model: "seed004" (default), "desnoyers-lru" or "desnoyers-greedy".
        over_provisioning: factory over-provisioning (Desnoyers models).
        trim: whether TRIM reaches the drive (Desnoyers models).
        pages_per_block: N_p for "desnoyers-greedy".
        rating_wa: write amplification already inside the rating (>= 1).

    Returns:
        Write rate in bytes/s.

    Raises:
        ValueError: any argument out of range.
    """
    y = _array(years, "years")
    _check_range(y, "years", 0.0, None, lo_open=True, what="lifetime in years")
    budget = _budget(capacity_bytes, cycles, tbw_bytes, dwpd, warranty_years, rating_wa)
    wa = np.asarray(
        write_amplification(
            fill,
            model,
            over_provisioning=over_provisioning,
            trim=trim,
            pages_per_block=pages_per_block,
        )
    )
    with np.errstate(over="ignore"):  # an astronomical lifetime gives 0 bytes/s, not a warning
        rate = budget / (y * SECONDS_PER_YEAR * wa)
    return _result(
        rate,
        *(np.asarray(v) for v in (years, capacity_bytes, fill, over_provisioning)),
        *(np.asarray(v) for v in (cycles, tbw_bytes, dwpd, warranty_years, pages_per_block)),
        np.asarray(rating_wa),
    )


# ------------------------------------------------------------------------------------ catalog


@dataclass(frozen=True)
class Drive:
    """A drive: a row of the catalog (`data/ssd_catalog.csv`) or one typed in by hand.

    Capacity, exactly one endurance rating and where the figures come from, checked when the
    Drive is built, e.g. `Drive(name="mine", capacity_bytes=2e12, tbw_bytes=1200e12)`.

    Attributes:
        name: catalog key, lower case (e.g. "intel-dc-p4610-1.6tb"), or any non-empty label.
        capacity_bytes: user capacity in bytes (vendor's decimal units).
        cycles: rated full-drive write cycles, or None.
        tbw_bytes: rated total bytes written, or None.
        dwpd: rated drive writes per day over warranty_years, or None.
        warranty_years: warranty period in years, or None; part of the rating only with dwpd.
        price_usd: price in US dollars where the source gives one, or None.
        source: where the figures come from (article or datasheet, with URL).
        model: the vendor's product name.
        kind: "enterprise" or "consumer".
        nand: the flash ("TLC", "QLC", "3D XPoint"), or "" where the source does not say.
        interface: the host interface as the source gives it, or "".
        device: the performance profile of `data/devices.csv` for this drive's interface class
            (what picking the drive sets `device` to), or "" for a drive typed in by hand.
        note: caveats about the figures.
    """

    name: str
    capacity_bytes: float
    cycles: float | None = None
    tbw_bytes: float | None = None
    dwpd: float | None = None
    warranty_years: float | None = None
    price_usd: float | None = None
    source: str = ""
    model: str = ""
    kind: str = ""
    nand: str = ""
    interface: str = ""
    device: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        """Check a drive typed in by hand as the catalog's rows are checked.

        Raises:
            ValueError: an empty name; capacity_bytes not a finite number > 0; not exactly one
                rating (cycles, tbw_bytes, or dwpd with warranty_years), or one that is not a
                finite number > 0 or is less than one full-drive write; price_usd < 0. The
                message starts with the drive's name and names the parameter and its range.
        """
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name={self.name!r} must be a non-empty string (the drive's label)")
        try:
            self._check()
        except ValueError as exc:
            raise ValueError(f"drive {self.name!r}: {exc}") from None

    def _check(self) -> None:
        units = {
            "capacity_bytes": "bytes",
            "cycles": "full-drive writes",
            "tbw_bytes": "bytes",
            "dwpd": "drive writes per day",
            "warranty_years": "years",
            "price_usd": "US dollars",
        }
        if self.capacity_bytes is None:
            raise ValueError("capacity_bytes is missing: give the user capacity in bytes (> 0)")
        for field_name, what in units.items():
            value = getattr(self, field_name)
            if value is None:
                continue
            # one finite number per field: a Drive is one drive, not an array of them
            if isinstance(value, bool) or np.ndim(value) != 0:
                raise ValueError(f"{field_name}={value!r} must be one number ({what})")
            if not np.isfinite(_array(value, field_name)):
                raise ValueError(
                    f"{field_name}={float(value)!r} is out of range: it must be finite ({what})"
                )
        # a warranty period may accompany any rating; it is part of the rating only with DWPD
        warranty = self.warranty_years if self.dwpd is not None else None
        endurance = endurance_bytes(
            self.capacity_bytes, self.cycles, self.tbw_bytes, self.dwpd, warranty
        )
        if self.warranty_years is not None:
            years = _array(self.warranty_years, "warranty_years")
            _check_range(years, "warranty_years", 0.0, None, lo_open=True, what="years")
        if self.price_usd is not None:
            price = _array(self.price_usd, "price_usd")
            _check_range(price, "price_usd", 0.0, None, what="US dollars")
        if endurance < self.capacity_bytes:
            # no drive is rated below one full write: the usual cause is a unit slip
            if self.cycles is not None:
                hint = f"cycles={self.cycles!r} must be >= 1"
            elif self.tbw_bytes is not None:
                hint = (
                    f"tbw_bytes={self.tbw_bytes!r} must be >= capacity_bytes="
                    f"{self.capacity_bytes!r}; give bytes (1,200 TBW is 1200 * 10**12)"
                )
            else:
                writes = endurance / self.capacity_bytes
                hint = f"dwpd x 365 x warranty_years = {writes:g} must be >= 1"
            raise ValueError(f"the rating is less than one full-drive write: {hint}")

    @property
    def rating(self) -> dict:
        """The endurance rating as keyword arguments for `endurance_bytes`, `lifetime_years`."""
        if self.cycles is not None:
            return {"cycles": self.cycles}
        if self.tbw_bytes is not None:
            return {"tbw_bytes": self.tbw_bytes}
        return {"dwpd": self.dwpd, "warranty_years": self.warranty_years}

    @property
    def endurance_bytes(self) -> float:
        """Rated endurance in bytes."""
        return endurance_bytes(self.capacity_bytes, **self.rating)

    def lifetime_years(self, write_bytes_per_s, **kwargs):
        """`lifetime_years` for this drive; kwargs as there (fill, model, ...)."""
        return lifetime_years(write_bytes_per_s, self.capacity_bytes, **self.rating, **kwargs)

    def sustainable_write_rate(self, years, **kwargs):
        """`sustainable_write_rate` for this drive, in bytes/s; kwargs as there."""
        return sustainable_write_rate(years, self.capacity_bytes, **self.rating, **kwargs)


_CATALOG_SCHEMA = {
    "name": pl.String,
    "model": pl.String,
    "kind": pl.String,
    "nand": pl.String,
    "interface": pl.String,
    "device": pl.String,
    "capacity_bytes": pl.Float64,
    "cycles": pl.Float64,
    "tbw_bytes": pl.Float64,
    "dwpd": pl.Float64,
    "warranty_years": pl.Float64,
    "price_usd": pl.Float64,
    "source": pl.String,
    "note": pl.String,
}


@cache
def _catalog() -> pl.DataFrame:
    if not CATALOG_PATH.is_file():
        raise FileNotFoundError(
            f"SSD catalog {CATALOG_PATH} is missing; install flushsim from a checkout with "
            "`pip install -e .`"
        )
    with CATALOG_PATH.open(newline="") as fh:
        header = next(csv.reader(fh))
    if header != list(_CATALOG_SCHEMA):
        raise ValueError(f"{CATALOG_PATH}: columns {header} differ from {list(_CATALOG_SCHEMA)}")
    df = pl.read_csv(CATALOG_PATH, schema=_CATALOG_SCHEMA).with_columns(
        pl.col("nand", "interface", "device", "note").fill_null("")
    )
    from .devices import names as profiles

    for i, row in enumerate(df.iter_rows(named=True), start=2):  # line 1 is the header
        Drive(**row)  # Drive.__post_init__ checks capacity and the one rating of each row
        where = f"{CATALOG_PATH.name} line {i} ({row['name']!r})"
        if row["device"] not in profiles():
            raise ValueError(
                f"{where}: device={row['device']!r} must be a profile of data/devices.csv "
                f"({', '.join(profiles())})"
            )
        if row["nand"] not in NAND_TYPES:
            raise ValueError(f"{where}: nand={row['nand']!r} must be one of {NAND_TYPES}")
    return df


def load_catalog() -> pl.DataFrame:
    """The SSD catalog (`data/ssd_catalog.csv`), one row per drive, plus `endurance_bytes`.

    Returns:
        A polars DataFrame: name, model, kind, nand, interface, device, capacity_bytes, cycles,
        tbw_bytes, dwpd, warranty_years, price_usd, source, note, endurance_bytes (bytes).
    """
    df = _catalog()
    return df.with_columns(
        pl.Series("endurance_bytes", [d.endurance_bytes for d in catalog_drives()])
    )


def catalog_drives() -> list[Drive]:
    """Every drive of the catalog, in file order."""
    return [Drive(**row) for row in _catalog().iter_rows(named=True)]


# a drive typed in by hand: its capacity and total-bytes-written rating in the vendor's decimal
# units, as a datasheet prints them ("960GB:600TBW", "3.84TB:7PBW")
TYPED_DRIVE = re.compile(r"(\d+(?:\.\d+)?)(GB|TB):(\d+(?:\.\d+)?)(TBW|PBW)", re.IGNORECASE)
TYPED_HELP = "or CAPACITY:RATING from the drive's datasheet, e.g. 960GB:600TBW or 3.84TB:7PBW"
_DECIMAL = {"GB": 1e9, "TB": 1e12, "TBW": 1e12, "PBW": 1e15}


def drive(name: str) -> Drive:
    """The catalog drive called `name` (case-insensitive), or one typed in as CAPACITY:RATING.

    Args:
        name: catalog key, e.g. "intel-dc-p4610-1.6tb", or "960GB:600TBW" (decimal GB/TB,
            rated TBW/PBW, as the drive's datasheet gives them): a drive with no performance
            profile of its own.

    Returns:
        The Drive.

    Raises:
        ValueError: no such drive; the message suggests the closest names.
    """
    drives = {d.name: d for d in catalog_drives()}
    key = str(name).strip().lower()
    if key in drives:
        return drives[key]
    if typed := TYPED_DRIVE.fullmatch(key.replace(" ", "")):
        return _typed_drive(*typed.groups())
    close = [n for n in drives if key and key in n][:3]
    close = close or difflib.get_close_matches(key, list(drives), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(f"unknown drive {name!r}{hint} (drives: {', '.join(drives)}; {TYPED_HELP})")


def _typed_drive(capacity: str, unit: str, rating: str, rating_unit: str) -> Drive:
    unit, rating_unit = unit.upper(), rating_unit.upper()
    label = f"{capacity}{unit}:{rating}{rating_unit}"
    return Drive(
        name=label,
        capacity_bytes=float(capacity) * _DECIMAL[unit],
        tbw_bytes=float(rating) * _DECIMAL[rating_unit],
        source="typed in by hand",
        model=f"a {capacity} {unit} drive rated {rating} {rating_unit}",
    )

"""SSD wear model (flushsim.ssd): docs/model.md's test points, seed 004's arithmetic, properties.

Units in the seed 004 tests: the article computes "12.25 PB * 1024^3 MB/PB / (5 y) ~ 83 MB/sec"
and derives 7,840 cycles as 12.25 PB x 1024 / 1.6 TB, i.e. it counts every unit in powers of
1024 (PiB, TiB, MiB). Reproduced in those units the arithmetic is exact; with the drive's real
decimal capacity (1.6 x 10^12 bytes) the same cycles give 12.544 PB, 2.4 % more. Both are
checked, each with its own stated tolerance.
"""

import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flushsim import ssd
from flushsim.ssd import PB, TB, KiB, MiB, PiB, TiB

# any numpy RuntimeWarning (divide by zero, overflow, invalid) is a failure here
pytestmark = pytest.mark.filterwarnings("error")

MINUS_INV_E = -math.exp(-1.0)


# ------------------------------------------------------------------ docs/model.md test points


def test_rho_0_3_gives_2_35_within_one_percent():
    # rho = (T - U) / U = 0.3: a full drive with 30 % over-provisioning, S_f = 0.3 / 1.3
    sf = ssd.effective_spare_factor(1.0, over_provisioning=0.3)
    assert sf == pytest.approx(0.3 / 1.3, rel=1e-15)
    assert ssd.wa_desnoyers_lru(sf) == pytest.approx(2.35, rel=0.01)  # 2.364 (Xiang-Kurkoski 2.36)
    assert ssd.wa_desnoyers_greedy(sf, pages_per_block=256) == pytest.approx(2.35, rel=0.01)
    assert ssd.wa_desnoyers_lru(sf) == pytest.approx(2.364, abs=0.0005)
    assert ssd.wa_desnoyers_greedy(sf, 256) == pytest.approx(2.346, abs=0.0005)


def test_spare_factor_0_07_matches_desnoyers_validation_printout():
    # the port's validation(): "Sf 0.07" lru(alpha(0.07)) and greedy(alpha(0.07), 64), printed
    # to two decimals in docs/model.md, so half a unit in the last place
    assert ssd.wa_desnoyers_lru(0.07) == pytest.approx(7.32, abs=0.005)
    assert ssd.wa_desnoyers_greedy(0.07, pages_per_block=64) == pytest.approx(6.60, abs=0.005)
    assert ssd.wa_desnoyers_greedy(0.07) == ssd.wa_desnoyers_greedy(0.07, 64)  # default N_p


# docs/model.md, the SSD model's table "computed for this project":
# fill, OP, LRU, greedy N_p 256, LRU JESD219
TABLE = [
    (0.25, 0.07, 1.01, 1.01, 1.13),
    (0.50, 0.07, 1.20, 1.20, 1.47),
    (0.75, 0.07, 1.88, 1.87, 2.34),
    (0.90, 0.07, 3.33, 3.30, 3.94),
    (1.00, 0.07, 7.82, 7.60, 8.53),
    (0.25, 0.28, 1.01, 1.00, 1.09),
    (0.50, 0.28, 1.11, 1.11, 1.33),
    (0.75, 0.28, 1.44, 1.43, 1.80),
    (0.90, 0.28, 1.89, 1.88, 2.36),
    (1.00, 0.28, 2.48, 2.46, 3.03),
]


@pytest.mark.parametrize(("fill", "op", "lru", "greedy", "jesd"), TABLE)
def test_ssd_models_table(fill, op, lru, greedy, jesd):
    # two decimals in the doc: allow rounding of the third
    sf = ssd.effective_spare_factor(fill, op)
    assert ssd.wa_desnoyers_lru(sf) == pytest.approx(lru, abs=0.006)
    assert ssd.wa_desnoyers_greedy(sf, 256) == pytest.approx(greedy, abs=0.006)
    assert ssd.wa_desnoyers_hot_cold(sf) == pytest.approx(jesd, abs=0.006)
    assert ssd.write_amplification(fill, "desnoyers-lru", over_provisioning=op) == pytest.approx(
        lru, abs=0.006
    )


# docs/model.md's worked example: 12.25 PB budget, 70 MB/s host writes; years
WORKED = [
    (0.0, 5.55, 5.55, 5.55),
    (0.5, 2.77, 4.63, 5.01),
    (0.75, 1.39, 2.97, 3.87),
    (0.9, 0.55, 1.68, 2.95),
]


@pytest.mark.parametrize(("fill", "seed", "op7", "op28"), WORKED)
def test_ssd_models_worked_example(fill, seed, op7, op28):
    def years(**kw):
        return ssd.lifetime_years(70 * 10**6, 1.6 * TB, tbw_bytes=12.25 * PB, fill=fill, **kw)

    assert years() == pytest.approx(seed, abs=0.006)
    for op, want in ((0.07, op7), (0.28, op28)):
        got = years(model="desnoyers-greedy", over_provisioning=op, pages_per_block=256)
        assert got == pytest.approx(want, abs=0.006)


def test_worked_example_full_drive_keeps_a_finite_life_under_the_ftl_model():
    kw = dict(tbw_bytes=12.25 * PB, fill=1.0, model="desnoyers-greedy", pages_per_block=256)
    assert ssd.lifetime_years(70e6, 1.6e12, over_provisioning=0.07, **kw) == pytest.approx(
        0.73, abs=0.006
    )
    assert ssd.lifetime_years(70e6, 1.6e12, over_provisioning=0.28, **kw) == pytest.approx(
        2.25, abs=0.006
    )


def test_tbw_dwpd_example():
    # docs/model.md (JESD219 ratings): 3.84 TB x 1 DWPD x 5 y = 7,008 TBW
    assert ssd.endurance_bytes(3.84 * TB, dwpd=1, warranty_years=5) == pytest.approx(7008 * TB)
    # Lenovo P4500 guide: 1.0 TB, 1.38 PB TBW, "0.75 DWPD" over 5 years (rounded DWPD: 1 %)
    by_dwpd = ssd.endurance_bytes(1 * TB, dwpd=0.75, warranty_years=5)
    assert by_dwpd == pytest.approx(ssd.endurance_bytes(1 * TB, tbw_bytes=1.38 * PB), rel=0.01)


# ------------------------------------------------------------------------ seed 004 arithmetic


def test_seed004_p4610_endurance():
    # in the article's units (1.6 TiB x 7,840 = 12.25 PiB): exact
    assert ssd.endurance_bytes(1.6 * TiB, cycles=7840) == pytest.approx(12.25 * PiB, rel=1e-12)
    # with the real 1.6 x 10^12 bytes: 12.544 PB, "about 12.25 PB" only within 2.5 %
    real = ssd.endurance_bytes(1.6 * TB, cycles=7840)
    assert real == pytest.approx(12.544 * PB, rel=1e-12)
    assert real == pytest.approx(12.25 * PB, rel=0.025)


def test_seed004_83_mb_s_for_five_years_empty():
    # 12.25 PB * 1024^3 MB/PB / (5 y * 365 d/y * 24 h/d * 3600 s/h) ~ 83 MB/s: 83.42 MiB/s
    rate = ssd.sustainable_write_rate(5, 1.6 * TiB, cycles=7840)
    assert rate / MiB == pytest.approx(12.25 * 1024**3 / (5 * 365 * 24 * 3600), rel=1e-12)
    assert rate / MiB == pytest.approx(83, rel=0.01)


def test_seed004_21_mb_s_at_75_percent_full():
    rate = ssd.sustainable_write_rate(5, 1.6 * TiB, cycles=7840, fill=0.75)
    assert rate / MiB == pytest.approx(21, rel=0.01)  # 20.85
    empty = ssd.sustainable_write_rate(5, 1.6 * TiB, cycles=7840)
    assert rate == pytest.approx(empty / 4, rel=1e-12)
    assert ssd.wa_seed004(0.75) == pytest.approx(4.0, rel=1e-15)


def test_seed004_2000_pages_of_36_kb_wear_a_75_percent_full_drive_in_under_1_5_years():
    rate = 2000 * 36 * KiB  # 36 KB written per flushed 16 KB page
    assert rate / MiB == pytest.approx(70, rel=0.01)  # "70 MB/s": 70.3 MiB/s
    # the article's units: 1.48 y
    article = ssd.lifetime_years(rate, 1.6 * TiB, cycles=7840, fill=0.75)
    assert 1.45 < article < 1.5
    # the catalog drive (decimal capacity): 1.35 y; and "more than 75 % full" is shorter still
    p4610 = ssd.drive("intel-dc-p4610-1.6tb")
    assert 1.3 < p4610.lifetime_years(rate, fill=0.75) < 1.5
    fills = np.array([0.76, 0.8, 0.9, 0.99])
    assert np.all(p4610.lifetime_years(rate, fill=fills) < 1.5)
    # ... while the empty drive lasts over 5 years at that rate
    assert p4610.lifetime_years(rate) > 5


def test_seed004_catalog_rows_hold_the_article_figures():
    rows = {
        "intel-optane-dc-p4800x-1.5tb": (1.5 * TB, 112_000, 4975),
        "intel-dc-p4610-1.6tb": (1.6 * TB, 7840, 467),
        "intel-545s-512gb": (512 * 10**9, 576, 120),
    }
    for name, (cap, cycles, price) in rows.items():
        d = ssd.drive(name)
        assert (d.capacity_bytes, d.cycles, d.price_usd) == (cap, cycles, price)
        assert "seed 004" in d.source


# --------------------------------------------------------------------------------- Lambert W


@settings(max_examples=500)
@given(
    st.one_of(
        st.floats(min_value=MINUS_INV_E, max_value=1e300),
        st.floats(min_value=MINUS_INV_E, max_value=MINUS_INV_E + 1e-6),
        st.floats(min_value=-1e-6, max_value=1e-6),
    )
)
def test_lambert_w_inverts_w_exp_w(x):
    w = ssd.lambert_w0(x)
    assert w >= -1.0
    assert w * math.exp(w) == pytest.approx(x, rel=1e-12, abs=1e-300)


def test_lambert_w_known_values():
    assert ssd.lambert_w0(0.0) == 0.0
    assert ssd.lambert_w0(MINUS_INV_E) == -1.0
    assert ssd.lambert_w0(math.e) == pytest.approx(1.0, rel=1e-15)
    assert ssd.lambert_w0(1.0) == pytest.approx(0.5671432904097838, rel=1e-15)  # omega constant
    assert ssd.lambert_w0(math.inf) == math.inf
    assert isinstance(ssd.lambert_w0(1), float)


def test_lambert_w_is_increasing_over_the_domain():
    x = np.concatenate(
        [
            MINUS_INV_E + np.logspace(-17, -0.5, 400),
            np.linspace(-0.36, 3.0, 400),
            np.logspace(0.5, 300, 400),
        ]
    )
    x.sort()
    assert np.all(np.diff(ssd.lambert_w0(x)) >= 0)


@pytest.mark.parametrize("x", [-0.5, MINUS_INV_E * (1 + 1e-12), -math.inf])
def test_lambert_w_rejects_below_minus_one_over_e(x):
    with pytest.raises(ValueError, match=r"x=.* is out of range: .* x >= -1/e"):
        ssd.lambert_w0(x)
    with pytest.raises(ValueError, match=r"x\[1\]="):
        ssd.lambert_w0([0.0, x])
    with pytest.raises(ValueError, match="NaN"):
        ssd.lambert_w0(math.nan)


# ----------------------------------------------------------------------------------- properties


@given(
    st.floats(min_value=0.0, max_value=0.999),
    st.floats(min_value=0.0, max_value=0.999),
    st.floats(min_value=0.001, max_value=1.0),
)
def test_write_amplification_grows_with_fill(a, b, op):
    lo, hi = sorted((a, b))
    for model in ssd.MODELS:
        kw = {} if model == "seed004" else {"over_provisioning": op}
        w_lo = ssd.write_amplification(lo, model, **kw)
        w_hi = ssd.write_amplification(hi, model, **kw)
        assert 1.0 <= w_lo <= w_hi * (1 + 1e-12), model
    # and the Desnoyers models reach fill = 1 when there is over-provisioning
    sf = ssd.effective_spare_factor(np.array([lo, hi, 1.0]), op)
    assert np.all(np.diff(ssd.wa_desnoyers_lru(sf)) >= -1e-12)
    assert np.all(np.diff(ssd.wa_desnoyers_hot_cold(sf)) >= -1e-12)


@given(st.floats(min_value=1e-4, max_value=1.0), st.integers(min_value=1, max_value=1024))
def test_ftl_models_are_at_least_one_and_greedy_beats_lru(sf, npb):
    lru = ssd.wa_desnoyers_lru(sf)
    greedy = ssd.wa_desnoyers_greedy(sf, npb)
    assert lru >= 1.0 and greedy >= 1.0
    assert greedy <= lru * (1 + 1e-12)
    assert ssd.wa_desnoyers_hot_cold(sf, cleaning="greedy", pages_per_block=npb) >= 1.0


@given(
    st.floats(min_value=0.005, max_value=1.0),
    st.lists(st.floats(min_value=0.05, max_value=1.0), min_size=1, max_size=4),
)
def test_hot_cold_with_uniform_traffic_is_the_uniform_model(sf, weights):
    # r_i = f_i: every class is written in proportion to its size, i.e. uniform traffic
    f = np.array(weights) / sum(weights)
    got = ssd.wa_desnoyers_hot_cold(sf, f, f)
    assert got == pytest.approx(ssd.wa_desnoyers_lru(sf), rel=1e-9)
    got = ssd.wa_desnoyers_hot_cold(sf, f, f, cleaning="greedy", pages_per_block=64)
    assert got == pytest.approx(ssd.wa_desnoyers_greedy(sf, 64), rel=1e-9)


def test_hot_cold_port_validation_values():
    # Desnoyers' hot/cold is worse than uniform under LRU (LRU cannot exploit skew)
    assert ssd.wa_desnoyers_hot_cold(0.07, (0.8, 0.2), (0.2, 0.8)) > ssd.wa_desnoyers_lru(0.07)
    # cold data that is never rewritten (r = 0) is a finite, valid class
    assert ssd.wa_desnoyers_hot_cold(0.1, (1.0, 0.0), (0.5, 0.5)) >= 1.0


@given(
    st.one_of(st.just(0.0), st.floats(min_value=1e-3, max_value=1e10)),
    st.floats(min_value=0.0, max_value=0.99),
    st.sampled_from(ssd.MODELS),
)
def test_lifetime_and_sustainable_rate_are_inverse(rate, fill, model):
    kw = dict(cycles=3000, fill=fill, model=model)
    years = ssd.lifetime_years(rate, 1 * TB, **kw)
    if rate == 0:
        assert years == math.inf
        return
    assert ssd.sustainable_write_rate(years, 1 * TB, **kw) == pytest.approx(rate, rel=1e-12)


def test_array_input_equals_elementwise_scalar_input():
    fills = np.array([0.0, 0.1, 0.5, 0.75, 0.9, 0.999])
    sfs = np.array([1e-3, 0.07, 0.3 / 1.3, 0.5, 1.0])
    xs = np.array([MINUS_INV_E, -0.3, -1e-3, 0.0, 1.0, 10.0, 1e100])
    rates = np.array([0.0, 1e6, 7e7])

    def same(fn, arr, **kw):
        got = fn(arr, **kw)
        assert isinstance(got, np.ndarray) and got.shape == arr.shape
        want = np.array([fn(float(v), **kw) for v in arr])
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
        assert all(isinstance(fn(float(v), **kw), float) for v in arr)

    same(ssd.lambert_w0, xs)
    same(ssd.wa_seed004, fills)
    same(ssd.wa_desnoyers_lru, sfs)
    same(ssd.wa_desnoyers_greedy, sfs, pages_per_block=32)
    same(ssd.wa_desnoyers_hot_cold, sfs)
    same(ssd.wa_desnoyers_hot_cold, sfs, cleaning="greedy")
    same(ssd.effective_spare_factor, fills, over_provisioning=0.07)
    for model in ssd.MODELS:
        same(ssd.write_amplification, fills, model=model)
        same(
            lambda f, m=model: ssd.lifetime_years(7e7, 1 * TB, cycles=3000, fill=f, model=m), fills
        )
        same(
            lambda f, m=model: ssd.sustainable_write_rate(5, TB, tbw_bytes=PB, fill=f, model=m),
            fills,
        )
    same(lambda r: ssd.lifetime_years(r, 1 * TB, dwpd=1, warranty_years=5), rates)
    same(lambda c: ssd.endurance_bytes(c, cycles=3000), np.array([1e9, 1e12]))


def test_vanishing_rates_and_huge_lifetimes_do_not_warn():
    assert ssd.lifetime_years(1e-310, 1 * TB, cycles=3000) == math.inf
    assert ssd.sustainable_write_rate(1e305, 1 * TB, cycles=3000) == 0.0


def test_broadcasting_over_two_arguments():
    got = ssd.lifetime_years(
        np.array([1e6, 2e6]), 1 * TB, cycles=100, fill=np.array([[0.1], [0.5]])
    )
    assert got.shape == (2, 2)
    assert got[1, 0] == pytest.approx(ssd.lifetime_years(1e6, 1 * TB, cycles=100, fill=0.5))
    assert ssd.wa_desnoyers_greedy(0.1, np.array([16, 64, 256])).shape == (3,)


# ------------------------------------------------------------------------------------- errors


def _raises_value_error_without_warnings(match, fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match):
            fn(*args, **kwargs)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ssd.wa_seed004(1.0),
        lambda: ssd.write_amplification(1.0),
        lambda: ssd.lifetime_years(7e7, 1.6 * TB, cycles=7840, fill=1.0),
        lambda: ssd.sustainable_write_rate(5, 1.6 * TB, cycles=7840, fill=1.0),
        lambda: ssd.drive("intel-dc-p4610-1.6tb").lifetime_years(7e7, fill=1.0),
    ],
)
def test_full_drive_under_seed004_is_a_clear_error(call):
    _raises_value_error_without_warnings(
        r"fill=1\.0 is out of range: it must be in \[0, 1\) .*no free space to absorb writes", call
    )


def test_full_drive_without_over_provisioning_is_a_clear_error():
    for model in ("desnoyers-lru", "desnoyers-greedy"):
        _raises_value_error_without_warnings(
            r"fill=1\.0 with over_provisioning=0\.0: the drive has no free space to absorb writes",
            ssd.write_amplification,
            1.0,
            model,
            over_provisioning=0.0,
        )
    _raises_value_error_without_warnings(
        "trim=False .* no free space", ssd.effective_spare_factor, 0.3, 0.0, trim=False
    )
    _raises_value_error_without_warnings(
        r"spare_factor=0\.0 is out of range: it must be in \(0, 1\]", ssd.wa_desnoyers_lru, 0.0
    )
    _raises_value_error_without_warnings(r"fill\[2\]=1\.0", ssd.wa_seed004, [0.1, 0.2, 1.0])


@pytest.mark.parametrize(
    ("match", "call"),
    [
        (
            r"write_bytes_per_s=-1\.0 is out of range: it must be >= 0 \(bytes/s\)",
            lambda: ssd.lifetime_years(-1.0, TB, cycles=10),
        ),
        (r"fill=-0\.1 is out of range: it must be in \[0, 1\)", lambda: ssd.wa_seed004(-0.1)),
        (
            r"fill=1\.5 is out of range: it must be in \[0, 1\]",
            lambda: ssd.effective_spare_factor(1.5),
        ),
        (
            r"over_provisioning=-0\.1 is out of range: it must be >= 0",
            lambda: ssd.effective_spare_factor(0.5, -0.1),
        ),
        (r"spare_factor=1\.2 is out of range", lambda: ssd.wa_desnoyers_greedy(1.2)),
        (
            r"pages_per_block=0\.0 is out of range: it must be >= 1",
            lambda: ssd.wa_desnoyers_greedy(0.1, 0),
        ),
        (
            r"capacity_bytes=0\.0 is out of range: it must be > 0",
            lambda: ssd.endurance_bytes(0, cycles=10),
        ),
        (r"cycles=-5\.0 is out of range", lambda: ssd.endurance_bytes(TB, cycles=-5)),
        (
            r"years=0\.0 is out of range: it must be > 0",
            lambda: ssd.sustainable_write_rate(0, TB, cycles=10),
        ),
        (
            r"rating_wa=0\.5 is out of range: it must be >= 1",
            lambda: ssd.lifetime_years(1e6, TB, cycles=10, rating_wa=0.5),
        ),
        ("exactly one endurance rating.*got none", lambda: ssd.endurance_bytes(TB)),
        (
            "exactly one endurance rating.*got cycles, tbw_bytes",
            lambda: ssd.endurance_bytes(TB, cycles=1, tbw_bytes=PB),
        ),
        ("warranty_years goes with dwpd", lambda: ssd.endurance_bytes(TB, dwpd=1)),
        (
            "warranty_years goes with dwpd",
            lambda: ssd.endurance_bytes(TB, tbw_bytes=PB, warranty_years=5),
        ),
        (
            "model='desnoyers' is not known; did you mean 'desnoyers-lru'",
            lambda: ssd.write_amplification(0.5, "desnoyers"),
        ),
        ("cleaning='fifo' is not known", lambda: ssd.wa_desnoyers_hot_cold(0.1, cleaning="fifo")),
        (
            "write_fractions sums to 0.9",
            lambda: ssd.wa_desnoyers_hot_cold(0.1, (0.5, 0.4), (0.5, 0.5)),
        ),
        ("same length", lambda: ssd.wa_desnoyers_hot_cold(0.1, (1.0,), (0.5, 0.5))),
        (
            r"data_fractions\[0\]=0\.0 is out of range",
            lambda: ssd.wa_desnoyers_hot_cold(0.1, (0.5, 0.5), (0.0, 1.0)),
        ),
        ("fill='lots' is not a number", lambda: ssd.wa_seed004("lots")),
    ],
)
def test_errors_name_the_parameter_and_its_range(match, call):
    _raises_value_error_without_warnings(match, call)


# ------------------------------------------------------------------------------------ catalog


def test_catalog_loads_and_every_row_has_a_source_and_one_rating():
    df = ssd.load_catalog()
    assert isinstance(df, pl.DataFrame)
    assert df.height >= 6
    assert df["name"].n_unique() == df.height
    for row in df.iter_rows(named=True):
        assert row["source"] and len(row["source"].strip()) > 10, row["name"]
        forms = [row["cycles"] is not None, row["tbw_bytes"] is not None, row["dwpd"] is not None]
        assert sum(forms) == 1, row["name"]
        assert row["endurance_bytes"] > row["capacity_bytes"] > 0
        assert row["kind"] in ("enterprise", "consumer")
    # the current drives besides the article's three carry a TBW or DWPD rating
    rated = df.filter(pl.col("tbw_bytes").is_not_null() | pl.col("dwpd").is_not_null())
    assert rated.height >= 3


def test_catalog_drives_and_lookup():
    drives = ssd.catalog_drives()
    assert [d.name for d in drives] == ssd.load_catalog()["name"].to_list()
    d = ssd.drive("Intel-DC-P4610-1.6TB")
    assert d.endurance_bytes == pytest.approx(12.544 * PB)
    with pytest.raises(AttributeError):
        d.cycles = 1  # frozen
    with pytest.raises(ValueError, match="unknown drive 'p4610'; did you mean 'intel-dc-p4610"):
        ssd.drive("p4610")
    with pytest.raises(ValueError, match="did you mean 'samsung-990-pro-2tb'"):
        ssd.drive("samsung-990-pro-2t")


def test_drive_rating_forms():
    assert ssd.drive("samsung-990-pro-2tb").endurance_bytes == 1200 * TB
    assert ssd.drive("micron-7450-pro-960gb").endurance_bytes == pytest.approx(
        0.96 * TB * 1 * 365 * 5
    )
    d = ssd.Drive("x", capacity_bytes=TB, dwpd=3, warranty_years=5, source="test")
    assert d.sustainable_write_rate(5) == pytest.approx(3 * TB / 86400)


# ------------------------------------------------------------------------- a drive typed in


def test_a_drive_typed_in_by_hand_works_like_a_catalog_drive():
    # docs/model.md's example drive (JESD219 ratings), typed in three ways:
    # 3.84 TB x 1 DWPD x 5 y = 7,008 TBW
    by_tbw = ssd.Drive(name="my drive", capacity_bytes=3.84 * TB, tbw_bytes=7008 * TB)
    by_dwpd = ssd.Drive(name="my drive", capacity_bytes=3.84 * TB, dwpd=1, warranty_years=5)
    by_cycles = ssd.Drive(name="my drive", capacity_bytes=3.84 * TB, cycles=1825)
    for d in (by_tbw, by_dwpd, by_cycles):
        assert d.endurance_bytes == pytest.approx(7008 * TB, rel=1e-12)
        years = d.lifetime_years(70e6, fill=0.5, model="desnoyers-greedy")
        want = ssd.lifetime_years(
            70e6, 3.84 * TB, tbw_bytes=7008 * TB, fill=0.5, model="desnoyers-greedy"
        )
        assert years == pytest.approx(want, rel=1e-12)
    # a warranty period may sit beside a TBW rating (as on datasheets) without being used
    with_warranty = ssd.Drive("w", capacity_bytes=3.84 * TB, tbw_bytes=7008 * TB, warranty_years=5)
    assert with_warranty.endurance_bytes == by_tbw.endurance_bytes


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"capacity_bytes": 0, "cycles": 10}, r"capacity_bytes=0\.0 is out of range: .* > 0"),
        (
            {"capacity_bytes": -TB, "cycles": 10},
            r"capacity_bytes=-1000000000000\.0 is out of range",
        ),
        ({"capacity_bytes": math.inf, "cycles": 10}, r"capacity_bytes=inf .* must be finite"),
        ({"capacity_bytes": math.nan, "cycles": 10}, "capacity_bytes is NaN"),
        ({"capacity_bytes": "2TB", "cycles": 10}, "capacity_bytes='2TB' is not a number"),
        ({"capacity_bytes": None, "cycles": 10}, "capacity_bytes is missing"),
        ({"capacity_bytes": [TB, 2 * TB], "cycles": 10}, "capacity_bytes=.* must be one number"),
        ({"capacity_bytes": TB}, r"exactly one endurance rating: .*\(got none\)"),
        (
            {"capacity_bytes": TB, "tbw_bytes": PB, "dwpd": 1, "warranty_years": 5},
            r"exactly one endurance rating.*\(got tbw_bytes, dwpd\)",
        ),
        ({"capacity_bytes": TB, "dwpd": 1}, "warranty_years goes with dwpd"),
        ({"capacity_bytes": TB, "cycles": -5}, r"cycles=-5\.0 is out of range: it must be > 0"),
        ({"capacity_bytes": TB, "cycles": 0.5}, r"less than one full-drive write: cycles=0\.5"),
        # the likeliest slip: TBW typed in terabytes instead of bytes
        ({"capacity_bytes": TB, "tbw_bytes": 600}, r"tbw_bytes=600 must be >= capacity_bytes"),
        (
            {"capacity_bytes": TB, "dwpd": 0.0001, "warranty_years": 5},
            r"dwpd x 365 x warranty_years = 0\.1825 must be >= 1",
        ),
        (
            {"capacity_bytes": TB, "cycles": 10, "warranty_years": 0},
            r"warranty_years=0\.0 is out of range: it must be > 0",
        ),
        (
            {"capacity_bytes": TB, "cycles": 10, "price_usd": -1},
            r"price_usd=-1\.0 is out of range: it must be >= 0",
        ),
    ],
)
def test_a_drive_typed_in_with_bad_figures_is_refused_when_built(kwargs, match):
    # the message starts with the drive's name, then names the parameter and its range
    _raises_value_error_without_warnings(f"^drive 'mine': .*{match}", ssd.Drive, "mine", **kwargs)


@pytest.mark.parametrize("name", ["", "   ", None])
def test_a_drive_needs_a_name(name):
    _raises_value_error_without_warnings(
        "name=.* must be a non-empty string", ssd.Drive, name, capacity_bytes=TB, cycles=10
    )


def test_a_typed_in_drive_from_empty_to_full():
    d = ssd.Drive(name="mine", capacity_bytes=2 * TB, tbw_bytes=1200 * TB)
    fills = np.array([0.0, 0.5, 0.9, 0.999])
    assert np.all(np.isfinite(d.lifetime_years(70e6, fill=fills)))
    # 100 % full: seed 004's model has no free space to absorb writes, and says so
    _raises_value_error_without_warnings(
        r"^fill=1\.0 is out of range: it must be in \[0, 1\) .* no free space to absorb writes",
        d.lifetime_years,
        70e6,
        fill=1.0,
    )
    # the FTL models keep factory over-provisioning as spare flash: a finite, shorter life
    for model in ("desnoyers-lru", "desnoyers-greedy"):
        full = d.lifetime_years(70e6, fill=1.0, model=model, over_provisioning=0.07)
        assert 0 < full < d.lifetime_years(70e6, fill=0.9, model=model, over_provisioning=0.07)
        # ... and with none, there is no spare flash left either
        _raises_value_error_without_warnings(
            r"fill=1\.0 with over_provisioning=0\.0: the drive has no free space",
            d.lifetime_years,
            70e6,
            fill=1.0,
            model=model,
            over_provisioning=0.0,
        )


@pytest.mark.parametrize(
    ("fill", "tail"),
    [
        (75, r"; fill is a fraction: 75 % full is fill=0\.75$"),
        (100, r"; fill is a fraction: 100 % full is fill=1$"),
        (150, "$"),
        (-0.1, "$"),
    ],
)
def test_fill_out_of_range_names_the_range_and_hints_at_percentages(fill, tail):
    d = ssd.Drive(name="mine", capacity_bytes=2 * TB, tbw_bytes=1200 * TB)
    what = r" \(fraction of the drive holding data\)"
    head = rf"^fill={re.escape(repr(float(fill)))} is out of range: it must be in "
    # seed 004's model takes [0, 1), the FTL models [0, 1]
    _raises_value_error_without_warnings(
        head + r"\[0, 1\)" + what + tail, d.lifetime_years, 70e6, fill=fill
    )
    _raises_value_error_without_warnings(
        head + r"\[0, 1\]" + what + tail,
        d.lifetime_years,
        70e6,
        fill=fill,
        model="desnoyers-greedy",
    )

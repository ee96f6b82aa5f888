"""The SSD lifetime headline, the duty cycle, the drive catalog and the one drive picker."""

from __future__ import annotations

import argparse
import math
import re

import numpy as np
import pytest

import flushsim as fs
from flushsim import cli, devices, ssd
from flushsim.lifetime import (
    daily_rate,
    drive_device,
    duration_text,
    lifetime_headline,
    run_lifetime,
)
from flushsim.report import write_html
from flushsim.sweep import WearSetting, summarize
from flushsim.viz import figures

TB = 10**12
SMALL = {"table_rows": 200_000, "threads": 4}


@pytest.fixture(scope="module")
def small_run():
    return fs.simulate(fs.presets.get("default").replace(seconds=12, **SMALL))


# ------------------------------------------------------------------------- the headline's words


@pytest.mark.parametrize(
    ("years", "text"),
    [
        (0.05, "about 18 days"),  # the "0.05 years"
        (1 / 365, "about 1 day"),
        (0.4, "about 5 months"),
        (1 / 12, "about 1 month"),
        (1.0, "about 1 year"),
        (2.5, "about 2.5 years"),
        (9.97, "about 10 years"),
        (25.4, "about 25 years"),
        (1234.0, "about 1,234 years"),
        (0.001, "about 9 hours"),
        (1e-6, "under an hour"),
        (math.inf, "no wear (nothing written)"),
    ],
)
def test_duration_in_the_unit_a_reader_pictures(years, text):
    assert duration_text(years) == text


def test_headline_says_fill_load_and_hours():
    assert (
        lifetime_headline(0.05, 0.5, 24)
        == "about 18 days at 50 % full at this load, 24 hours a day"
    )
    assert lifetime_headline(3.0, 0.8, 1).endswith("at 80 % full at this load, 1 hour a day")
    with pytest.raises(ValueError, match="years=-1.0 is out of range"):
        duration_text(-1.0)


def test_models_are_named_for_what_they_assume():
    names = ssd.MODEL_NAMES
    assert set(names) == set(ssd.MODELS)
    assert "no FTL" in names["seed004"] and "0 % over-provisioning" in names["seed004"]
    for model in ("desnoyers-lru", "desnoyers-greedy"):
        assert "7 % over-provisioning" in names[model] and "TRIM" in names[model]
    assert ssd.DEFAULT_OVER_PROVISIONING == 0.07
    assert not any("seed" in n for n in names.values())


# ------------------------------------------------------------------------------- the duty cycle


def test_half_the_hours_twice_the_years():
    d = ssd.drive("samsung-990-pro-1tb")
    full = d.lifetime_years(daily_rate(50e6, 24), fill=0.5, model="desnoyers-greedy")
    half = d.lifetime_years(daily_rate(50e6, 12), fill=0.5, model="desnoyers-greedy")
    assert half == pytest.approx(2 * full, rel=1e-12)
    assert daily_rate(50e6, 24) == 50e6 and daily_rate(50e6, 6) == 12.5e6
    for bad in (0, 25, -1):
        with pytest.raises(ValueError, match=r"hours_per_day=.* must be in \(0, 24\]"):
            daily_rate(50e6, bad)


def test_duty_cycle_knob_changes_the_lifetime_not_the_run(small_run):
    p = fs.params.get("ssd_hours_per_day")
    assert (p.default, p.min, p.max, p.group, p.kernel) == (24, 1, 24, "storage", False)
    with pytest.raises(ValueError, match="ssd_hours_per_day=25 is out of range"):
        small_run.scenario.replace(ssd_hours_per_day=25)
    half = fs.simulate(small_run.scenario.replace(ssd_hours_per_day=12))
    assert half.series.equals(small_run.series)  # the kernel does not read it
    d = ssd.drive("crucial-t500-1tb")
    a, b = run_lifetime(small_run, d, 0.5), run_lifetime(half, d, 0.5)
    assert b.years == pytest.approx(2 * a.years, rel=1e-12)
    assert b.headline.endswith("12 hours a day")
    wear = WearSetting(d, 0.5)
    s24, s12 = summarize(small_run, wear=wear), summarize(half, wear=wear)
    assert s12["ssd_lifetime_years"] == pytest.approx(2 * s24["ssd_lifetime_years"], rel=1e-12)
    assert s12["bytes_written_per_day"] == pytest.approx(s24["bytes_written_per_day"] / 2)


# ----------------------------------------------------------------------------------- catalog


def _rating_in(text: str, tbw_bytes: float) -> bool:
    tb = tbw_bytes / TB
    forms = {f"{tb:,.0f}", f"{tb:.0f}", f"{tb / 1000:.2f} PB", f"{tb / 1000:g} PB"}
    return any(re.search(rf"(?<![\d.,]){re.escape(f)}(?![\d])", text) for f in forms)


def test_every_catalog_row_cites_its_source_and_has_valid_numbers():
    df = ssd.load_catalog()
    profiles = devices.names()
    for row in df.iter_rows(named=True):
        name, source = row["name"], row["source"]
        assert re.search(r"https?://|seed 004", source), f"{name}: no address in its source"
        assert row["device"] in profiles, name
        assert row["nand"] in ssd.NAND_TYPES, name
        assert 100e9 <= row["capacity_bytes"] <= 10 * TB, name
        assert row["endurance_bytes"] > row["capacity_bytes"], name
        if row["tbw_bytes"] is not None:
            # the cited text (or its note) names the rating it gives
            assert _rating_in(source + " " + row["note"], row["tbw_bytes"]), name
        years = row["warranty_years"]
        if years is not None and row["cycles"] is None:
            dwpd = row["endurance_bytes"] / (row["capacity_bytes"] * 365 * years)
            assert 0.05 <= dwpd <= 50, f"{name}: {dwpd:.3f} drive writes a day"


def test_catalog_covers_consumer_and_data_center_tlc_and_qlc():
    df = ssd.load_catalog()
    consumer = df.filter(df["kind"] == "consumer")
    caps = consumer["capacity_bytes"].to_list()
    assert any(0.96 * TB <= c <= 1.0 * TB for c in caps)  # the 960 GB-1 TB class
    assert 2 * TB in caps and 8 * TB in caps and 500e9 in caps
    assert {"TLC", "QLC"} <= set(df["nand"].to_list())
    # both cell types in the data center too, not only on the consumer side
    assert {"TLC", "QLC"} <= set(df.filter(df["kind"] == "enterprise")["nand"].to_list())
    assert {"nvme-pcie4", "sata-ssd", "nvme-dc-p4500"} <= set(df["device"].to_list())
    for name in ("samsung-990-pro-1tb", "wd-black-sn850x-2tb", "crucial-t500-1tb"):
        assert ssd.drive(name).device == "nvme-pcie4"
    assert ssd.drive("samsung-870-evo-1tb").device == "sata-ssd"
    # rows presets and lessons name keep working
    for name in ("intel-dc-p4610-1.6tb", "samsung-990-pro-2tb", "micron-7450-pro-960gb"):
        assert ssd.drive(name).name == name


def test_each_catalog_interface_maps_to_its_class_profile():
    # the rule of docs/model.md's "One drive picker": SATA drives run on sata-ssd, NVMe drives
    # on nvme-pcie4 (consumer) or nvme-dc-p4500 (data center)
    expected = {("SATA", "consumer"): "sata-ssd", ("SATA", "enterprise"): "sata-ssd"}
    expected |= {("NVMe", "consumer"): "nvme-pcie4", ("NVMe", "enterprise"): "nvme-dc-p4500"}
    seen = set()
    for row in ssd.load_catalog().iter_rows(named=True):
        bus = "SATA" if "SATA" in row["interface"] else "NVMe" if "NVMe" in row["interface"] else ""
        if bus:
            assert row["device"] == expected[bus, row["kind"]], row["name"]
            seen.add((bus, row["kind"]))
    assert seen == set(expected)


def test_catalog_has_data_center_drives_of_2023_2026():
    # SATA and NVMe data-center rows from 960 GB to 7.68 TB, TLC and QLC, each with a TBW of its
    # own; the Micron's source gives no cell type
    for name, capacity, nand in [
        ("samsung-pm893-960gb", 0.96 * TB, "TLC"),
        ("samsung-pm893-3.84tb", 3.84 * TB, "TLC"),
        ("solidigm-d3-s4520-960gb", 0.96 * TB, "TLC"),
        ("kingston-dc600m-3.84tb", 3.84 * TB, "TLC"),
        ("micron-5400-pro-3.84tb", 3.84 * TB, ""),
        ("samsung-pm9d3a-7.68tb", 7.68 * TB, "TLC"),
        ("solidigm-d5-p5430-7.68tb", 7.68 * TB, "QLC"),
    ]:
        d = ssd.drive(name)
        assert (d.kind, d.nand, d.capacity_bytes) == ("enterprise", nand, capacity), name
        assert d.tbw_bytes is not None and d.dwpd is None, name
    # the two PM893 rows, from two sources, agree on one drive write a day over five years
    per_tb = [
        ssd.drive(n).endurance_bytes / ssd.drive(n).capacity_bytes
        for n in ("samsung-pm893-960gb", "samsung-pm893-3.84tb")
    ]
    assert per_tb == pytest.approx([365 * 5, 365 * 5], rel=1e-12)


def test_data_center_qlc_row_matches_the_dwpd_its_source_prints():
    # HPE prints 8,040 TB and 0.57 DWPD for the P5430 7.68 TB: the TBW is that DWPD over five
    # years (to the rounding of 0.57), and below a one-drive-write-a-day TLC drive of its size
    d = ssd.drive("solidigm-d5-p5430-7.68tb")
    assert d.endurance_bytes / (d.capacity_bytes * 365 * 5) == pytest.approx(0.57, abs=0.005)
    assert d.endurance_bytes < ssd.drive("samsung-pm9d3a-7.68tb").endurance_bytes
    assert d.device == "nvme-dc-p4500" and d.warranty_years is None


# ------------------------------------------------------------------------------ drive picker


def test_a_drive_sets_its_profile_unless_device_is_given():
    d = ssd.drive("samsung-870-evo-2tb")
    assert drive_device(d, {}) == {"device": "sata-ssd"}
    assert drive_device(d, {"device": "nvme-pcie4"}) == {}
    assert drive_device(ssd.Drive("mine", capacity_bytes=TB, tbw_bytes=600 * TB), {}) == {}


def test_cli_drive_sets_device_unless_set():
    args = argparse.Namespace(drive="wd-black-sn850x-1tb", set=["threads=4"])
    assert cli._drive_set(args) == ["device=nvme-pcie4"]
    assert args.set == ["threads=4", "device=nvme-pcie4"]
    args = argparse.Namespace(drive="wd-black-sn850x-1tb", set=["device=sata-ssd"])
    assert cli._drive_set(args) == [] and args.set == ["device=sata-ssd"]
    args = argparse.Namespace(drive="crucial-mx500-1tb", set=[])
    assert cli._drive_set(args, given={"device"}) == []
    with pytest.raises(ValueError, match="unknown drive 'floppy'"):
        cli._drive_set(argparse.Namespace(drive="floppy", set=[]))


def test_a_drive_typed_in_from_its_datasheet():
    # a 960 GB consumer drive the catalog lacks: decimal units, as datasheets print them
    d = ssd.drive("960GB:600TBW")
    assert (d.capacity_bytes, d.tbw_bytes, d.device) == (960e9, 600e12, "")
    assert ssd.drive(" 3.84tb:7PBW").endurance_bytes == 7e15
    assert d.model == "a 960 GB drive rated 600 TBW"
    args = argparse.Namespace(drive="960GB:600TBW", set=[])
    assert cli._drive_set(args) == []  # endurance only: the run keeps its own profile
    # the server's binary suffixes are not a drive's: refused, with the format named
    with pytest.raises(ValueError, match=r"unknown drive '960G:600TBW'.*e\.g\. 960GB:600TBW"):
        ssd.drive("960G:600TBW")


def test_report_drive_runs_on_its_profile_and_says_the_same_lifetime(tmp_path, small_run):
    html = tmp_path / "r.html"
    argv = ["report", "default", "--seconds", "12", "--html", str(html)]
    argv += [f"--set={k}={v}" for k, v in SMALL.items()]
    argv += ["--drive", "samsung-870-qvo-2tb", "--fill", "0.7"]
    assert cli.main(argv) == 0
    page = html.read_text()
    sc = small_run.scenario.replace(device="sata-ssd")
    life = run_lifetime(fs.simulate(sc), ssd.drive("samsung-870-qvo-2tb"), 0.7)
    assert f"<b>{life.headline}</b>" in page
    assert ssd.MODEL_NAMES[ssd.DEFAULT_MODEL] in page


def test_explorer_summary_report_and_sweep_give_one_lifetime(tmp_path, small_run):
    setting = figures.SsdSetting(ssd.drive("kingston-nv2-1tb"), 0.6)
    life = run_lifetime(small_run, setting.drive, setting.fill)
    data = figures.wear_data(small_run, setting)
    assert data["ssd_now"]["label"] == [life.headline]
    assert data["ssd_now"]["years"] == pytest.approx([min(life.years, 100.0)])
    # the curve of the headline's model passes through the point (fills are 1 % apart)
    curve = data["ssd"][ssd.DEFAULT_MODEL]
    assert np.interp(60.0, data["ssd"]["fill_pct"], curve) == pytest.approx(
        min(life.years, 100.0), rel=1e-9
    )
    figs = figures.standalone(small_run, setting)
    title = figs.layout.select_one({"name": figures.LIFETIME_HEADLINE})
    assert title.text.replace("\n", " ") == life.headline
    page = write_html(small_run, tmp_path / "r.html", drive="kingston-nv2-1tb", fill=0.6)
    assert f"<b>{life.headline}</b>" in page.read_text()
    row = summarize(small_run, wear=WearSetting("kingston-nv2-1tb", 0.6))
    assert row["ssd_lifetime_years"] == life.years

"""The storage-profile catalog: data/devices.csv and flushsim.devices."""

import csv
import math

import polars as pl
import pytest

from flushsim import devices
from flushsim.params import BY_NAME

PAGE = 16 * 1024  # bytes: an InnoDB page


@pytest.fixture(scope="module")
def df():
    return devices.load_devices()


def _service_us(knobs, nbytes=PAGE):
    """Device time of one page write as kernels/io.py charges it: max(1/iops, bytes/bandwidth)."""
    return max(1e6 / knobs["device_write_iops"], nbytes / knobs["device_write_bandwidth_mb_s"])


def test_catalog_loads_with_typed_columns(df):
    assert isinstance(df, pl.DataFrame)
    assert df.columns[:3] == ["name", "model", "kind"]
    assert df.columns[-2:] == ["source", "note"]
    assert df.schema["device_read_iops"] == pl.Int64
    assert df.schema["device_write_iops"] == pl.Int64
    assert df.schema["datasheet_read_iops"] == pl.Int64
    assert df.schema["device_read_bandwidth_mb_s"] == pl.Float64
    assert df.schema["device_write_bandwidth_mb_s"] == pl.Float64
    assert df.schema["device_fsync_latency_us"] == pl.Float64
    assert df.schema["volatile_write_cache"] == pl.Boolean
    assert df.height >= 4
    assert devices.CATALOG_PATH.name == "devices.csv" and devices.CATALOG_PATH.is_file()


def test_names_are_unique_lower_case_keys(df):
    names = devices.names()
    assert names == tuple(df["name"].to_list())
    assert len(set(names)) == len(names)
    for name in names:
        assert name == name.strip().lower() and " " not in name, name


def test_every_knob_is_inside_its_param_range(df):
    for row in df.iter_rows(named=True):
        for knob in devices.KNOBS:
            p = BY_NAME[knob]
            assert p.group == "storage"
            assert p.min <= row[knob] <= p.max, (row["name"], knob, row[knob])


def test_the_derivation_rule_holds_for_every_row(df):
    for row in df.iter_rows(named=True):
        assert row["device_read_iops"] == row["datasheet_read_iops"]
        assert row["device_write_iops"] == row["datasheet_write_iops"]
        assert row["device_read_bandwidth_mb_s"] == pytest.approx(row["datasheet_read_mb_s"])
        assert row["device_write_bandwidth_mb_s"] == pytest.approx(row["datasheet_write_mb_s"])


def test_every_row_cites_a_source(df):
    for row in df.iter_rows(named=True):
        assert row["source"] and len(row["source"].strip()) > 20, row["name"]
        assert row["model"].strip(), row["name"]


def test_required_kinds_are_present(df):
    kinds = set(df["kind"].to_list())
    assert {"nvme", "sata-ssd", "cloud", "hdd"} <= kinds
    assert kinds <= set(devices.KINDS)


def test_knobs_returns_exactly_the_seven_device_knobs():
    for name in devices.names():
        k = devices.knobs(name)
        assert list(k) == list(devices.KNOBS)
        assert all(isinstance(v, float) and math.isfinite(v) for v in k.values())
    assert devices.knobs("NVMe-PCIe4") == devices.knobs("nvme-pcie4")  # case-insensitive
    k = devices.knobs("sata-ssd")
    k["device_write_iops"] = 1.0  # a fresh dict each call
    assert devices.knobs("sata-ssd")["device_write_iops"] == 88_000
    assert len(devices.KNOBS) == 7


def test_device_is_a_frozen_row():
    d = devices.device("cloud-ebs-gp3")
    assert d.kind == "cloud" and d.knobs == devices.knobs("cloud-ebs-gp3")
    with pytest.raises(AttributeError):
        d.device_read_iops = 1


@pytest.mark.parametrize("bad", ["nvme", "NVMe 4", "hdd7200", "floppy", "", None, 3])
def test_unknown_names_raise_naming_the_valid_ones(bad):
    with pytest.raises(ValueError) as info:
        devices.knobs(bad)
    text = str(info.value)
    assert f"name={bad!r}" in text
    for name in devices.names():
        assert name in text


def test_unknown_names_get_a_suggestion():
    with pytest.raises(ValueError, match="did you mean 'nvme-pcie4'"):
        devices.knobs("nvme")
    with pytest.raises(ValueError, match="did you mean 'hdd-7200rpm'"):
        devices.knobs("hdd7200")


def _by_kind(kind):
    rows = devices.load_devices().filter(pl.col("kind") == kind)
    return [devices.knobs(n) for n in rows["name"].to_list()]


def test_relative_order_makes_physical_sense():
    nvme, sata, hdd = _by_kind("nvme"), _by_kind("sata-ssd"), _by_kind("hdd")
    gp3 = [devices.knobs("cloud-ebs-gp3")]
    groups = dict(n=nvme, s=sata, g=gp3, h=hdd)
    iops = {k: [x["device_read_iops"] for x in v] for k, v in groups.items()}
    # random reads: NVMe > SATA > a gp3 volume at its baseline > a spinning disk
    assert min(iops["n"]) > max(iops["s"]) > max(iops["g"]) > max(iops["h"])
    # random writes: a consumer NVMe > SATA > gp3 > a disk (a data-center NVMe prints
    # steady-state write IOPS, below consumer burst figures: compared by page below)
    iops = {k: [x["device_write_iops"] for x in v] for k, v in groups.items()}
    pcie4 = devices.knobs("nvme-pcie4")["device_write_iops"]
    assert pcie4 > max(iops["s"]) > max(iops["g"]) > max(iops["h"])
    assert min(iops["n"]) > max(iops["g"])
    # sequential bandwidth: NVMe > SATA (link-bound near 600 MB/s) > a 7,200 rpm disk
    groups = dict(n=nvme, s=sata, h=hdd)
    for col in ("device_read_bandwidth_mb_s", "device_write_bandwidth_mb_s"):
        bw = {k: [x[col] for x in v] for k, v in groups.items()}
        assert min(bw["n"]) > max(bw["s"]) > max(bw["h"])
        assert max(bw["s"]) <= 600  # SATA 6 Gb/s
    # a random read is a few tens of microseconds on flash, a network round trip on gp3,
    # milliseconds (rotation, seek) on a disk
    for k in nvme + sata:
        assert k["device_read_latency_us"] < 200
    assert 200 < gp3[0]["device_read_latency_us"] < 10_000  # AWS: single-digit milliseconds
    for k in hdd:
        assert k["device_read_latency_us"] >= 1000
    # a 16 KiB page costs more device time the slower the device
    slowest_nvme = max(_service_us(k) for k in nvme)
    assert slowest_nvme < _service_us(sata[0]) < _service_us(gp3[0]) < _service_us(hdd[0])


def test_gp3_is_its_documented_baseline():
    k = devices.knobs("cloud-ebs-gp3")
    assert k["device_read_iops"] == k["device_write_iops"] == 3000
    for col in ("device_read_bandwidth_mb_s", "device_write_bandwidth_mb_s"):
        assert k[col] == pytest.approx(125 * 2**20 / 1e6)  # 125 MiB/s in MB/s


def test_a_volatile_cache_flush_costs_more_than_a_write(df):
    for row in df.filter(pl.col("volatile_write_cache")).iter_rows(named=True):
        assert row["device_fsync_latency_us"] > row["device_write_latency_us"], row["name"]


# --------------------------------------------------------------- a broken catalog is refused


REAL_CATALOG = devices.CATALOG_PATH


def _write(path, rows):
    with REAL_CATALOG.open(newline="") as fh:
        header = next(csv.reader(fh))
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        w.writerows(rows)


def _good_row():
    """The first row of the real catalog, as CSV text fields."""
    with REAL_CATALOG.open(newline="") as fh:
        return next(csv.DictReader(fh))


def _load_from(monkeypatch, path):
    monkeypatch.setattr(devices, "CATALOG_PATH", path)
    return devices.load_devices()


def test_a_missing_catalog_says_how_to_get_it(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="pip install -e"):
        _load_from(monkeypatch, tmp_path / "absent.csv")


def test_a_good_copy_loads(tmp_path, monkeypatch):
    path = tmp_path / "devices.csv"
    _write(path, [_good_row()])
    assert _load_from(monkeypatch, path).height == 1


def test_a_knob_outside_its_param_range_is_refused(tmp_path, monkeypatch):
    row = _good_row()
    row["datasheet_read_iops"] = "50"  # device_read_iops is derived from it
    path = tmp_path / "devices.csv"
    _write(path, [row])
    with pytest.raises(ValueError, match=r"line 2 .*device_read_iops=50 is out of range.*100"):
        _load_from(monkeypatch, path)


def test_a_hand_written_rate_knob_is_refused(tmp_path, monkeypatch):
    # the rate knobs are the datasheet's figures, derived on loading: a catalog cannot carry
    # its own (say, the write figure for reads)
    with REAL_CATALOG.open(newline="") as fh:
        header = next(csv.reader(fh))
    row = {**_good_row(), "device_read_iops": _good_row()["datasheet_write_iops"]}
    path = tmp_path / "iops.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=[*header, "device_read_iops"])
        w.writeheader()
        w.writerow(row)
    with pytest.raises(ValueError, match=r"columns .*device_read_iops.* differ from"):
        _load_from(monkeypatch, path)


def test_duplicate_names_missing_sources_and_bad_kinds_are_refused(tmp_path, monkeypatch):
    path = tmp_path / "twice.csv"
    _write(path, [_good_row(), _good_row()])
    with pytest.raises(ValueError, match="appears twice"):
        _load_from(monkeypatch, path)
    row = _good_row()
    row["source"] = " "
    path = tmp_path / "unsourced.csv"
    _write(path, [row])
    with pytest.raises(ValueError, match="source is empty"):
        _load_from(monkeypatch, path)
    row = _good_row()
    row["kind"] = "tape"
    path = tmp_path / "tape.csv"
    _write(path, [row])
    with pytest.raises(ValueError, match="kind='tape' must be one of"):
        _load_from(monkeypatch, path)

"""Pools up to 64 GiB (4M pages of 16 KiB) simulate; a larger one is refused naming the limit."""

from __future__ import annotations

import pytest

import flushsim as fs
from flushsim.params import SIM_MAX_POOL_PAGES, GiB


def test_a_64_gib_pool_runs_and_conserves_its_pages():
    run = fs.simulate(
        fs.Scenario(
            knobs={"innodb_buffer_pool_size": "64G", "table_rows": 600_000_000, "threads": 16},
            seconds=2,
        )
    )
    s = run.series
    assert SIM_MAX_POOL_PAGES == 4 * 1024 * 1024
    # 8 instances of 524,288 frames: every frame is free or holds a page, every second
    assert s["buffer_pool_pages_total"].to_list() == [SIM_MAX_POOL_PAGES] * 2
    assert (s["buffer_pool_pages_free"] + s["buffer_pool_pages_data"]).to_list() == [
        SIM_MAX_POOL_PAGES
    ] * 2
    assert s["buffer_pool_reads"].sum() > 0


@pytest.mark.parametrize(
    ("size", "page", "limit"),
    [(64 * GiB + 16384, 16384, "64 GiB"), (33 * GiB, 8192, "32 GiB"), (17 * GiB, 4096, "16 GiB")],
)
def test_a_larger_pool_is_refused_naming_the_limit(size, page, limit):
    with pytest.raises(ValueError, match=rf"at most 4,194,304 pages \({limit} at "):
        fs.Scenario(knobs={"innodb_buffer_pool_size": size, "innodb_page_size": page})

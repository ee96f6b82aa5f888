"""The doublewrite batch sizes (cleaner.dispatch, docs/model.md section Doublewrite).

MariaDB's batch is its doublewrite area, two extents (buf_dblwr_t::add_to_batch,
2 x FSP_EXTENT_SIZE pages), so it depends on innodb_page_size; MySQL's is
innodb_doublewrite_pages, and DETECT_ONLY writes one 8 KiB reduced page a batch
(dblwr::REDUCED_BATCH_PAGE_SIZE).
"""

import numpy as np
import pytest

import flushsim as fs
from flushsim import schema
from flushsim.kernels import cleaner, sim
from flushsim.kernels import layout as L
from flushsim.kernels.io import ring_stage
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel

N = 600  # pages in the flush batch


def dispatch(engine, knobs):
    """Dispatch one flush-list batch of N pages; (doublewrite writes, doublewrite kB)."""
    k = kernel_inputs(fs.Scenario(engine=engine, knobs=knobs)).knobs.copy()
    page = int(k[schema.K_PAGE_SIZE])
    k[schema.K_POOL_SIZE] = N * page
    fr, frl, inst, page_frame, runs, g, _, _ = sim.init_state(k, 1, 4 * N, 1)
    out = np.zeros((10, schema.N_COLS))
    ring = L.Ring(np.zeros(N + 1, dtype=np.int32), np.zeros(N + 1, dtype=np.int64))
    for f in range(N):
        ring_stage(g, ring.ring_frame, f, f)
    cleaner.dispatch(g, L.Pool(fr, frl, inst, page_frame, runs), k, out, ring, N, 0, L.IO_LIST, 0)
    assert out[:, schema.C_DBLWR_PAGES].sum() == N
    data_kb = N * page / 1024
    return out[:, schema.C_DBLWR_WRITES].sum(), out[:, schema.COL["wkB_s"]].sum() - data_kb


@pytest.mark.parametrize(
    ("page_size", "batch"), [("4096", 512), ("8192", 256), ("16384", 128), ("65536", 128)]
)
@pytest.mark.parametrize("engine", ["mariadb-10.6", "mariadb-10.11"])
def test_mariadb_batches_are_two_extents(engine, page_size, batch):
    writes, dblwr_kb = dispatch(engine, {"innodb_page_size": page_size})
    assert writes == -(-N // batch)
    assert dblwr_kb == N * int(page_size) / 1024  # every page is copied whole


def test_mysql_detect_only_writes_one_8_kib_page_a_batch():
    writes, dblwr_kb = dispatch(
        "mysql-8.0", {"innodb_doublewrite": "DETECT_ONLY", "innodb_doublewrite_pages": 16}
    )
    assert writes == -(-N // 16)
    assert dblwr_kb == writes * 8

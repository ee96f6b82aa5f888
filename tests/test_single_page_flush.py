"""MySQL 8.0's single-page flush keeps its scan position (buf_pool.single_scan_itr).

buf_flush_single_page_from_LRU starts at single_scan_itr (LRUItr::start: at the LRU tail if the
iterator is unset or in the old part) and moves it to the previous page before each page it
examines (free_block.single_page_flush). Driven on a hand-built 600-frame pool, all dirty.
"""

import kernel_state
import pytest

import flushsim as fs
from flushsim.kernels import free_block
from flushsim.kernels import layout as L

pytestmark = pytest.mark.kernel

FRAMES = 600


class Pool:
    """One MySQL 8.0 pool of FRAMES frames, driven through the kernel's own functions."""

    def __init__(self):
        kernel_state.init_pool(self, fs.Scenario(), FRAMES)

    def flush(self, t):
        pool = L.Pool(self.fr, self.frl, self.inst, self.page_frame, self.runs)
        return free_block.single_page_flush(self.g, pool, self.knobs, self.out, 0, t)


@pytest.fixture
def full():
    p = Pool()
    for page in range(FRAMES):
        assert kernel_state.access(p, page, True, 1000 + page) >= 0
    assert p.inst[0, L.I_FREE_LEN] == 0 and p.inst[0, L.I_FL_LEN] == FRAMES
    return p


def test_it_starts_at_the_tail_and_leaves_the_iterator_on_the_previous_page(full):
    p = full
    tail = p.inst[0, L.I_LRU_TAIL]
    ok, _, written = p.flush(1_000_000)
    assert ok and written == tail
    assert p.inst[0, L.I_SINGLE_ITR] == p.fr[tail, L.F_PREV]


def test_it_resumes_at_the_iterator_in_the_young_part(full):
    p = full
    young = p.inst[0, L.I_LRU_HEAD]
    assert p.fr[young, L.F_LRU] == L.LRU_YOUNG
    p.inst[0, L.I_SINGLE_ITR] = young  # where a scan through the old part stopped
    ok, _, written = p.flush(1_000_000)
    assert ok and written == young  # not the tail page
    assert p.inst[0, L.I_SINGLE_ITR] == p.fr[young, L.F_PREV]


def test_an_iterator_in_the_old_part_restarts_at_the_tail(full):
    p = full
    tail = p.inst[0, L.I_LRU_TAIL]
    p.inst[0, L.I_SINGLE_ITR] = p.fr[p.fr[tail, L.F_PREV], L.F_PREV]
    assert p.fr[p.inst[0, L.I_SINGLE_ITR], L.F_LRU] == L.LRU_OLD
    _, _, written = p.flush(1_000_000)
    assert written == tail

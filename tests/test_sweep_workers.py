"""flushsim._sweep_workers: the worker processes' bookkeeping, without a sweep around them."""

from __future__ import annotations

from flushsim import _sweep_workers


def test_a_started_worker_counts_as_starting_until_it_is_live():
    # run_tasks runs a dead worker's runs itself when no worker is live or starting: a
    # replacement whose starter thread has ended, not yet taken in by this process, was
    # neither, and sat idle while they ran here (the run-lost-twice fault test waited for it)
    pool = _sweep_workers.Workers(1, len, ())
    try:
        for thread in pool._starters:
            thread.join()
        assert not pool.live
        assert pool.starting()
        pool.give(lambda: None)  # takes the started worker in
        assert len(pool.live) == 1
        assert not pool.starting()
    finally:
        pool.stop(now=True)
    assert not pool.live

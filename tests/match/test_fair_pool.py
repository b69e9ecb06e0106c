"""The stand-in's worker shared between owners: turns in order, cancellations, failures."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pytest

from server.match.fair_pool import FairPool

HELD_SECONDS = 10.0  # a job waits this long at most for the test to let it finish


class Jobs:
    """Jobs that each wait for the test's go-ahead, recording the order they ran in."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.go = threading.Event()

    def job(self, name: str) -> str:
        self.go.wait(HELD_SECONDS)
        self.ran.append(name)
        if name.startswith("fail"):
            raise ValueError(name)
        return name.upper()


@pytest.fixture
async def pool():
    made = FairPool(lambda: ThreadPoolExecutor(1), workers=1)
    yield made
    made.close()


async def queued(pool: FairPool, jobs: Jobs, owner: str, names: list[str]) -> list[asyncio.Task[str]]:
    tasks = [asyncio.create_task(pool.run(owner, jobs.job, name)) for name in names]
    await asyncio.sleep(0)  # each has queued its job
    return tasks


async def test_owners_take_turns_whatever_each_queued(pool: FairPool) -> None:
    jobs = Jobs()
    many = await queued(pool, jobs, "many", ["m1", "m2", "m3", "m4"])  # m1 starts at once
    other = await queued(pool, jobs, "other", ["o1", "o2"])
    late = await queued(pool, jobs, "late", ["l1"])
    jobs.go.set()
    assert await asyncio.gather(*many, *other, *late) == ["M1", "M2", "M3", "M4", "O1", "O2", "L1"]
    # "many" had its turn first: the others' first jobs come before its second.
    assert jobs.ran == ["m1", "o1", "l1", "m2", "o2", "m3", "m4"]
    assert not pool.queues and not pool.last_turn and not pool.running  # nothing kept once idle


async def test_one_owner_alone_runs_first_come_first_served(pool: FairPool) -> None:
    jobs = Jobs()
    tasks = await queued(pool, jobs, "alone", ["a", "b", "c"])
    jobs.go.set()
    assert await asyncio.gather(*tasks) == ["A", "B", "C"]
    assert jobs.ran == ["a", "b", "c"]


async def test_a_job_cancelled_before_its_turn_never_runs(pool: FairPool) -> None:
    jobs = Jobs()
    first = await queued(pool, jobs, "x", ["x1", "x2"])
    other = await queued(pool, jobs, "y", ["y1"])
    first[1].cancel()
    other[0].cancel()
    jobs.go.set()
    assert await first[0] == "X1"
    for task in (first[1], other[0]):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await pool.run("z", jobs.job, "z1") == "Z1"
    assert jobs.ran == ["x1", "z1"]


async def test_a_failure_reaches_its_caller_and_the_next_job_runs(pool: FairPool) -> None:
    jobs = Jobs()
    failing = await queued(pool, jobs, "x", ["fail1"])
    after = await queued(pool, jobs, "y", ["y1"])
    jobs.go.set()
    with pytest.raises(ValueError, match="fail1"):
        await failing[0]
    assert await after[0] == "Y1"


async def test_close_cancels_the_jobs_not_started(pool: FairPool) -> None:
    jobs = Jobs()
    started, waiting = await queued(pool, jobs, "x", ["x1", "x2"])
    pool.close()
    jobs.go.set()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await started == "X1"  # a thread runs to its end; the process pool's workers are stopped


async def test_a_worker_that_dies_is_replaced_for_the_next_job() -> None:
    spawned = multiprocessing.get_context("spawn")
    pool = FairPool(lambda: ProcessPoolExecutor(1, mp_context=spawned), workers=1)
    try:
        with pytest.raises(BrokenProcessPool):
            await pool.run("x", os._exit, 1)  # as a worker killed for its memory would
        assert await pool.run("y", pow, 2, 10) == 1024
    finally:
        pool.close()

"""Work for a process pool, shared fairly between owners.

An executor runs what it is given first come, first served: one owner who asks
for a hundred slow jobs makes everyone else's wait behind them. Here each
owner has its own queue and the pool's workers take the owners' next jobs in
turn, so that an owner's job waits for at most one job of each other owner with
work queued, however much they queued (with one worker).
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor
from typing import Any, TypeVar

T = TypeVar("T")
Job = tuple["asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


class FairPool:
    """Runs jobs in ``workers`` processes of the executor ``make_executor`` makes (when first needed),
    taking turns between the owners with jobs waiting: the next job is of the owner whose last turn
    is the oldest (an owner with none yet first, in the order they came)."""

    def __init__(self, make_executor: Callable[[], Executor], workers: int) -> None:
        self.make_executor = make_executor
        self.workers = workers
        self.executor: Executor | None = None
        self.queues: dict[str, deque[Job]] = {}  # the owners with jobs waiting
        self.last_turn: dict[str, int] = {}  # of the owners with jobs waiting or running
        self.running: Counter[str] = Counter()
        self.turns = 0

    async def run(self, owner: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker, once ``owner``'s turn comes. Cancelled before its turn, the
        job never runs; cancelled while it runs, it runs to its end and its result is dropped."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.queues.setdefault(owner, deque()).append((done, function, args))
        self._dispatch()
        return await done

    def _dispatch(self) -> None:
        while self.running.total() < self.workers and self.queues:
            owner = min(self.queues, key=lambda waiting: self.last_turn.get(waiting, -1))
            queue = self.queues[owner]
            done, function, args = queue.popleft()
            if not queue:
                del self.queues[owner]
            if done.done():  # its caller stopped waiting
                self._forget_idle(owner)
                continue
            if self.executor is None:
                self.executor = self.make_executor()
            try:
                running = asyncio.wrap_future(self.executor.submit(function, *args))
            except BrokenExecutor as error:
                self._replace_broken()
                done.set_exception(error)
                self._forget_idle(owner)
                continue
            self.turns += 1
            self.last_turn[owner] = self.turns
            self.running[owner] += 1
            running.add_done_callback(functools.partial(self._finished, owner, done))

    def _finished(self, owner: str, done: asyncio.Future[Any], finished: asyncio.Future[Any]) -> None:
        self.running[owner] -= 1
        self._forget_idle(owner)
        error = None if finished.cancelled() else finished.exception()  # retrieved even if nobody waits
        if isinstance(error, BrokenExecutor):
            self._replace_broken()
        if not done.done():
            if finished.cancelled():
                done.cancel()
            elif error is not None:
                done.set_exception(error)
            else:
                done.set_result(finished.result())
        self._dispatch()

    def _forget_idle(self, owner: str) -> None:
        """An owner with nothing waiting or running comes back as a newcomer."""
        if owner not in self.queues and self.running[owner] <= 0:
            del self.running[owner]
            self.last_turn.pop(owner, None)

    def _replace_broken(self) -> None:
        """A worker died (killed, out of memory): the executor refuses all work now; the next job gets
        a new one."""
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None

    def close(self) -> None:
        """Stop the workers; jobs not started never will."""
        for queue in self.queues.values():
            for done, _, _ in queue:
                done.cancel()
        self.queues.clear()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

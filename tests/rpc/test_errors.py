"""The status a refusal of the store ends its call with: a busy store's is to be repeated, a failing one's
is UNAVAILABLE."""

from __future__ import annotations

import grpc

from server.rpc.errors import status_of, trailing_metadata
from server.store import StoreBusy, StoreUnavailable


def test_a_call_refused_by_a_busy_store_may_be_repeated_after_its_retry_after() -> None:
    busy = StoreBusy("storage is busy: every database connection stayed in use; try again shortly", 0.4)
    assert status_of(busy) == (grpc.StatusCode.RESOURCE_EXHAUSTED, busy.reason)
    assert trailing_metadata(busy) == (("retry-after", "1"),)


def test_a_failing_store_is_unavailable_without_retry_after() -> None:
    failing = StoreUnavailable("storage is unavailable: the database cannot be reached")
    assert status_of(failing) == (grpc.StatusCode.UNAVAILABLE, failing.reason)
    assert trailing_metadata(failing) == ()

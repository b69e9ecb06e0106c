"""One mapping from refusals (engine, match layer, store, wire) to gRPC status codes."""

from __future__ import annotations

import math

import grpc
from mercado_client.wire import WireError

from server.games.mercado import IllegalAction, InvalidAction, InvalidPosition
from server.match import errors
from server.store import Conflict, StoreBusy, StoreUnavailable

STATUS_OF: dict[type[Exception], grpc.StatusCode] = {
    errors.InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    errors.NotAllowedNow: grpc.StatusCode.FAILED_PRECONDITION,
    errors.StaleVersion: grpc.StatusCode.ABORTED,
    errors.SeatTaken: grpc.StatusCode.ALREADY_EXISTS,
    errors.NoSeatLeft: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.Throttled: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.ShuttingDown: grpc.StatusCode.UNAVAILABLE,
    StoreBusy: grpc.StatusCode.RESOURCE_EXHAUSTED,  # before StoreUnavailable, its base: nothing was done
    StoreUnavailable: grpc.StatusCode.UNAVAILABLE,
    Conflict: grpc.StatusCode.ABORTED,
    IllegalAction: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidAction: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidPosition: grpc.StatusCode.INVALID_ARGUMENT,
    WireError: grpc.StatusCode.INVALID_ARGUMENT,
}
REFUSALS = tuple(STATUS_OF)
MAX_REASON_CHARACTERS = 200  # a last guard: no reason may carry a caller's megabyte back


class CallEnded(Exception):
    """Raised by a gRPC-Web context's ``abort``: the call ends with the status set on the context."""


def status_of(error: Exception) -> tuple[grpc.StatusCode, str]:
    """The status code and one-line reason for a refusal."""
    for kind in type(error).__mro__:
        if kind in STATUS_OF:
            reason = getattr(error, "reason", None) or str(error)
            line = reason.splitlines()[0] if reason else kind.__name__
            return STATUS_OF[kind], line[:MAX_REASON_CHARACTERS]
    raise TypeError(f"{type(error).__name__} is not a refusal")


def trailing_metadata(error: Exception) -> tuple[tuple[str, str], ...]:
    """A fair-use refusal, or one of a busy store, says in how many whole seconds to try again."""
    if isinstance(error, errors.Throttled | StoreBusy):
        return (("retry-after", str(max(1, math.ceil(error.retry_after)))),)
    return ()

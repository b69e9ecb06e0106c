"""One mapping from refusals (engine, match layer, wire) to gRPC status codes."""

from __future__ import annotations

import grpc
from mercado_client.wire import WireError

from server.engine import IllegalAction, InvalidAction, InvalidPosition
from server.match import errors

STATUS_OF: dict[type[Exception], grpc.StatusCode] = {
    errors.InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    errors.NotAllowedNow: grpc.StatusCode.FAILED_PRECONDITION,
    errors.StaleVersion: grpc.StatusCode.ABORTED,
    errors.SeatTaken: grpc.StatusCode.ALREADY_EXISTS,
    errors.NoSeatLeft: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.ShuttingDown: grpc.StatusCode.UNAVAILABLE,
    IllegalAction: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidAction: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidPosition: grpc.StatusCode.INVALID_ARGUMENT,
    WireError: grpc.StatusCode.INVALID_ARGUMENT,
}
REFUSALS = tuple(STATUS_OF)


def status_of(error: Exception) -> tuple[grpc.StatusCode, str]:
    """The status code and one-line reason for a refusal."""
    for kind in type(error).__mro__:
        if kind in STATUS_OF:
            reason = getattr(error, "reason", None) or str(error)
            return STATUS_OF[kind], reason.splitlines()[0] if reason else kind.__name__
    raise TypeError(f"{type(error).__name__} is not a refusal")

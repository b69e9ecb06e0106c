"""Refusals of the match layer. The RPC layer maps each to one gRPC status code."""

from __future__ import annotations


class MatchError(Exception):
    """A refused request; nothing changed. ``reason`` is one line for the caller."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidRequest(MatchError):
    """Malformed input (INVALID_ARGUMENT)."""


class NotFound(MatchError):
    """No such match or seat (NOT_FOUND)."""


class Unauthenticated(MatchError):
    """A missing or unknown seat token where one is required (UNAUTHENTICATED)."""


class PermissionDenied(MatchError):
    """A valid token that does not allow this (PERMISSION_DENIED)."""


class NotAllowedNow(MatchError):
    """Not possible now: not your turn, illegal, match not playing (FAILED_PRECONDITION)."""


class StaleVersion(MatchError):
    """The client's expected version is not the match's version (ABORTED)."""


class SeatTaken(MatchError):
    """The requested seat already has a player (ALREADY_EXISTS)."""


class ShuttingDown(MatchError):
    """The server is stopping; try again shortly (UNAVAILABLE)."""


class NoSeatLeft(MatchError):
    """No open or bot seat is left to take (RESOURCE_EXHAUSTED)."""


class Throttled(MatchError):
    """A fair-use limit: too many calls, waiting matches or streams (RESOURCE_EXHAUSTED, with retry-after)."""

    def __init__(self, reason: str, retry_after: float) -> None:
        super().__init__(reason)
        self.retry_after = retry_after

"""Storage adapters for matches behind one interface. SQLite is the first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from server.engine import Action
from server.match.records import MatchRecord, SeatRecord


class Store(Protocol):
    """Durable storage of matches: a write has returned only once it survives a crash of the process."""

    def create_match(self, match: MatchRecord) -> None: ...

    def save_seat(self, match_id: str, seat: SeatRecord) -> None: ...

    async def append_action(
        self, match_id: str, version: int, seat: int, action: Action, request_id: str
    ) -> None:
        """Return only once the action is durable."""
        ...

    def load_matches(self) -> Iterator[tuple[MatchRecord, list[tuple[int, Action, str]]]]:
        """Every match with its actions as (seat, action, request id), in version order."""
        ...

    def close(self) -> None: ...

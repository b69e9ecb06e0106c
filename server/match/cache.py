"""The matches kept in memory: those in use, and the most recently used up to a bound.

A match leaves memory once it is not in use (no stream watches it, no call
holds it) and either more than ``size`` matches are cached or it has not been
used for ``idle_seconds``. It is loaded from the store again when asked for.
Matches are visited oldest first, so each eviction looks at few of them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .match import Match

SCAN = 16  # matches in use skipped per eviction at most, before giving up until the next one
# A match just loaded or used stays at least this long: its caller may not have pinned it yet.
RESIDENT_SECONDS = 1.0


class MatchCache:
    def __init__(self, size: int, idle_seconds: float) -> None:
        self.size = size
        self.idle_seconds = idle_seconds
        self.entries: OrderedDict[str, tuple[Match, float]] = OrderedDict()  # oldest use first

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, match_id: str) -> Match | None:
        entry = self.entries.get(match_id)
        if entry is None:
            return None
        self.entries[match_id] = (entry[0], time.monotonic())
        self.entries.move_to_end(match_id)
        return entry[0]

    def peek(self, match_id: str) -> Match | None:
        """The match if it is in memory, without counting this as a use."""
        entry = self.entries.get(match_id)
        return None if entry is None else entry[0]

    def add(self, match: Match) -> None:
        self.entries[match.match_id] = (match, time.monotonic())
        self.entries.move_to_end(match.match_id)
        self._evict()

    def drop(self, match_id: str) -> None:
        self.entries.pop(match_id, None)

    def matches(self) -> Iterator[Match]:
        for match, _ in list(self.entries.values()):
            yield match

    def _evict(self) -> None:
        """Drop unused matches from the old end: beyond the size, or idle too long."""
        now = time.monotonic()
        victims: list[str] = []
        busy: list[str] = []
        for match_id, (match, used) in self.entries.items():
            over = len(self.entries) - len(victims) > self.size
            if now - used < RESIDENT_SECONDS or not (over or now - used > self.idle_seconds):
                break
            if match.in_use:
                busy.append(match_id)
                if len(busy) >= SCAN:
                    break
            else:
                victims.append(match_id)
        for match_id in victims:
            del self.entries[match_id]
        for match_id in busy:  # in use, so in effect recently used: out of the way of later evictions
            self.entries.move_to_end(match_id)

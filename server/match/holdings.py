"""What each client, and each network, holds at once (waiting matches, bot seats, open streams), and
their caps.

A caller with a player credential is a client of its own, so that people behind one address do not
share a cap; but guest players cost nothing to make, so everything the clients of one network hold
counts against the network's cap too. An empty key (a trusted network, or no caller) has no cap.
"""

from __future__ import annotations

from collections.abc import Hashable

from .errors import Throttled

NETWORK = "network:"  # a network's count, apart from its clients' own (an anonymous client is its address)
PLAYER = "player:"  # a client that names its player: the player, wherever it calls from


def player_client(player_id: str) -> str:
    """The client a caller with ``player_id``'s credential is."""
    return PLAYER + player_id


def holders(client: str, network: str) -> tuple[str, ...]:
    """The keys a thing that ``client``, calling from ``network``, holds counts under."""
    return tuple(key for key in (client, NETWORK + network if network else "") if key)


class Holdings:
    """How many of one kind of thing each key holds, refused beyond a client's or a network's cap."""

    def __init__(self, what: str, per_client: int, per_network: int, retry_seconds: float) -> None:
        self.what = what  # as a refusal names them: "streams open", "matches waiting for players"
        self.per_client = per_client
        self.per_network = per_network
        self.retry_seconds = retry_seconds
        self.held: dict[str, int] = {}
        self.keys_of: dict[Hashable, tuple[str, ...]] = {}  # what ``hold`` was given, and whose it is

    def __len__(self) -> int:
        """How many keys hold anything."""
        return len(self.held)

    def check(self, keys: tuple[str, ...], more: int = 1) -> None:
        """Throttled if ``more`` would take any of ``keys`` past its cap."""
        for key in keys:
            of_network = key.startswith(NETWORK)
            cap = self.per_network if of_network else self.per_client
            held = self.held.get(key, 0)
            if held + more > cap:
                whose = "your network has" if of_network else "you have"
                beyond = f" of {cap}; this asks for {more} more" if held < cap else " already"
                raise Throttled(f"{whose} {held} {self.what}{beyond}", self.retry_seconds)

    def add(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            self.held[key] = self.held.get(key, 0) + 1

    def remove(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            left = self.held[key] - 1
            if left:
                self.held[key] = left
            else:
                del self.held[key]

    def hold(self, thing: Hashable, keys: tuple[str, ...]) -> None:
        """``thing`` counts for ``keys`` until ``let_go(thing)``."""
        if keys:
            self.add(keys)
            self.keys_of[thing] = keys

    def let_go(self, thing: Hashable) -> None:
        """``thing`` no longer counts (nothing happens if it never did, or no longer does)."""
        self.remove(self.keys_of.pop(thing, ()))

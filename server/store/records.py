"""What the store persists of a match: its set-up and seats (its actions are engine actions)."""

from __future__ import annotations

from dataclasses import dataclass

from server.engine import Options

# A match's status: some seats open, every seat taken and the game on, the game over.
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"


@dataclass
class SeatRecord:
    """One seat: open to anyone, or reserved for a bot of some level."""

    seat: int
    bot_level: str | None = None  # None: an open seat
    display_name: str = ""
    token_hash: str | None = None  # set once the seat is taken

    @property
    def taken(self) -> bool:
        return self.token_hash is not None


@dataclass
class MatchRecord:
    """A match's identity and set-up: everything needed, with its actions, to rebuild it."""

    match_id: str
    options: Options
    seed: int
    created_ms: int
    seats: list[SeatRecord]
    game: str = "mercado"
    # The seed's commitment is SHA-256 over salt and seed (mercado_client.fairness); matches
    # stored before commitments existed have no salt.
    salt: bytes = b""
    seed_chosen: bool = False  # chosen by the creator, not drawn by the server

"""What the parts of ``mercado play`` share: what it was asked to do, the end of its input, a server
error as one line, and whether a seat may be taken back from the AI.

``play.py`` runs the command; ``signin.py``, ``quick.py`` and ``resume.py`` are its steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from mercado.v1 import match_pb2 as api
from mercado_client.client import Endpoint
from rich.markup import escape
from rich.text import Text

DEFAULT_SERVER = "127.0.0.1:50051"
PLAYING, FINISHED, CANCELLED = api.MATCH_STATUS_PLAYING, api.MATCH_STATUS_FINISHED, api.MATCH_STATUS_CANCELLED


@dataclass(frozen=True)
class PlayOptions:
    """What ``mercado play`` was asked to do."""

    server: Endpoint = field(default_factory=lambda: Endpoint(DEFAULT_SERVER))
    match_id: str | None = None
    seat: int | None = None  # the API's seat (0-based)
    name: str = "player"
    players: int | None = None
    bots: Sequence[str] = ()
    money: str = "hidden"
    seed: int | None = None
    resume: str | None = None  # "": choose among the held games; else the match id to resume
    seats_file: Path | None = None  # None: the user's data directory's
    players_file: Path | None = None  # None: beside the seat file
    name_given: bool = True  # ``name`` was chosen (else the default): a kept player's name differs, say so
    unrated: bool = False  # new match: never rated
    quick: bool = False  # queue for a match (matchmaking) instead of creating or joining one
    allow_ai: bool = True  # with ``quick``: bots may fill the seats after a while
    game: str = "mercado"  # new match or ``quick``: "mercado", "oregano" or "leilao"
    kept_as: str = ""  # play as the guest player kept under this name (``--as``); "" the terminal's own


def counted(count: int, noun: str) -> str:
    """A number of things in words: '1 point', '-1 point', '3 points'."""
    return f"{count} {noun}{'' if abs(count) == 1 else 's'}"


class InputClosed(Exception):
    """Standard input ended before the game did."""


def error_text(error: grpc.aio.AioRpcError) -> Text:
    """The server's one-line reason with its status code."""
    return Text(f"{error.details()} [{error.code().name.lower()}]")


def error_line(error: grpc.aio.AioRpcError) -> str:
    """The server's one-line reason with its status code, escaped for rich markup."""
    return escape(error_text(error).plain)


def reclaimable(info: api.SeatInfo | None) -> bool:
    """The AI plays the seat because its time ran out (not because it left or forfeited): its player
    may take it back."""
    return info is not None and info.played_by_ai and not (info.left or info.forfeited)

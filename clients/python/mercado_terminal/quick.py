"""Matchmaking for ``mercado play --quick``: queue until the server finds a match, showing the wait,
and take the seat it gives; after a rated match, the player's new rating.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from dataclasses import dataclass, field

import grpc
from mercado.v1 import match_pb2 as api
from mercado_client.client import MercadoClient, Seat
from mercado_client.games import game_name
from mercado_client.wire import BOT_LEVEL_NAMES
from rich.console import Console
from rich.text import Text

from .board import clock_time, seat_label, seat_names
from .boards import game_title
from .common import PlayOptions
from .held import SeatFile
from .resume import keep_seat
from .signin import Identity, rating_text

QUEUE_REFRESH_SECONDS = 0.5  # how often the queue's waiting line counts the time
ALREADY_QUEUED_SECONDS = 5.0  # how long "queued already" is tried again (a stream that just closed)
RATING_SETTLE_SECONDS = 3.0  # how long a finished rated match's new rating is waited for


class NoMatch(Exception):
    """The server ended the matchmaking queue without a match."""


@dataclass
class QueueLine:
    """The waiting line while queued: how long, how many queued, how wide the rating window is now."""

    players: int
    allow_ai: bool
    game: str = "mercado"
    started: float = field(default_factory=time.monotonic)
    queued: api.Queued | None = None
    received: float = 0.0  # when ``queued`` arrived

    def note(self, queued: api.Queued) -> None:
        self.queued, self.received = queued, time.monotonic()

    def waited_seconds(self) -> int:
        """The server's count when it gave one, plus the time since."""
        now = time.monotonic()
        if self.queued is None:
            return int(now - self.started)
        return int(self.queued.waited_ms / 1000 + now - self.received)

    def text(self) -> Text:
        line = Text.assemble(
            (f"looking for a {self.players}-player match", "bold yellow"),
            f" · waited {clock_time(self.waited_seconds() * 1000)}",
        )
        if self.queued is not None:
            line.append(f" · {self.queued.queued_players} queued")
            line.append(f" · rating window ±{self.queued.rating_window:.1f}")
        return line


async def find_match(
    client: MercadoClient, identity: Identity, line: QueueLine, console: Console
) -> api.MatchFound:
    """Queue until the server finds a match, showing ``line`` (live on a terminal). A queue refused as
    joined already is tried again for a few seconds: a stream that just closed may not have left it."""
    status = console.status(line.text(), spinner="dots") if console.is_terminal else None
    shown_count: int | None = None

    async def tick() -> None:
        while status is not None:
            status.update(line.text())
            await asyncio.sleep(QUEUE_REFRESH_SECONDS)

    ticker = asyncio.create_task(tick())
    refused_since: float | None = None
    try:
        if status is not None:
            status.start()
        while True:
            try:
                queue = client.find_match(line.players, line.allow_ai, token=identity.token, game=line.game)
                async with aclosing(queue) as updates:
                    async for update in updates:
                        if update.HasField("found"):
                            return update.found
                        line.note(update.queued)
                        if status is None and update.queued.queued_players != shown_count:
                            shown_count = update.queued.queued_players
                            console.print(line.text(), highlight=False)
                raise NoMatch("the server ended the queue without a match")
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ALREADY_EXISTS:
                    raise
                refused_since = refused_since or time.monotonic()
                if time.monotonic() - refused_since > ALREADY_QUEUED_SECONDS:
                    raise
                await asyncio.sleep(QUEUE_REFRESH_SECONDS)
    finally:
        ticker.cancel()
        if status is not None:
            status.stop()


def rivals(state: api.MatchState, seat: int) -> str:
    """The other seats of a match that matchmaking made: the people, and the AI for the bot seats."""
    names = seat_names(state)
    return ", ".join(
        seat_label(info.seat, names)
        if info.taken or not info.bot
        else f"{BOT_LEVEL_NAMES.get(info.bot_level, 'medium').capitalize()} AI"  # as the seat will be named
        for info in state.match.seats
        if info.seat != seat
    )


async def quick(
    client: MercadoClient, held: SeatFile, options: PlayOptions, console: Console, identity: Identity
) -> tuple[Seat, api.MatchState]:
    """Queue for a match (matchmaking) and take the seat the server gives; Ctrl-C leaves the queue."""
    players = options.players or 2
    line = QueueLine(players, options.allow_ai, options.game)
    fill = "bots fill empty seats after a while" if options.allow_ai else "people only"
    what = (
        f"{players}-player match"
        if options.game == "mercado"
        else f"{players}-player {game_title(options.game)} match"
    )
    console.print(f"queueing for a {what} ({fill}); Ctrl-C leaves the queue", highlight=False)
    try:
        found = await find_match(client, identity, line, console)
    except asyncio.CancelledError:  # Ctrl-C: closing the stream left the queue
        console.print(f"\nleft the queue after {clock_time(line.waited_seconds() * 1000)}", highlight=False)
        raise
    seat = Seat(client, found.match_id, found.seat, identity.token, found.seat_token)
    state = await seat.view()
    names = seat_names(state)
    console.print(
        Text.assemble(
            "found match ",
            (found.match_id, "bold"),
            f" after {clock_time(line.waited_seconds() * 1000)}: you are {seat_label(found.seat, names)}",
            f"; against: {rivals(state, found.seat)}",
        ),
        highlight=False,
    )
    keep_seat(held, options, console, seat, identity.name, identity)
    return seat, state


async def rating_after(
    client: MercadoClient, identity: Identity, state: api.MatchState, console: Console
) -> None:
    """After a finished match: the player's rating in its game now, and what it was."""
    if not state.match.rated:
        console.print(f"this match was not rated: your rating stays {rating_text(identity.profile)}")
        return
    before = identity.profile
    deadline = time.monotonic() + RATING_SETTLE_SECONDS
    try:
        while True:
            after = await client.get_player(token=identity.token, game=game_name(state.match.game))
            if after.rated_matches > before.rated_matches or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
    except grpc.aio.AioRpcError:
        return  # the game is over all the same
    if after.rated_matches <= before.rated_matches:
        console.print("[dim]your new rating is not in yet: `mercado play` shows it next time[/]")
        return
    change = after.rating.display - before.rating.display
    console.print(
        Text.assemble(
            "your rating: ",
            (rating_text(after), "bold cyan"),
            f" ({change:+.1f}, was {rating_text(before)})",
        ),
        highlight=False,
    )
    identity.profile = after

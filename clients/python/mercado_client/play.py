"""``mercado play``: play one match in the terminal against people or bots.

Connects, creates or joins a match, follows its event stream and redraws the
board after every update; on the player's turn it shows the legal actions as a
numbered menu and submits the chosen one.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import grpc
from mercado.v1 import match_pb2 as api
from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.prompt import Prompt
from rich.text import Text

from .board import render_match, seat_names, seat_tag
from .client import Endpoint, Seat
from .menu import menu_choices, render_menu
from .narrate import update_lines
from .wire import BOT_LEVEL_NAMES

T = TypeVar("T")
LOG_LINES = 8
DEFAULT_SERVER = "127.0.0.1:50051"


@dataclass(frozen=True)
class PlayOptions:
    """What ``mercado play`` was asked to do."""

    server: Endpoint = field(default_factory=lambda: Endpoint(DEFAULT_SERVER))
    match_id: str | None = None
    seat: int | None = None
    name: str = "player"
    players: int | None = None
    bots: Sequence[str] = ()
    money: str = "hidden"
    seed: int | None = None


class InputClosed(Exception):
    """Standard input ended before the game did."""


def ask_number(console: Console, count: int) -> int:
    """Read a menu number from 1 to ``count``; raises InputClosed at end of input."""
    while True:
        try:
            answer = Prompt.ask(f"[bold]your move[/] [cyan](1-{count})[/]", console=console)
        except EOFError:
            raise InputClosed from None
        if answer.strip().isdigit() and 1 <= int(answer) <= count:
            return int(answer)
        console.print(f"[red]type a number from 1 to {count}[/]")


async def in_daemon_thread(function: Callable[[], T]) -> T:
    """Like ``asyncio.to_thread``, but in a daemon thread: a blocked ``input()`` can't hold up Ctrl-C.

    ``asyncio.run`` joins its executor's threads on the way out, so a prompt
    running there would keep the process alive until Enter is pressed.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def run() -> None:
        try:
            result = function()
        except BaseException as error:
            done: Callable[[], None] = partial(settle, partial(future.set_exception, error))
        else:
            done = partial(settle, partial(future.set_result, result))
        with suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(done)

    threading.Thread(target=run, name="prompt", daemon=True).start()
    return await future


def error_line(error: grpc.aio.AioRpcError) -> str:
    """The server's one-line reason with its status code, escaped for rich markup."""
    return escape(f"{error.details()} [{error.code().name.lower()}]")


class Session:
    """One seat's game: the latest state, the move log and the prompt."""

    def __init__(self, console: Console, seat: Seat, state: api.MatchState, join_hint: str) -> None:
        self.console = console
        self.seat = seat
        self.state = state
        self.join_hint = join_hint
        # The set-up's commitment as published before the first move: what `mercado verify` checks.
        self.commitment = state.match.seed_commitment
        self.log: deque[Text] = deque(maxlen=LOG_LINES)
        self.updates: asyncio.Queue[api.MatchUpdate | grpc.aio.AioRpcError | None] = asyncio.Queue()

    @property
    def names(self) -> list[str]:
        return seat_names(self.state)

    @property
    def my_turn(self) -> bool:
        state = self.state
        return (
            state.match.status == api.MATCH_STATUS_PLAYING
            and state.HasField("to_move")
            and state.to_move == self.seat.seat
            and len(state.legal_actions) > 0
        )

    async def _read(self) -> None:
        try:
            async for update in self.seat.follow(self.state.version):
                await self.updates.put(update)
            await self.updates.put(None)
        except grpc.aio.AioRpcError as error:
            await self.updates.put(error)

    def apply(self, update: api.MatchUpdate) -> bool:
        """Take in an update unless already seen; True if the state changed."""
        action = update.HasField("seat")
        if update.version < self.state.version or (action and update.version == self.state.version):
            return False
        previous, self.state = self.state, update.state
        self.log.extend(update_lines(update, self.names, previous))
        return True

    def draw(self) -> None:
        console = self.console
        console.clear()
        log = Panel(Group(*self.log), title="last moves", title_align="left", border_style="dim")
        console.print(render_match(self.state, side=log if self.log else None))
        state = self.state
        if state.match.status == api.MATCH_STATUS_WAITING:
            console.print(self.waiting_line())
        elif state.match.status == api.MATCH_STATUS_PLAYING and state.to_move != self.seat.seat:
            console.print(Text.assemble("waiting for ", seat_tag(state.to_move, self.names), " to move…"))

    def waiting_line(self) -> Text:
        """Which seats are still open, and how others (or an AI agent for bot seats) can join."""
        untaken = [info for info in self.state.match.seats if not info.taken]
        kinds = [
            f"bot, {BOT_LEVEL_NAMES.get(info.bot_level, 'medium')}" if info.bot else "open"
            for info in untaken
        ]
        seats = [f"#{info.seat} ({kind})" for info, kind in zip(untaken, kinds, strict=True)]
        text = Text.assemble(("waiting for players: ", "bold yellow"), ", ".join(seats))
        text.append(f"\nmatch {self.state.match.match_id}: others can join with `{self.join_hint}`")
        if any(info.bot for info in untaken):
            text.append("\nbot seats are played by an AI agent: start one with `mercado ai`")
        return text

    def finish(self) -> int:
        result = self.state.view.mercado.result
        me = self.seat.seat
        if result.scores:
            place = f" finished rank {result.ranks[me]} of {len(result.ranks)}"
            line = Text.assemble(seat_tag(me, self.names), place, f" with a score of {result.scores[me]}")
            self.console.print(line)
        if self.commitment:
            check = f"mercado verify {self.seat.match_id} --commitment {self.commitment}"
            self.console.print(Text(f"check that the set-up was fixed before the first move: {check}"))
        return 0

    async def take_turn(self) -> None:
        """Show the menu, read a number (in a thread: the stream keeps flowing) and submit it."""
        choices = menu_choices(self.state)
        self.console.print(render_menu(choices))
        number = await in_daemon_thread(partial(ask_number, self.console, len(choices)))
        try:
            response = await self.seat.act(choices[number - 1].action, self.state.version)
        except grpc.aio.AioRpcError as error:
            self.console.print(f"[bold red]refused:[/] {error_line(error)}")
            if error.code() == grpc.StatusCode.ABORTED:
                self.state = await self.seat.view()
            return
        reply = api.MatchUpdate(version=response.version, seat=self.seat.seat, state=response.state)
        reply.action.CopyFrom(choices[number - 1].action)
        reply.events.extend(response.events)
        self.apply(reply)

    async def arrived(self, wait: bool) -> list[api.MatchUpdate | grpc.aio.AioRpcError | None]:
        """Everything the stream delivered so far; with ``wait``, at least one item."""
        items = [await self.updates.get()] if wait else []
        while not self.updates.empty():
            items.append(self.updates.get_nowait())
        return items

    async def run(self) -> int:
        """Follow the match to its end, drawing after updates and playing our turns."""
        reader = asyncio.create_task(self._read())
        try:
            dirty, wait = True, False
            while True:
                ended, error = False, None
                for item in await self.arrived(wait):
                    if isinstance(item, api.MatchUpdate):
                        dirty = self.apply(item) or dirty
                    else:
                        ended, error = True, item
                if dirty:
                    self.draw()
                    dirty = False
                if self.state.match.status == api.MATCH_STATUS_FINISHED:
                    return self.finish()
                if ended:
                    return self.stream_ended(error)
                wait = not self.my_turn
                if self.my_turn:
                    version = self.state.version
                    await self.take_turn()
                    dirty = self.state.version != version
        finally:
            reader.cancel()

    def stream_ended(self, error: grpc.aio.AioRpcError | None) -> int:
        reason = error_line(error) if error is not None else "the server closed the stream"
        self.console.print(f"[bold red]lost the match stream:[/] {reason}")
        return 1


async def play(options: PlayOptions, console: Console) -> int:
    """Create or join a match and play it to the end; returns the exit status."""
    async with options.server.connect() as client:
        try:
            match_id, seat_number = options.match_id, options.seat
            if match_id is None:
                seats: list[str | None] = [None, *options.bots]
                players = options.players or max(2, len(seats))
                match_id = await client.create_match(players, seats, options.money, options.seed)
                seat_number = 0
                console.print(Text.assemble("created match ", (match_id, "bold")))
            seat = await client.join(match_id, options.name, seat_number)
            state = await seat.view()
        except grpc.aio.AioRpcError as error:
            console.print(f"[bold red]cannot start:[/] {error_line(error)} (server {options.server})")
            return 1
        hint = f"mercado play --match {match_id}"
        if options.server.target != DEFAULT_SERVER:
            hint = f"mercado play --server {options.server} --match {match_id}"
        try:
            return await Session(console, seat, state, hint).run()
        except InputClosed:
            console.print("[bold red]input closed before the game ended[/]: leaving the match")
            return 1

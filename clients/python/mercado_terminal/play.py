"""``mercado play``: play one match in the terminal against people or bots.

Connects and signs in as the guest player this terminal keeps for the server
(``players.py``; created the first time), creates or joins a match, queues for
one (``--quick``, matchmaking) or resumes one held in the seat file, follows
its event stream and redraws the board after every update; on the player's
turn it shows the legal actions as a two-step numbered menu and submits the
chosen one. Every seat taken is kept in the seat file (``held.py``) until its
match ends, so that ``mercado play --resume`` can take it up again after the
terminal closed. Signing in is in ``signin.py``, queueing in ``quick.py``,
resuming in ``resume.py``; what they share with this module, in ``common.py``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

import grpc
from mercado.v1 import match_pb2 as api
from mercado_client.client import Endpoint, MercadoClient, Seat
from mercado_client.games import game_name
from mercado_client.wire import BOT_LEVEL_NAMES
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from .board import bot_text, clock_line, clock_time, seat_info, seat_names, seat_tag, time_left_ms
from .boards import board_for, movers
from .boards.base import RESIGN, GroupLike
from .common import (
    CANCELLED,
    DEFAULT_SERVER,
    FINISHED,
    PLAYING,
    InputClosed,
    PlayOptions,
    error_line,
    error_text,
    reclaimable,
)
from .held import DataFileError, HeldSeat, SeatFile, SeatFileError, default_path
from .interrupt import signals_wake
from .menu import BACK
from .narrate import seat_changes
from .players import PlayerFile
from .players import default_path as default_players_path
from .quick import NoMatch, quick, rating_after
from .resume import keep_seat, resume
from .screen import Log, Parts, Window
from .signin import Identity, introduce, rating_text, sign_in

T = TypeVar("T")
LOG_LINES = 8
SEATS_FILE_ENV = "MERCADO_SEATS_FILE"  # as --seats-file (server/cli/play.py)
PLAYERS_FILE_ENV = "MERCADO_PLAYERS_FILE"  # as --players-file
WARN_MS = 15_000  # on your turn, say so when this much time is left


class Resigned(Exception):
    """The player gave their seat up (LeaveMatch)."""


# --- standard input --------------------------------------------------------------------------------


async def in_daemon_thread(function: Callable[[], T]) -> T:
    """Like ``asyncio.to_thread``, but in a daemon thread: a blocked read can't hold up Ctrl-C.

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


@dataclass(frozen=True)
class Line:
    """One line typed (or piped) in; None at the end of input."""

    text: str | None


@dataclass(frozen=True)
class StreamEnded:
    """The match stream ended: with an error, or (None) because the server closed it."""

    error: grpc.aio.AioRpcError | None


class Resized:
    """The terminal window was resized."""


RESIZED = Resized()
Item = api.MatchUpdate | StreamEnded | Line | Resized


class LineReader:
    """Lines of standard input, read only when asked for, one at a time, in a daemon thread.

    It reads the file descriptor itself (no buffered reader whose lock a blocked thread would
    hold at exit), keeping what it read beyond the line for the next one.
    """

    def __init__(self) -> None:
        fd: int | None
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is an OSError
            fd = None  # a stand-in for standard input (click's test runner): read it as text
        self.fd = fd
        self.interactive = fd is not None and os.isatty(fd)
        self.buffer = b""
        self.ended = False
        self.busy = False

    def _read_line(self) -> str | None:
        if self.fd is None:
            line = sys.stdin.readline()
            return line.rstrip("\r\n") if line else None
        while b"\n" not in self.buffer and not self.ended:
            chunk = os.read(self.fd, 4096)
            self.ended = not chunk
            self.buffer += chunk
        if not self.buffer:
            return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def discard_typeahead(self) -> None:
        """Forget what was typed before the question it would answer was shown (a terminal only)."""
        if self.interactive and self.fd is not None:
            with suppress(ImportError, OSError):
                import termios

                termios.tcflush(self.fd, termios.TCIFLUSH)

    def request(self, inbox: asyncio.Queue[Item]) -> None:
        """Read the next line into ``inbox`` (as a Line), unless a read is already under way."""
        if self.busy:
            return
        self.busy = True

        async def read() -> None:
            try:
                text = await in_daemon_thread(self._read_line)
            finally:
                self.busy = False
            inbox.put_nowait(Line(text))

        task = asyncio.get_running_loop().create_task(read())
        _background.add(task)
        task.add_done_callback(_background.discard)

    async def line(self) -> str | None:
        inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.request(inbox)
        while not isinstance(item := await inbox.get(), Line):
            pass
        return item.text


_background: set[asyncio.Task[None]] = set()


def command_hint(
    server: Endpoint,
    *arguments: str,
    seats_file: Path | None = None,
    players_file: Path | None = None,
    kept_as: str = "",
) -> str:
    """A ``mercado play`` command line for the same server (and seat and player files, and player)."""
    words = ["mercado", "play"]
    if server.target != DEFAULT_SERVER:
        words += ["--server", server.target]
    if server.ca_file is not None:
        words += ["--ca-file", str(server.ca_file)]
    elif server.tls:
        words.append("--tls")
    if seats_file is not None and seats_file not in (
        default_path(),
        Path(os.environ.get(SEATS_FILE_ENV, ".")),
    ):
        words += ["--seats-file", str(seats_file)]
    if players_file is not None and players_file not in (
        default_players_path(seats_file),
        Path(os.environ.get(PLAYERS_FILE_ENV, ".")),
    ):
        words += ["--players-file", str(players_file)]
    if kept_as:
        words += ["--as", shlex.quote(kept_as)]
    return " ".join([*words, *arguments])


# --- one seat's game ----------------------------------------------------------------------------------


class Session:
    """One seat's game: the latest state, the move log, the menu and the prompts."""

    def __init__(
        self,
        console: Console,
        seat: Seat,
        state: api.MatchState,
        options: PlayOptions,
        reader: LineReader,
        held: SeatFile,
        identity: Identity | None = None,
    ) -> None:
        self.console = console
        self.seat = seat
        self.state = state
        self.options = options
        self.reader = reader
        self.held = held
        self.identity = identity  # the player the seat is bound to; None for anonymous play
        # The set-up's commitment as published before the first move: what `mercado verify` checks.
        self.commitment = state.match.seed_commitment
        self.log: deque[Text] = deque(maxlen=LOG_LINES)
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        # The stream starts a few actions back, so that the log shows the last moves (on resuming too).
        self.followed_after = max(0, state.version - LOG_LINES)
        self.narrated = self.followed_after  # the actions up to this version are in the log
        self.board = board_for(state)  # the game's screen: board, menu, narration
        self.groups: Sequence[GroupLike] = []
        self.group: GroupLike | None = None  # the second step's group, while choosing where
        self.confirming = False  # asking whether to resign
        self.step_key: tuple[str, list[api.Action]] | None = None  # the question the menu steps belong to
        self.spare: deque[str] = deque()  # lines read and not yet taken, each for the next question
        self.input_ended = False
        self.warned: int | None = None  # the version whose time warning was given
        # A terminal window is drawn in place, fitted to its size; anything else gets a log.
        in_window = console.is_terminal and reader.interactive
        self.screen: Window | Log = Window(console) if in_window else Log(console)

    @property
    def names(self) -> list[str]:
        return seat_names(self.state)

    @property
    def entry(self) -> HeldSeat:
        seat = self.seat
        return HeldSeat(
            self.options.server.target, seat.match_id, seat.seat, seat.seat_token or seat.token, self.my_name
        )

    @property
    def my_name(self) -> str:
        info = seat_info(self.state, self.seat.seat)
        return info.display_name if info is not None and info.display_name else self.options.name

    @property
    def resume_hint(self) -> str:
        return command_hint(
            self.options.server,
            "--resume",
            self.seat.match_id,
            seats_file=self.options.seats_file,
            players_file=self.options.players_file,
            kept_as=self.options.kept_as,
        )

    @property
    def my_turn(self) -> bool:
        state = self.state
        return (
            state.match.status == PLAYING and self.seat.seat in movers(state) and len(state.legal_actions) > 0
        )

    def mode(self) -> str:
        """'move' (our turn), 'reclaim' (the AI plays our seat after a timeout) or 'watch'."""
        if self.state.match.status != PLAYING:
            return "watch"
        if reclaimable(seat_info(self.state, self.seat.seat)):
            return "reclaim"
        return "move" if self.my_turn else "watch"

    # --- updates --------------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for update in self.seat.follow(self.followed_after):
                self.inbox.put_nowait(update)
            self.inbox.put_nowait(StreamEnded(None))
        except grpc.aio.AioRpcError as error:
            self.inbox.put_nowait(StreamEnded(error))

    def apply(self, update: api.MatchUpdate) -> bool:
        """Take in an update: narrate an action not yet narrated, keep the state if newer; True if
        anything shown changed. An action's update (with the seat that acted; another's sealed choice
        comes without the action itself) is newer only with a greater version; the match as it stands
        (no seat: seats, clocks, status) also at the same version."""
        changed = False
        action = update.HasField("seat")
        if action and update.version > self.narrated:
            self.log.extend(self.board.update_lines(update, seat_names(update.state)))
            self.narrated = update.version
            changed = True
        if update.version > self.state.version or (not action and update.version == self.state.version):
            previous, self.state = self.state, update.state
            self.log.extend(seat_changes(self.state, self.names, previous))
            changed = True
        return changed

    async def arrived(self, wait: bool, timeout: float | None) -> list[Item]:
        """Everything that arrived so far; with ``wait``, at least one item unless ``timeout`` passes."""
        items: list[Item] = []
        if wait:
            # Not asyncio.wait_for: on Python 3.11 it drops a cancellation (Ctrl-C) that arrives as
            # an item does.
            with suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    items.append(await self.inbox.get())
        while not self.inbox.empty():
            items.append(self.inbox.get_nowait())
        return items

    # --- drawing --------------------------------------------------------------------------------

    def draw(self) -> None:
        """The match as it stands (the question about it, if any, follows)."""
        log = Panel(Group(*self.log), title="last moves", title_align="left", border_style="dim")
        boards = [self.board.render(self.state, side=log if self.log else None)]
        if self.screen.drawn_in_place:
            boards += self.board.compact(self.state)
        last = [Text.assemble(("· ", "dim"), line) for line in self.log]
        self.screen.match(Parts(boards, last, self.seat_lines()))

    def seat_lines(self) -> list[tuple[Text, bool]]:
        """Under the board: who plays, whom the seat waits for or what became of it, the clock; each
        with whether a small window may leave it out."""
        state = self.state
        lines = [(self.you_line(), True)] if self.identity is not None else []
        if state.match.status == api.MATCH_STATUS_WAITING:
            lines.append((self.waiting_line(), False))
        elif state.match.status == PLAYING:
            line = self.seat_state_line()
            if line is not None:
                lines.append((line, False))
            clock = clock_line(state)
            if clock is not None:
                lines.append((clock, True))
        return lines

    def seat_state_line(self) -> Text | None:
        """What became of the seat (forfeited, left, played by the AI), or whom it waits for."""
        state = self.state
        info = seat_info(state, self.seat.seat)
        if info is not None and info.forfeited:
            return Text("your seat forfeited: it ranks last, and the AI plays its turns", "bold red")
        if info is not None and info.left:
            return Text("you left this match: the AI plays your seat", "bold red")
        if reclaimable(info):
            level = BOT_LEVEL_NAMES.get(state.match.time_control.fallback_level, "easy")
            return Text.assemble(
                (f"your time ran out: the AI ({level}) plays your seat. ", "bold red"),
                "Press Enter to take it back.",
            )
        if self.seat.seat in movers(state):
            return None
        line = self.board.waiting_text(state, self.seat.seat, self.names)
        left = time_left_ms(state)
        if left is not None:
            line.append(f" ({clock_time(left)} left)", "dim")
        return line

    def you_line(self) -> Text:
        """Who the terminal plays as, with the player's rating, and whether the match counts for it."""
        assert self.identity is not None
        profile = self.identity.profile
        rated = "rated match" if self.state.match.rated else "unrated match"
        return Text.assemble(
            ("you: ", "dim"),
            seat_tag(self.seat.seat, self.names),
            " · rating ",
            (rating_text(profile), "bold cyan"),
            (f" · {rated}", "dim"),
        )

    def waiting_line(self) -> Text:
        """Which seats are still open, and how others (or an AI agent for bot seats) can join."""
        untaken = [info for info in self.state.match.seats if not info.taken]
        seats = [f"seat {info.seat + 1} ({bot_text(info) if info.bot else 'open'})" for info in untaken]
        text = Text.assemble(("waiting for players: ", "bold yellow"), ", ".join(seats))
        if any(not info.bot for info in untaken):  # seats people may take
            join = command_hint(self.options.server, "--match", self.seat.match_id)
            text.append(
                f"\nmatch {self.state.match.match_id}: others can join with `{join}` "
                "(someone at this computer adds `--as NAME`)"
            )
        if any(info.bot for info in untaken):
            text.append("\nbot seats are played by an AI agent: start one with `mercado ai`")
        return text

    def time_note(self) -> Text:
        """The time left, after a question (a window has it on its status line already)."""
        left = time_left_ms(self.state, seat=self.seat.seat)
        if left is None or self.screen.drawn_in_place:
            return Text()
        return Text(f" [{clock_time(left)} left]", "yellow")

    def show_prompt(self, mode: str, full: bool = True) -> None:
        """The current question; with ``full``, the menu it is about too (else the one shown)."""
        me, names = self.seat.seat, self.names
        menus: list[RenderableType] = []
        if mode == "reclaim":
            question = Text("press Enter to take your seat back", "bold")
        elif self.confirming:
            then = (
                "you forfeit and rank last"
                if self.state.match.time_control.on_timeout == api.ON_TIMEOUT_FORFEIT
                else "the AI plays your seat to the end"
            )
            question = Text.assemble(("resign? ", "bold red"), f"{then}; you cannot come back (y/N)")
        elif self.group is None:
            extras = [Text("resign (leave the match for good)", "red")]
            menus = [self.board.render_groups(self.groups, me, names, extras)]
            compact = self.board.compact_groups(self.groups, me, names, extras)
            if compact is not None and self.screen.drawn_in_place:
                menus.append(compact)
            hint = f"({self.board.first_hint(self.groups)})"
            question = Text.assemble(("your move", "bold"), " ", (hint, "cyan"), self.time_note())
        else:
            menus = [self.board.render_targets(self.group, me, names)]
            count = len(self.group.choices)
            example = self.group.choices[0].target
            question = Text.assemble(
                (f"which {self.group.noun}", "bold"),
                " ",
                (f"(1-{count}, or a name like {example}; 0: back)", "cyan"),
                self.time_note(),
            )
        self.screen.ask(menus if full else None, Text.assemble(question, ": "))

    # --- answers --------------------------------------------------------------------------------

    def reset_steps(self, mode: str) -> None:
        """Back to the menu's first step when the question changed: the mode, or on one's turn the
        actions one may take. Another seat's sealed bid leaves the question as it was, so what was
        typed for it stays typed; so does taking the seat back, whatever the AI plays for it meanwhile."""
        key = (mode, list(self.state.legal_actions) if mode == "move" else [])
        if key != self.step_key:
            self.step_key = key
            self.group, self.confirming = None, False
            self.groups = self.board.groups(self.state) if mode == "move" else []
            if mode != "watch":
                self.reader.discard_typeahead()

    def retry(self, mode: str, notice: str) -> bool:
        """An answer that says nothing asked: what to answer instead, and the question again."""
        self.screen.notice(Text(notice, "red"))
        self.show_prompt(mode, full=False)
        return False

    async def answer(self, mode: str, text: str) -> bool:
        """Act on one answer in ``mode``; True when the screen must be drawn again (the state changed),
        False when the question (shown again) is enough."""
        if mode == "reclaim":
            return await self.reclaim()
        if self.confirming:
            self.confirming = False
            if text.strip().lower() in ("y", "yes"):
                return await self.resign()
            self.show_prompt(mode)
            return False
        if self.group is None:
            read = self.board.read(self.groups, text)
            if read is None:
                return self.retry(mode, self.board.misread(self.groups))
            if isinstance(read, api.Action):
                return await self.submit(read)
            if read == RESIGN:
                self.confirming = True
                self.show_prompt(mode)
                return False
            if len(read.choices) == 1:
                return await self.submit(read.choices[0].action)
            self.group = read
            self.show_prompt(mode)
            return False
        picked = self.board.pick_target(self.group, text)
        if picked is None and isinstance(typed := self.board.read(self.groups, text), api.Action):
            return await self.submit(typed)
        if picked is None:
            count = len(self.group.choices)
            noun, example = self.group.noun, self.group.choices[0].target
            return self.retry(
                mode, f"type a number from 1 to {count}, a {noun} like {example}, or 0 to go back"
            )
        if picked == BACK:
            self.group = None
            self.show_prompt(mode)
            return False
        return await self.submit(picked.action)

    async def submit(self, action: api.Action) -> bool:
        try:
            response = await self.seat.act(action, self.state.version)
        except grpc.aio.AioRpcError as error:
            self.screen.notice(Text.assemble(("refused: ", "bold red"), error_text(error)))
            self.state = await self.seat.view()
            self.step_key = None
            return True
        reply = api.MatchUpdate(version=response.version, seat=self.seat.seat, state=response.state)
        reply.action.CopyFrom(action)
        reply.events.extend(response.events)
        self.apply(reply)
        return True

    async def reclaim(self) -> bool:
        try:
            state = await self.seat.reclaim()
        except grpc.aio.AioRpcError as error:
            self.screen.notice(
                Text.assemble(("could not take the seat back: ", "bold red"), error_text(error))
            )
            state = await self.seat.view()
        self.apply(api.MatchUpdate(version=state.version, state=state))
        return True

    async def resign(self) -> bool:
        try:
            await self.seat.leave()
        except grpc.aio.AioRpcError as error:
            self.screen.notice(Text.assemble(("could not resign: ", "bold red"), error_text(error)))
            return False
        raise Resigned

    # --- the loop -------------------------------------------------------------------------------

    def warning_delay(self, mode: str) -> float | None:
        """Seconds until the time warning of our turn is due; None when none is due."""
        left = time_left_ms(self.state, seat=self.seat.seat)
        if mode != "move" or left is None or self.warned == self.state.version:
            return None
        return max(0.0, (left - WARN_MS) / 1000)

    def take_line(self, text: str | None, mode: str) -> None:
        """Keep a line read for the question it answers, in order; at the end of input, note it.

        A line typed at a terminal with no question up is dropped (it answered nothing shown);
        piped lines are all kept, each for the next question.
        """
        if text is None:
            self.input_ended = True
        elif mode == "watch" and self.reader.interactive:
            self.screen.notice(Text("(not your turn: ignored)", "dim"))
        else:
            self.spare.append(text)

    async def run(self) -> int:
        """Follow the match to its end, drawing after updates and asking on our turns."""
        reader = asyncio.create_task(self._read())
        try:
            with self.screen.shown(), self.redrawn_when_resized():
                end = await self._loop()
        finally:
            reader.cancel()
        return end()

    @contextmanager
    def redrawn_when_resized(self) -> Iterator[None]:
        """A window drawn in place is drawn again, to its new size, when it is resized."""
        if not self.screen.drawn_in_place or not hasattr(signal, "SIGWINCH"):
            yield
            return
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGWINCH, self.inbox.put_nowait, RESIZED)
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGWINCH)

    async def _loop(self) -> Callable[[], int]:
        """Play until the match ends or its stream does; what to say then (once the window is left)."""
        dirty, shown, wait, timeout = True, False, False, None
        while True:
            if wait:
                self.screen.flush()
            items = await self.arrived(wait, timeout)
            ended: StreamEnded | None = None
            lines: list[str | None] = []
            for item in items:
                if isinstance(item, api.MatchUpdate):
                    dirty = self.apply(item) or dirty
                elif isinstance(item, StreamEnded):
                    ended = item
                elif isinstance(item, Line):
                    lines.append(item.text)
                else:
                    self.screen.resized()
            if dirty:
                self.draw()
                dirty, shown = False, False
            status = self.state.match.status
            if status == FINISHED:
                return partial(self.finish, self.screen.drawn_in_place)
            if status == CANCELLED:
                return self.cancelled
            if ended is not None:
                return partial(self.stream_ended, ended.error)
            mode = self.mode()
            self.reset_steps(mode)
            for text in lines:
                self.take_line(text, mode)
            if mode == "watch":
                wait, timeout = True, None
                continue
            if not shown:
                self.show_prompt(mode)
                shown = True
            if self.spare:  # one answer at a time: the next is for the question this one leads to
                answer = self.spare.popleft()
                if not self.reader.interactive:
                    self.screen.echo(answer)
                dirty = await self.answer(mode, answer)
                wait, timeout = False, None
                continue
            if self.input_ended:
                raise InputClosed
            self.reader.request(self.inbox)
            delay = self.warning_delay(mode)
            if delay is not None and delay < 0.1:  # the warning is due
                self.warned = self.state.version
                left = time_left_ms(self.state, seat=self.seat.seat) or 0
                opened = "" if self.screen.drawn_in_place else "\n"  # after the prompt printed
                warning = Text.assemble(opened, (f"{clock_time(left)} left", "bold red"))
                self.screen.notice(Text.assemble(warning, ": then the AI plays your seat"))
                self.show_prompt(mode, full=False)
                delay = None
            wait, timeout = True, delay

    # --- the end --------------------------------------------------------------------------------

    def forget(self) -> None:
        """Drop the seat from the seat file: its match is over for it."""
        with suppress(SeatFileError, OSError):
            self.held.remove(self.entry)

    def finish(self, board: bool = False) -> int:
        """The result (with ``board``, the match as it ended first: the window that showed it is gone)."""
        self.forget()
        if board:
            self.console.print(self.board.render(self.state))
        result = self.board.result(self.state)
        me = self.seat.seat
        if result is not None:
            scores, ranks = result
            info = seat_info(self.state, me)
            forfeited = " (forfeited)" if info is not None and info.forfeited else ""
            place = f" finished rank {ranks[me]} of {len(ranks)}{forfeited}"
            line = Text.assemble(seat_tag(me, self.names), place, f" with a score of {scores[me]}")
            self.console.print(line)
        if self.commitment:
            check = f"mercado verify {self.seat.match_id} --commitment {self.commitment}"
            self.console.print(
                Text(f"check that the set-up was fixed before the first move: {check}"), soft_wrap=True
            )
        return 0

    def cancelled(self) -> int:
        self.forget()
        self.console.print("[bold red]the match was cancelled:[/] not every seat was taken in time")
        return 1

    def stream_ended(self, error: grpc.aio.AioRpcError | None) -> int:
        reason = error_line(error) if error is not None else "the server closed the stream"
        self.console.print(f"[bold red]lost the match stream:[/] {reason}")
        self.console.print(f"resume with `{self.resume_hint}`", highlight=False, soft_wrap=True)
        return 1


# --- starting: create or join (or resume, resume.py) ---------------------------------------------


async def start(
    client: MercadoClient,
    held: SeatFile,
    options: PlayOptions,
    console: Console,
    reader: LineReader,
    identity: Identity | None = None,
) -> tuple[Seat, api.MatchState] | None:
    """Create or join a match (keeping the seat in the seat file), or resume a held one. With a
    player (``identity``), the seat is bound to it and played with its credential."""
    if options.resume is not None:
        return await resume(client, held, options, console, reader, identity)
    token = identity.token if identity is not None else None
    match_id, seat_number = options.match_id, options.seat
    if match_id is None:
        seats: list[str | None] = [None, *options.bots]
        players = options.players or max(2, len(seats))
        match_id = await client.create_match(
            players,
            seats,
            options.money,
            options.seed,
            token=token,
            unrated=options.unrated,
            game=options.game,
        )
        seat_number = 0
        console.print(Text.assemble("created match ", (match_id, "bold")))
    # A player joins under its own name (an empty display name).
    seat = await client.join(match_id, "" if identity is not None else options.name, seat_number, token=token)
    keep_seat(held, options, console, seat, identity.name if identity is not None else options.name, identity)
    return seat, await seat.view()


# --- the whole command -----------------------------------------------------------------------------


async def play(options: PlayOptions, console: Console) -> int:
    """Sign in, create, join, queue for or resume a match and play it to the end; returns the exit status."""
    with signals_wake(asyncio.get_running_loop()):  # Ctrl-C, whichever thread receives it
        return await _play(options, console)


async def _play(options: PlayOptions, console: Console) -> int:
    reader = LineReader()
    held = SeatFile(options.seats_file or default_path())
    players = PlayerFile(options.players_file or default_players_path(options.seats_file))
    async with options.server.connect() as client:
        identity: Identity | None = None
        try:
            # Resuming needs no player (a seat token resumes its seat): only one already kept.
            identity = await sign_in(client, players, options, console, create=options.resume is None)
            if identity is not None:
                introduce(identity, options, console)
            if options.quick:
                if identity is None:
                    console.print("[bold red]cannot queue:[/] this server has no players (no matchmaking)")
                    return 1
                started: tuple[Seat, api.MatchState] | None = await quick(
                    client, held, options, console, identity
                )
            else:
                started = await start(client, held, options, console, reader, identity)
        except grpc.aio.AioRpcError as error:
            console.print(f"[bold red]cannot start:[/] {error_line(error)} (server {options.server})")
            return 1
        except DataFileError as error:
            console.print(f"[bold red]cannot start:[/] {escape(str(error))}")
            return 1
        except InputClosed:
            console.print("[bold red]input closed[/]")
            return 1
        except NoMatch as error:
            console.print(f"[bold red]no match:[/] {escape(str(error))}")
            return 1
        if started is None:
            return 1
        seat, state = started
        game = game_name(state.match.game)
        if identity is not None and game != options.game:  # joined or resumed: the match's game's rating
            with suppress(grpc.aio.AioRpcError):
                identity.profile = await client.get_player(token=identity.token, game=game)
        bound = identity is not None and seat.token == identity.token
        session = Session(console, seat, state, options, reader, held, identity if bound else None)
        if state.match.status == FINISHED:  # resumed by its id after it ended
            return session.finish(board=True)
        try:
            status = await session.run()
        except InputClosed:
            console.print(
                f"\n[bold red]input closed before the game ended[/]: resume with `{session.resume_hint}`",
                highlight=False,
                soft_wrap=True,
            )
            return 1
        except grpc.aio.AioRpcError as error:
            console.print(f"\n[bold red]lost the server:[/] {error_line(error)}")
            console.print(f"resume with `{session.resume_hint}`", highlight=False, soft_wrap=True)
            return 1
        except Resigned:
            session.forget()
            console.print(f"\nyou resigned match {seat.match_id}", highlight=False)
            return 0
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels us, then raises KeyboardInterrupt
            hint = f"\nleft the game for now: resume it with `{session.resume_hint}`"
            console.print(hint, highlight=False, soft_wrap=True)
            raise
        if session.identity is not None and session.state.match.status == FINISHED:
            await rating_after(client, session.identity, session.state, console)
        return status

"""The games ``mercado play --resume`` takes up again: the seats kept in the seat file (``held.py``)
and, for a signed-in player, its unfinished seats the server knows of; the one chosen, taken back
from the AI if its time ran out. ``keep_seat`` keeps every seat taken there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import grpc
from mercado.v1 import match_pb2 as api
from mercado_client.client import MercadoClient, Seat
from mercado_client.games import game_name
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from .board import bot_text, clock_time, seat_info, seat_label, seat_names, time_left_ms
from .boards import game_title, movers
from .common import CANCELLED, FINISHED, InputClosed, PlayOptions, error_line, reclaimable
from .held import HeldSeat, SeatFile, SeatFileError
from .menu import parse_number
from .signin import Identity

if TYPE_CHECKING:
    from .play import LineReader


def status_words(state: api.MatchState, seat: int) -> str:
    """A held game's status for the resume list."""
    match = state.match
    if match.status == api.MATCH_STATUS_WAITING:
        open_seats = sum(1 for s in match.seats if not s.taken)
        return f"waiting for {open_seats} more player{'s' if open_seats != 1 else ''}"
    info = seat_info(state, seat)
    if info is not None and info.forfeited:
        return "playing, your seat forfeited"
    if info is not None and info.played_by_ai:
        return "playing, the AI plays your seat (time ran out)"
    names = seat_names(state)
    waiting = movers(state)
    words = (
        "playing, your turn"
        if seat in waiting
        else f"playing, {', '.join(seat_label(s, names) for s in waiting)} to move"
    )
    left = time_left_ms(state)
    return words + (f" ({clock_time(left)} left)" if left is not None else "") + f", version {state.version}"


def opponents(state: api.MatchState, seat: int) -> str:
    names = seat_names(state)
    others = []
    for info in state.match.seats:
        if info.seat == seat:
            continue
        label = seat_label(info.seat, names) if info.taken else f"seat {info.seat + 1} (open)"
        if info.bot:
            label += f" [{bot_text(info)}]"
        others.append(label)
    return ", ".join(others)


def held_token(entry: HeldSeat, identity: Identity | None) -> str:
    """What a held seat acts with: its player's credential when it is bound to the signed-in player
    (a seat token alone otherwise)."""
    if identity is not None and entry.player_id == identity.player_id:
        return identity.token
    return entry.token


async def player_games(
    client: MercadoClient, identity: Identity, options: PlayOptions, known: set[tuple[str, int]]
) -> list[HeldSeat]:
    """The signed-in player's unfinished seats on the server that the seat file does not hold
    (``known``: (match id, seat) pairs): ListMatches of its player id."""
    found: list[HeldSeat] = []
    server = options.server.target
    for status in ("playing", "waiting"):
        page = ""
        while True:
            listed = await client.list_matches(status, 100, page, player_id=identity.player_id)
            for match in listed.matches:
                if options.resume and match.match_id != options.resume:
                    continue
                for info in match.seats:
                    mine = info.player_id == identity.player_id and not info.left
                    if not mine or (match.match_id, info.seat) in known:
                        continue
                    if options.seat is not None and info.seat != options.seat:
                        continue
                    known.add((match.match_id, info.seat))
                    name = info.display_name or identity.name
                    found.append(
                        HeldSeat(server, match.match_id, info.seat, "", name, "", identity.player_id)
                    )
            page = listed.next_page_token
            if not page:
                break
    return found


async def held_games(
    client: MercadoClient,
    held: SeatFile,
    options: PlayOptions,
    console: Console,
    identity: Identity | None = None,
) -> list[tuple[HeldSeat, api.MatchState]]:
    """The held seats of ``options``' server (and match) with their views; drops those whose game is
    over. With a player, also its unfinished seats that the server knows of and the file does not."""
    found = held.held(options.server.target, options.resume or None)
    if options.seat is not None:
        found = [h for h in found if h.seat == options.seat]
    if identity is not None:
        try:
            found += await player_games(client, identity, options, {(h.match_id, h.seat) for h in found})
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT):
                raise
    games: list[tuple[HeldSeat, api.MatchState]] = []
    for entry in found:
        token = held_token(entry, identity)
        try:
            state = await client.view(entry.match_id, token)
        except grpc.aio.AioRpcError as error:
            gone = (
                grpc.StatusCode.NOT_FOUND,
                grpc.StatusCode.UNAUTHENTICATED,
                grpc.StatusCode.PERMISSION_DENIED,
            )
            if error.code() not in gone:
                raise
            console.print(f"[dim]dropped match {escape(entry.match_id)}: {error_line(error)}[/]")
            held.remove(entry)
            continue
        info = seat_info(state, entry.seat)
        status = state.match.status
        if not state.HasField("your_seat") and status not in (FINISHED, CANCELLED):
            # A player's credential in a match where it holds no seat reads it as a spectator.
            console.print(f"[dim]dropped match {escape(entry.match_id)}: your player holds no seat in it[/]")
            held.remove(entry)
            continue
        if status in (FINISHED, CANCELLED) or (info is not None and info.left):
            what = {FINISHED: "it finished", CANCELLED: "it was cancelled"}.get(status, "you left it")
            console.print(f"[dim]dropped match {escape(entry.match_id)}: {what}[/]")
            held.remove(entry)
            if options.resume and status == FINISHED:
                games.append((entry, state))  # asked for by its id: show how it ended
            continue
        games.append((entry, state))
    return games


async def choose_game(
    client: MercadoClient,
    held: SeatFile,
    options: PlayOptions,
    console: Console,
    reader: LineReader,
    identity: Identity | None = None,
) -> tuple[HeldSeat, api.MatchState] | None:
    games = await held_games(client, held, options, console, identity)
    where = f"server {options.server}" + (f", match {options.resume}" if options.resume else "")
    if not games:
        console.print(
            f"[bold red]no unfinished game held[/] on {where} (seat file {held.path})", highlight=False
        )
        return None
    if len(games) == 1:
        return games[0]
    console.print(Text(f"unfinished games held on {where}:", "bold"))
    for number, (entry, state) in enumerate(games, 1):
        names = seat_names(state)
        game = game_name(state.match.game)
        console.print(
            Text.assemble(
                (f"{number:>3} ", "bold cyan"),
                (entry.match_id, "bold"),
                "" if game == "mercado" else f"  {game_title(game)},",
                f"  {status_words(state, entry.seat)}\n      you: {seat_label(entry.seat, names)}",
                f"; against: {opponents(state, entry.seat) or '-'}",
            )
        )
    while True:
        console.print(
            Text.assemble(("resume which game", "bold"), " ", (f"(1-{len(games)})", "cyan"), ": "), end=""
        )
        text = await reader.line()
        if text is None:
            raise InputClosed
        picked = parse_number(text, len(games))
        if picked is not None:
            return games[picked - 1]
        console.print(f"[red]type a number from 1 to {len(games)}[/]")


async def resume(
    client: MercadoClient,
    held: SeatFile,
    options: PlayOptions,
    console: Console,
    reader: LineReader,
    identity: Identity | None = None,
) -> tuple[Seat, api.MatchState] | None:
    """The held seat chosen, taken back from the AI if it timed out; None when there is none."""
    chosen = await choose_game(client, held, options, console, reader, identity)
    if chosen is None:
        return None
    entry, state = chosen
    seat = Seat(client, entry.match_id, entry.seat, held_token(entry, identity), entry.token)
    if state.match.status == FINISHED:
        return seat, state
    you = seat_label(entry.seat, seat_names(state))
    console.print(Text.assemble("resuming match ", (entry.match_id, "bold"), f" as {you}"))
    if reclaimable(seat_info(state, entry.seat)):
        try:
            state = await seat.reclaim()
            console.print("took your seat back from the AI that played it since your time ran out")
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            console.print(f"[bold red]could not take the seat back:[/] {error_line(error)}")
            state = await seat.view()
    return seat, state


def keep_seat(
    held: SeatFile, options: PlayOptions, console: Console, seat: Seat, name: str, identity: Identity | None
) -> None:
    """Keep a seat just taken in the seat file, so that the game can be resumed."""
    player_id = identity.player_id if identity is not None else ""
    entry = HeldSeat(options.server.target, seat.match_id, seat.seat, seat.seat_token, name, "", player_id)
    try:
        held.add(entry)
    except (SeatFileError, OSError) as error:
        reason = escape(str(error))
        console.print(f"[bold red]this game cannot be resumed:[/] keeping its seat failed: {reason}")

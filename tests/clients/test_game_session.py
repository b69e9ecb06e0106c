"""``mercado play``'s session with Oregano and Leilão: the same loop as Mercado's, drawing the game's
board, asking on the seat's own turn (in Leilão: until it has bid) and submitting the chosen Action."""

from __future__ import annotations

import os
import select
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json, action_message
from mercado_terminal.common import PlayOptions
from mercado_terminal.held import SeatFile
from mercado_terminal.play import LineReader, Session
from rich.console import Console
from rules_screens import match_state, played

from server.games.registry import game_named


@dataclass
class FakeSeat:
    """A seat whose submissions the engine applies at once, as the server would."""

    game: str
    state: Any
    seat: int
    match_id: str = "m1"
    token: str = "t"
    seat_token: str = "t"
    acted: list[dict[str, Any]] = field(default_factory=list)

    async def act(self, action: api.Action, version: int | None = None) -> api.SubmitActionResponse:
        data = action_json(action)
        self.acted.append(data)
        rules = game_named(self.game)
        rules.apply(self.state, self.seat, rules.action_from_json(data))
        return api.SubmitActionResponse(version=(version or 0) + 1, state=await self.view())

    async def view(self) -> api.MatchState:
        return match_state(self.game, self.state, self.seat, version=10 + len(self.acted))


def session(game: str, state: Any, seat: int, tmp_path: Path) -> tuple[Session, FakeSeat, Console]:
    fake = FakeSeat(game, state, seat)
    console = Console(record=True, width=140, color_system=None)
    made = Session(
        console,
        fake,  # type: ignore[arg-type]
        match_state(game, state, seat),
        PlayOptions(),
        LineReader(),
        SeatFile(tmp_path / "seats.json"),
    )
    return made, fake, console


async def test_a_leilao_bid_typed_out_is_submitted_then_the_seat_waits(tmp_path: Path) -> None:
    state = played("leilao", players=3, steps=0, seed=2)
    made, fake, console = session("leilao", state, 1, tmp_path)
    made.draw()
    mode = made.mode()
    assert mode == "move"
    made.reset_steps(mode)
    made.show_prompt(mode)
    assert "your move (a card like 1, 1 20 with an extra card, or resign)" in console.export_text(clear=False)
    assert await made.answer(mode, "11 4")  # the card's number, then the extra card's
    assert fake.acted == [{"type": "bid", "card": 11, "extra": 4}]
    made.draw()
    screen = console.export_text()
    assert "you have bid; waiting for ada (seat 1), carmen (seat 3) to bid…" in screen
    assert "sealed 11 + extra 4 (only you see it)" in screen
    assert made.mode() == "watch"


async def test_an_oregano_action_by_number_then_cell(tmp_path: Path) -> None:
    rules = game_named("oregano")
    state = played("oregano", players=2, steps=0, seed=3)
    (seat,) = rules.to_move(state)
    made, fake, console = session("oregano", state, seat, tmp_path)
    mode = made.mode()
    made.reset_steps(mode)
    made.show_prompt(mode)
    menu = console.export_text()
    assert " 1 start with a lumber merchant: 4 cells  free" in menu
    assert not await made.answer(mode, "1")  # the first entry groups four cells: which one?
    assert "start with a lumber merchant: 4 cells  free — which cell?" in console.export_text(clear=False)
    assert not await made.answer(mode, "9")
    assert "type a number from 1 to 4, a cell like 1a, or 0 to go back" in console.export_text(clear=False)
    assert await made.answer(mode, "1c")
    assert fake.acted == [{"type": "choose_start_shop", "shop": "lumber_merchant", "cell": "1c"}]
    assert made.state.legal_actions == []  # the other seat sets up next


async def test_a_bad_first_answer_says_what_may_be_typed(tmp_path: Path) -> None:
    state = played("oregano", players=2, steps=0, seed=3)
    (seat,) = game_named("oregano").to_move(state)
    made, fake, console = session("oregano", state, seat, tmp_path)
    made.reset_steps("move")
    assert not await made.answer("move", "sing")
    assert (
        "type a number from 1 to 4, or an action like choose_start_shop stone_merchant 1a"
        in console.export_text()
    )
    assert await made.answer("move", "choose_start_shop stone_merchant 1d")
    assert fake.acted == [{"type": "choose_start_shop", "shop": "stone_merchant", "cell": "1d"}]
    assert action_message("oregano", fake.acted[0]).oregano.choose_start_shop.cell == "1d"


def _typed(fd: int, wait: float) -> bool:
    """Whether a line typed at terminal ``fd`` waits to be read (looked for up to ``wait`` s)."""
    return bool(select.select([fd], [], [], wait)[0])


def test_an_enter_to_take_the_seat_back_outlives_the_ais_moves(tmp_path: Path) -> None:
    """The AI may act for the seat again as its player presses Enter to take it back: the question is
    the same, so the Enter stays typed. The player's own turn is a new question: what was typed
    before it goes."""
    made, _, _ = session("oregano", played("oregano", players=2, steps=0), 0, tmp_path)
    controller, terminal = os.openpty()
    try:
        made.reader.fd, made.reader.interactive = terminal, True
        made.reset_steps("reclaim")
        os.write(controller, b"\n")
        assert _typed(terminal, 5.0)
        made.state.version += 1  # the AI acted for the seat
        made.reset_steps("reclaim")
        assert _typed(terminal, 0.0)
        made.state.version += 1
        made.reset_steps("move")
        assert not _typed(terminal, 0.2)
    finally:
        os.close(controller)
        os.close(terminal)


def test_the_join_hint_is_shown_only_while_a_seat_for_people_is_open(tmp_path: Path) -> None:
    made, _, _ = session("leilao", played("leilao", players=3, steps=0), 0, tmp_path)
    seats = made.state.match.seats
    made.state.match.status = api.MATCH_STATUS_WAITING
    seats[1].taken, seats[2].taken, seats[2].bot = False, False, True
    hint = made.waiting_line().plain
    assert "waiting for players: seat 2 (open), seat 3 (bot, medium)" in hint
    assert (
        "m1: others can join with `mercado play --match m1` (someone at this computer adds `--as NAME`)"
        in hint
    )
    seats[1].taken = True  # only the bot's seat is left: nobody else can join
    hint = made.waiting_line().plain
    assert "others can join" not in hint
    assert "bot seats are played by an AI agent: start one with `mercado ai`" in hint

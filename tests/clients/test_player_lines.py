"""What the terminal shows of a player and of the matchmaking queue (no server)."""

from __future__ import annotations

from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_api
from mercado_terminal.quick import QueueLine, rivals
from mercado_terminal.signin import player_line


def test_a_players_line_has_its_display_rating_and_record() -> None:
    new = players_api.Player(display_name="ada", rating=players_api.Rating(mu=25, sigma=25 / 3))
    assert player_line(new).plain == "ada · rating 0.0 · 0 rated matches"
    seasoned = players_api.Player(
        display_name="bo\u202eb", rating=players_api.Rating(display=12.345), rated_matches=1, wins=1
    )
    assert player_line(seasoned).plain == "bo\ufffdb · rating 12.3 · 1 rated match, 1 win"


def test_the_queue_line_counts_the_wait_from_the_servers_figure() -> None:
    line = QueueLine(players=3, allow_ai=True, started=0.0)
    assert line.text().plain.startswith("looking for a 3-player match · waited ")
    line.note(api.Queued(waited_ms=65_400, queued_players=2, rating_window=4.25))
    assert line.text().plain == "looking for a 3-player match · waited 1:05 · 2 queued · rating window ±4.2"
    line.received -= 10  # ten seconds later, before the next Queued
    assert "waited 1:15" in line.text().plain


def test_the_rivals_of_a_made_match_name_the_ai_of_a_bot_seat_not_yet_taken() -> None:
    state = api.MatchState()
    state.match.players = 3
    state.match.seats.add(seat=0, taken=True, display_name="ada")
    state.match.seats.add(seat=1, taken=True, display_name="bo")
    state.match.seats.add(seat=2, bot=True, bot_level=api.BOT_LEVEL_HARD)
    assert rivals(state, 0) == "bo (seat 2), Hard AI"

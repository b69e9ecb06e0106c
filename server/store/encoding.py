"""How matches, seats and players are written as columns, the same in every backend."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.games.registry import game_named

from .records import CANCELLED, MatchRecord, PlayerRecord, QueuedRecord, SeatRecord, TimeControl

# The columns a match is read from, in the order match_record takes them; its version is computed.
MATCH_COLUMNS = (
    "match_id, game, options, seed, created_ms, salt, seed_chosen, clock, status, hot_seat, unrated, rating,"
    " changes"
)
SEAT_COLUMNS = (
    "seat, bot_level, display_name, token_hash, played_by, reserve_ms, player_id, ai_turns, request_hash"
)
QUEUED_COLUMNS = "player_id, display_name, rating, players, allow_ai, since_ms, match_id, seat, game"
# A player with its rating in one game (players p, ratings r), in player_record's order.
PLAYER_COLUMNS = "p.player_id, p.kind, p.display_name, p.created_ms, r.mu, r.sigma, r.rated_matches, r.wins"
# A player (parameters: new_player_row), or a new name for one stored already.
SAVE_PLAYER = (
    "INSERT INTO players (player_id, kind, display_name, created_ms) VALUES ({0})"
    " ON CONFLICT (player_id) DO UPDATE SET display_name = excluded.display_name"
)
# A rating in a game (parameters: rating_row): added, or replacing the stored one when that has
# counted {1} rated matches (filled in below).
_SAVE_RATING = (
    "INSERT INTO ratings (player_id, game, mu, sigma, rating, rated_matches, wins) VALUES ({0})"
    " ON CONFLICT (player_id, game) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
    " rating = excluded.rating, rated_matches = excluded.rated_matches, wins = excluded.wins"
    " WHERE ratings.rated_matches = {1}"
)
# A rating one match further on than the stored one (none stored: the default, of no match); a
# calibration, which applies until the first rated match.
RECORD_RATING = _SAVE_RATING.replace("{1}", "excluded.rated_matches - 1")
CALIBRATE = _SAVE_RATING.replace("{1}", "0")


@functools.lru_cache(maxsize=65536)  # a game has few distinct actions: most are stored again and again
def action_text(game: str, action: Any) -> str:
    """An action of ``game`` as stored: its JSON (docs/positions.md)."""
    return json.dumps(game_named(game).action_to_json(action))


@functools.lru_cache(maxsize=65536)
def action_of(game: str, text: str) -> Any:
    return game_named(game).action_from_json(json.loads(text))


def options_text(options: Mapping[str, Any]) -> str:
    return json.dumps(dict(options))


def clock_text(clock: TimeControl | None) -> str | None:
    return None if clock is None else json.dumps(clock.to_json())


def seat_values(seat: SeatRecord) -> tuple[Any, ...]:
    """A seat's columns, in SEAT_COLUMNS' order."""
    return (
        seat.seat,
        seat.bot_level,
        seat.display_name,
        seat.token_hash,
        seat.played_by,
        seat.reserve_ms,
        seat.player_id,
        seat.ai_turns,
        seat.request_hash,
    )


def match_record(row: Sequence[Any], seats: list[SeatRecord]) -> tuple[MatchRecord, str | None]:
    """A match from a row of MATCH_COLUMNS and its seats, with its stored status."""
    match_id, game, options, seed, created_ms, salt, chosen, clock, status, hot_seat, unrated, *rest = row
    rating, changes = rest
    record = MatchRecord(
        match_id,
        game_named(game).options(json.loads(options)),
        int(seed),
        created_ms,
        seats,
        game,
        bytes(salt),
        bool(chosen),
        None if clock is None else TimeControl(**json.loads(clock)),
        status == CANCELLED,
        bool(hot_seat),
        bool(unrated),
        rating,
        changes,
    )
    return record, status


def seats_by_match(rows: Iterable[Sequence[Any]]) -> dict[str, list[SeatRecord]]:
    """Rows of (match_id, *SEAT_COLUMNS) grouped by match, in the order given."""
    seats: dict[str, list[SeatRecord]] = {}
    for match_id, *seat in rows:
        seats.setdefault(match_id, []).append(SeatRecord(*seat))
    return seats


def new_player_row(player: PlayerRecord) -> tuple[Any, ...]:
    """SAVE_PLAYER's parameters."""
    return (player.player_id, player.kind, player.display_name, player.created_ms)


def rating_row(player: PlayerRecord) -> tuple[Any, ...]:
    """RECORD_RATING's and CALIBRATE's parameters: the player's rating in its game."""
    p = player
    return (p.player_id, p.game, p.mu, p.sigma, p.display_rating, p.rated_matches, p.wins)


def player_record(row: Sequence[Any], game: str) -> PlayerRecord:
    """A player from a row of PLAYER_COLUMNS; the default rating when it has none in ``game``."""
    player_id, kind, name, created_ms, mu, sigma, rated_matches, wins = row
    if mu is None:
        return PlayerRecord(player_id, kind, name, created_ms, game=game)
    return PlayerRecord(player_id, kind, name, created_ms, mu, sigma, rated_matches, wins, game)


def queued_record(row: Sequence[Any]) -> QueuedRecord:
    """A queued player from a row of QUEUED_COLUMNS."""
    player_id, name, rating, players, allow_ai, since_ms, match_id, seat, game = row
    return QueuedRecord(player_id, name, rating, players, bool(allow_ai), since_ms, match_id, seat, game)


# An INSERT of a queued player (parameters: enqueue_values), or one queued again once its earlier
# entry went stale (seen before the ninth parameter).
ENQUEUE = (
    "INSERT INTO queue (player_id, display_name, rating, players, allow_ai, since_ms, seen_ms, game)"
    " VALUES ({0}) ON CONFLICT (player_id) DO UPDATE SET display_name = excluded.display_name,"
    " rating = excluded.rating, players = excluded.players, allow_ai = excluded.allow_ai,"
    " since_ms = excluded.since_ms, seen_ms = excluded.seen_ms, game = excluded.game, claimed_ms = 0,"
    " match_id = NULL, seat = NULL WHERE queue.seen_ms < {1}"
)


def enqueue_values(seeker: QueuedRecord) -> tuple[Any, ...]:
    s = seeker
    return (s.player_id, s.display_name, s.rating, s.players, s.allow_ai, s.since_ms, s.since_ms, s.game)

"""A database holding many matches, written straight into the store's schema, for the benchmarks and
tests of a server with a long history.

Of every ten matches, seven are finished (a whole game of random legal moves), two wait for
players (one of them with an open bot seat) and one is in play halfway. The games are a few
hundred distinct ones, each stored under many match ids: real matches, made quickly.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from server.games.mercado import Action, Options, apply_unchecked, legal_actions, new_game
from server.store.encoding import action_text
from server.store.records import FINISHED, PLAYING, UNRATED, WAITING
from server.store.schema import migrate

DISTINCT_GAMES = 200
KINDS = [FINISHED] * 7 + [WAITING, "waiting-for-a-bot", PLAYING]
TOKEN_PREFIX = "filled-token-"


def random_game(seed: int) -> list[tuple[int, Action]]:
    """A whole 2-player game of random legal moves, as (seat, action)."""
    rng = random.Random(seed)
    state = new_game(Options(players=2), seed)
    played = []
    while not state.is_terminal:
        actions = legal_actions(state)
        action = actions[rng.randrange(len(actions))]
        played.append((state.current_player, action))
        apply_unchecked(state, action)
    return played


# Per kind: each seat's reservation (a bot level or None) and whether it is taken.
SEATS: dict[str, list[tuple[str | None, bool]]] = {
    FINISHED: [(None, True), (None, True)],
    PLAYING: [(None, True), (None, True)],
    WAITING: [(None, True), (None, False)],
    "waiting-for-a-bot": [("easy", False), (None, True)],
}


def token_hash(match_number: int, seat: int) -> str:
    """The stored hash of the seat token ``f"{TOKEN_PREFIX}{match_number}-{seat}"`` (not a real token)."""
    return hashlib.sha256(f"{TOKEN_PREFIX}{match_number}-{seat}".encode()).hexdigest()


@dataclass
class Filled:
    """What was stored, by kind: match ids in order of creation."""

    ids: dict[str, list[str]] = field(default_factory=dict)


def fill(path: Path, matches: int, start_ms: int = 1_700_000_000_000) -> Filled:
    """Write ``matches`` 2-player matches into the database at ``path`` (created if missing)."""
    games = [random_game(seed) for seed in range(min(DISTINCT_GAMES, matches))]
    options = json.dumps(Options(players=2).to_json())
    filled = Filled({kind: [] for kind in KINDS})
    match_rows, seat_rows, action_rows = [], [], []
    for number in range(matches):
        kind = KINDS[number % len(KINDS)]
        game = number % len(games)
        match_id = hashlib.md5(f"filled-{number}".encode()).hexdigest()  # 32 hex, like uuid4().hex
        filled.ids[kind].append(match_id)
        status = WAITING if kind.startswith("waiting") else kind
        # Anonymous matches: none of them counts for the ratings.
        match_rows.append(
            (match_id, "mercado", options, str(game), start_ms + number, status, b"", 0, 1, UNRATED)
        )
        for seat, (bot, taken) in enumerate(SEATS[kind]):
            hashed = token_hash(number, seat) if taken else None
            seat_rows.append((match_id, seat, bot, f"player {seat}" if taken else "", hashed))
        moves = {FINISHED: games[game], PLAYING: games[game][: len(games[game]) // 2]}.get(kind, [])
        action_rows += [
            (match_id, v, seat, action_text("mercado", action), f"r{v}")
            for v, (seat, action) in enumerate(moves, start=1)
        ]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    migrate(db)
    db.execute("BEGIN")
    columns = "match_id, game, options, seed, created_ms, status, salt, seed_chosen, unrated, rating"
    db.executemany(f"INSERT INTO matches ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", match_rows)
    db.executemany(
        "INSERT INTO seats (match_id, seat, bot_level, display_name, token_hash) VALUES (?, ?, ?, ?, ?)",
        seat_rows,
    )
    db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?)", action_rows)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return filled

"""The SQLite schema, as numbered migrations applied in order at start (``PRAGMA user_version``).

A database is never changed by hand: a change of schema is a new entry at the end of MIGRATIONS.
"""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[str] = [
    # 1: matches, seats (token hashes only) and actions.
    """
    CREATE TABLE IF NOT EXISTS matches (
        match_id   TEXT PRIMARY KEY,
        game       TEXT NOT NULL,
        options    TEXT NOT NULL,
        seed       TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS seats (
        match_id     TEXT NOT NULL REFERENCES matches(match_id),
        seat         INTEGER NOT NULL,
        bot_level    TEXT,
        display_name TEXT NOT NULL,
        token_hash   TEXT,
        PRIMARY KEY (match_id, seat)
    );
    CREATE TABLE IF NOT EXISTS actions (
        match_id   TEXT NOT NULL REFERENCES matches(match_id),
        version    INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        action     TEXT NOT NULL,
        request_id TEXT NOT NULL,
        PRIMARY KEY (match_id, version),
        UNIQUE (match_id, request_id)
    );
    """,
    # 2: what listings, bot-seat claims and token lookups search by, so that none of them scans
    # every match; the seed's salt for its commitment. A match stored before has no salt, and its
    # status is NULL until the server classifies it (unless a seat is open: then it is waiting).
    """
    ALTER TABLE matches ADD COLUMN status TEXT;
    ALTER TABLE matches ADD COLUMN salt BLOB NOT NULL DEFAULT x'';
    ALTER TABLE matches ADD COLUMN seed_chosen INTEGER NOT NULL DEFAULT 0;
    UPDATE matches SET status = 'waiting'
        WHERE EXISTS (SELECT 1 FROM seats s WHERE s.match_id = matches.match_id AND s.token_hash IS NULL);
    CREATE INDEX matches_by_status ON matches(status, created_ms, match_id);
    CREATE INDEX matches_by_age ON matches(created_ms, match_id);
    CREATE INDEX seats_by_token ON seats(token_hash) WHERE token_hash IS NOT NULL;
    -- Open bot seats in the order they were created (their rowid): claims take the oldest.
    CREATE INDEX open_bot_seats ON seats(bot_level) WHERE token_hash IS NULL AND bot_level IS NOT NULL;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 3: clocks (a match's time control, each seat's reserve and who plays it), cancelled matches.
    """
    ALTER TABLE matches ADD COLUMN clock TEXT;
    ALTER TABLE seats ADD COLUMN played_by TEXT NOT NULL DEFAULT 'owner';
    ALTER TABLE seats ADD COLUMN reserve_ms INTEGER NOT NULL DEFAULT 0;
    -- The open seats of a cancelled match are closed: no claim finds them any more.
    DROP INDEX open_bot_seats;
    CREATE INDEX open_bot_seats ON seats(bot_level)
        WHERE token_hash IS NULL AND bot_level IS NOT NULL AND played_by = 'owner';
    """,
    # 4: players and their ratings; seats bound to players; which matches count for the ratings.
    # Matches stored before were played without players: none of them is rated.
    """
    CREATE TABLE players (
        player_id     TEXT PRIMARY KEY,
        kind          TEXT NOT NULL,
        display_name  TEXT NOT NULL,
        created_ms    INTEGER NOT NULL,
        mu            REAL NOT NULL,
        sigma         REAL NOT NULL,
        rating        REAL NOT NULL,
        rated_matches INTEGER NOT NULL DEFAULT 0,
        wins          INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX leaderboard ON players(rating DESC, player_id) WHERE rated_matches > 0;
    ALTER TABLE seats ADD COLUMN player_id TEXT;
    ALTER TABLE seats ADD COLUMN ai_turns INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX seats_by_player ON seats(player_id) WHERE player_id IS NOT NULL;
    ALTER TABLE matches ADD COLUMN hot_seat INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN unrated INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN rating TEXT;
    UPDATE matches SET unrated = 1, rating = 'unrated';
    CREATE INDEX matches_to_rate ON matches(match_id) WHERE rating IS NULL AND status = 'finished';
    """,
    # 5: the matchmaking queue (seen_ms: when its server last said the player still waits).
    """
    CREATE TABLE queue (
        player_id    TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        rating       REAL NOT NULL,
        players      INTEGER NOT NULL,
        allow_ai     INTEGER NOT NULL,
        since_ms     INTEGER NOT NULL,
        seen_ms      INTEGER NOT NULL,
        claimed_ms   INTEGER NOT NULL DEFAULT 0,
        match_id     TEXT,
        seat         INTEGER
    );
    """,
    # 6: ratings per game (a player without one in a game has the default rating there). Every
    # rating stored before is Mercado's; the players table keeps who they are (it is rebuilt
    # without its rating columns: no table refers to it).
    """
    CREATE TABLE ratings (
        player_id     TEXT NOT NULL,
        game          TEXT NOT NULL,
        mu            REAL NOT NULL,
        sigma         REAL NOT NULL,
        rating        REAL NOT NULL,
        rated_matches INTEGER NOT NULL,
        wins          INTEGER NOT NULL,
        PRIMARY KEY (player_id, game)
    );
    INSERT INTO ratings SELECT player_id, 'mercado', mu, sigma, rating, rated_matches, wins FROM players;
    CREATE TABLE new_players (
        player_id    TEXT PRIMARY KEY,
        kind         TEXT NOT NULL,
        display_name TEXT NOT NULL,
        created_ms   INTEGER NOT NULL
    );
    INSERT INTO new_players SELECT player_id, kind, display_name, created_ms FROM players;
    DROP TABLE players;
    ALTER TABLE new_players RENAME TO players;
    CREATE INDEX leaderboard ON ratings(game, rating DESC, player_id) WHERE rated_matches > 0;
    """,
    # 7: a queue per game (players queued before asked for Mercado, the only game then).
    """
    ALTER TABLE queue ADD COLUMN game TEXT NOT NULL DEFAULT 'mercado';
    """,
    # 8: how often a match's seats or status changed without an action.
    """
    ALTER TABLE matches ADD COLUMN changes INTEGER NOT NULL DEFAULT 0;
    """,
    # 9: the request id (its hash) of the join that took a seat: a retry returns that seat.
    """
    ALTER TABLE seats ADD COLUMN request_hash TEXT;
    CREATE UNIQUE INDEX seats_by_request ON seats(match_id, request_hash) WHERE request_hash IS NOT NULL;
    """,
]


def migrate(db: sqlite3.Connection) -> int:
    """Apply the migrations this database has not had, each in its own transaction; the new version."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"the database is at schema version {version}, newer than this server's {len(MIGRATIONS)}"
        )
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        # executescript commits first; the script's statements then run in one transaction.
        db.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
    return len(MIGRATIONS)

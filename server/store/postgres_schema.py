"""The PostgreSQL schema, as numbered migrations applied in order at start (table ``schema_migrations``).

Several servers may start at once on one database: an advisory lock makes one
of them migrate while the others wait, then find nothing left to do. A change
of schema is a new entry at the end of MIGRATIONS, never an edit of one.
"""

from __future__ import annotations

from typing import Any

MIGRATION_LOCK = 0x6D65726361646F  # the advisory lock taken while migrating ("mercado")

MIGRATIONS: list[str] = [
    # 1: the schema of SQLite's migrations 1 to 4 at once, and the AI agents' heartbeats.
    """
    CREATE TABLE matches (
        match_id    TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        options     TEXT NOT NULL,
        seed        TEXT NOT NULL,
        created_ms  BIGINT NOT NULL,
        status      TEXT NOT NULL,
        salt        BYTEA NOT NULL,
        seed_chosen BOOLEAN NOT NULL,
        clock       TEXT,
        hot_seat    BOOLEAN NOT NULL,
        unrated     BOOLEAN NOT NULL,
        rating      TEXT
    );
    CREATE INDEX matches_by_status ON matches(status, created_ms, match_id);
    CREATE INDEX matches_by_age ON matches(created_ms, match_id);
    CREATE INDEX matches_to_rate ON matches(match_id) WHERE rating IS NULL AND status = 'finished';
    CREATE TABLE seats (
        match_id     TEXT NOT NULL REFERENCES matches(match_id),
        seat         INTEGER NOT NULL,
        bot_level    TEXT,
        display_name TEXT NOT NULL,
        token_hash   TEXT,
        played_by    TEXT NOT NULL,
        reserve_ms   BIGINT NOT NULL,
        player_id    TEXT,
        ai_turns     INTEGER NOT NULL,
        created      BIGINT GENERATED ALWAYS AS IDENTITY,  -- claims take the oldest open bot seat
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_by_token ON seats(token_hash) WHERE token_hash IS NOT NULL;
    CREATE INDEX seats_by_player ON seats(player_id) WHERE player_id IS NOT NULL;
    CREATE INDEX open_bot_seats ON seats(bot_level, created)
        WHERE token_hash IS NULL AND bot_level IS NOT NULL AND played_by = 'owner';
    -- The order of a match's actions: a version is taken once, by one server.
    CREATE TABLE actions (
        match_id   TEXT NOT NULL REFERENCES matches(match_id),
        version    INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        action     TEXT NOT NULL,
        request_id TEXT NOT NULL,
        -- When it was stored: a match in play unmoved for long has lost its server.
        stored_ms  BIGINT NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
        PRIMARY KEY (match_id, version),
        UNIQUE (match_id, request_id)
    );
    CREATE TABLE players (
        player_id     TEXT PRIMARY KEY,
        kind          TEXT NOT NULL,
        display_name  TEXT NOT NULL,
        created_ms    BIGINT NOT NULL,
        mu            DOUBLE PRECISION NOT NULL,
        sigma         DOUBLE PRECISION NOT NULL,
        rating        DOUBLE PRECISION NOT NULL,
        rated_matches INTEGER NOT NULL DEFAULT 0,
        wins          INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX leaderboard ON players(rating DESC, player_id) WHERE rated_matches > 0;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    -- The matchmaking queue (seen_ms: when its server last said the player still waits).
    CREATE TABLE queue (
        player_id    TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        rating       DOUBLE PRECISION NOT NULL,
        players      INTEGER NOT NULL,
        allow_ai     BOOLEAN NOT NULL,
        since_ms     BIGINT NOT NULL,
        seen_ms      BIGINT NOT NULL,
        claimed_ms   BIGINT NOT NULL DEFAULT 0,
        match_id     TEXT,
        seat         INTEGER
    );
    -- The AI agents' last heartbeats, through whichever server (levels: none means every level).
    CREATE TABLE agents (
        agent_id   TEXT PRIMARY KEY,
        levels     TEXT[] NOT NULL,
        free_slots INTEGER NOT NULL,
        seen_ms    BIGINT NOT NULL
    );
    """,
    # 2: ratings per game (a player without one in a game has the default rating there). Every
    # rating stored before is Mercado's. A server of an older version still running on the
    # database fails its player calls until it is restarted with this one; a match it finishes
    # meanwhile is rated when a server starts.
    """
    CREATE TABLE ratings (
        player_id     TEXT NOT NULL,
        game          TEXT NOT NULL,
        mu            DOUBLE PRECISION NOT NULL,
        sigma         DOUBLE PRECISION NOT NULL,
        rating        DOUBLE PRECISION NOT NULL,
        rated_matches INTEGER NOT NULL,
        wins          INTEGER NOT NULL,
        PRIMARY KEY (player_id, game)
    );
    INSERT INTO ratings SELECT player_id, 'mercado', mu, sigma, rating, rated_matches, wins FROM players;
    DROP INDEX leaderboard;
    ALTER TABLE players DROP COLUMN mu, DROP COLUMN sigma, DROP COLUMN rating, DROP COLUMN rated_matches,
        DROP COLUMN wins;
    CREATE INDEX leaderboard ON ratings(game, rating DESC, player_id) WHERE rated_matches > 0;
    """,
    # 3: a queue per game (players queued before, and by servers of an older version, ask for
    # Mercado, the only game then).
    """
    ALTER TABLE queue ADD COLUMN game TEXT NOT NULL DEFAULT 'mercado';
    """,
    # 4: how often a match's seats or status changed without an action: with its version, what a
    # server compares to tell whether the match it holds is current (read-your-writes across servers).
    # A server of an older version still running leaves it as it is: the others may read its matches
    # again less often than they should until it is restarted with this one.
    """
    ALTER TABLE matches ADD COLUMN changes BIGINT NOT NULL DEFAULT 0;
    """,
    # 5: the request id (its hash) of the join that took a seat: a retry, through any server, returns
    # that seat. A server of an older version still running takes seats without one.
    """
    ALTER TABLE seats ADD COLUMN request_hash TEXT;
    CREATE UNIQUE INDEX seats_by_request ON seats(match_id, request_hash) WHERE request_hash IS NOT NULL;
    """,
]


async def migrate(db: Any) -> int:
    """Apply the migrations this database has not had (``db``: an asyncpg connection), in one
    transaction; the schema's version."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL)"
        )
        version = await db.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations")
        if version > len(MIGRATIONS):
            raise RuntimeError(
                f"the database is at schema version {version}, newer than this server's {len(MIGRATIONS)}"
            )
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            await db.execute(script)
            await db.execute(
                "INSERT INTO schema_migrations VALUES ($1, (extract(epoch FROM now()) * 1000)::bigint)",
                number,
            )
    return len(MIGRATIONS)

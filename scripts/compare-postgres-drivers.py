"""Compare asyncpg and psycopg 3 on the statements a server sends most, on a throwaway PostgreSQL.

Each driver runs, through a pool of 16 connections and 64 concurrent callers, for a few seconds
each: the append of an action (one statement that inserts it and notifies the other servers, as
PostgresStore.append_action sends it) and the read of a match with its actions (load_match). It
prints the statements per second and this process's CPU time per statement: the figure that
decides how many actions a server's one core can store.

    python -m venv /tmp/drivers
    /tmp/drivers/bin/pip install asyncpg "psycopg[binary]" psycopg-pool
    PYTHONPATH=. /tmp/drivers/bin/python scripts/compare-postgres-drivers.py
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import psycopg
import psycopg_pool

from server.bench.postgres import PostgresServer

POOL_SIZE = 16
CALLERS = 64
VERSIONS = itertools.count(1)  # every append's own, whichever run it is of
SCHEMA = """
CREATE TABLE actions (match_id TEXT, version INTEGER, seat INTEGER, action TEXT, request_id TEXT,
                      PRIMARY KEY (match_id, version));
"""
APPEND = (
    "WITH action AS (INSERT INTO actions VALUES ($1, $2, 0, 'take_coin', $3))"
    " SELECT pg_notify('mercado_matches', $1 || ' ' || $2::text)"
)
LOAD = "SELECT ARRAY(SELECT ROW(seat, action, request_id) FROM actions WHERE match_id = $1 ORDER BY version)"
# The same statements with psycopg's placeholders.
APPEND_PSYCOPG = (
    "WITH action AS (INSERT INTO actions VALUES (%(m)s, %(v)s, 0, 'take_coin', %(r)s))"
    " SELECT pg_notify('mercado_matches', %(m)s || ' ' || %(v)s::text)"
)
LOAD_PSYCOPG = LOAD.replace("$1", "%(m)s")


class UnresetConnection(asyncpg.Connection):  # type: ignore[misc]
    """As PostgresStore pools them: given back without a reset statement (psycopg's pool sends none)."""

    def get_reset_query(self) -> str:
        return ""


async def measure(name: str, seconds: float, call: Callable[[int, int], Awaitable[Any]]) -> None:
    done = 0
    deadline = time.monotonic() + seconds

    async def caller(match: int) -> None:
        nonlocal done
        while time.monotonic() < deadline:
            await call(match, next(VERSIONS))
            done += 1

    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.gather(*(caller(match) for match in range(CALLERS)))
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    print(f"{name:30} {done / wall:8,.0f} statements/s {1000 * cpu / done:6.3f} ms CPU per statement")


async def with_asyncpg(dsn: str, seconds: float) -> None:
    pool = await asyncpg.create_pool(
        dsn, min_size=POOL_SIZE, max_size=POOL_SIZE, connection_class=UnresetConnection
    )
    try:

        async def append(match: int, version: int) -> None:
            async with pool.acquire() as db:
                await db.fetchval(APPEND, f"a{match}", version, f"r{version}")

        async def load(match: int, _: int) -> None:
            async with pool.acquire() as db:
                await db.fetchval(LOAD, f"a{match}")

        await measure("asyncpg append_action", seconds, append)
        await measure("asyncpg load_match", seconds, load)
    finally:
        await pool.close()


async def with_psycopg(dsn: str, seconds: float) -> None:
    pool = psycopg_pool.AsyncConnectionPool(
        dsn, min_size=POOL_SIZE, max_size=POOL_SIZE, kwargs={"autocommit": True}, open=False
    )
    await pool.open()
    try:

        async def append(match: int, version: int) -> None:
            async with pool.connection() as db:
                await db.execute(APPEND_PSYCOPG, {"m": f"p{match}", "v": version, "r": f"r{version}"})

        async def load(match: int, _: int) -> None:
            async with pool.connection() as db:
                await (await db.execute(LOAD_PSYCOPG, {"m": f"p{match}"})).fetchone()

        await measure("psycopg append_action", seconds, append)
        await measure("psycopg load_match", seconds, load)
    finally:
        await pool.close()


async def main(seconds: float) -> None:
    with PostgresServer() as cluster:
        dsn = cluster.create_database("drivers")
        db = await asyncpg.connect(dsn)
        await db.execute(SCHEMA)
        await db.close()
        versions = f"asyncpg {asyncpg.__version__}, psycopg {psycopg.__version__}"
        print(f"{versions}, {CALLERS} callers, a pool of {POOL_SIZE} connections")
        for _ in range(2):  # twice each, interleaved, so that neither runs on a warmer machine alone
            await with_asyncpg(dsn, seconds)
            await with_psycopg(dsn, seconds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="Per figure.")
    asyncio.run(main(parser.parse_args().seconds))

"""The throwaway PostgreSQL server of the tests and benchmarks (server/bench/postgres.py), through asyncpg."""

from __future__ import annotations

import asyncpg
import pytest

from server.bench.postgres import PostgresServer, available

pytestmark = pytest.mark.postgres


async def test_it_answers_a_query(postgres_server: PostgresServer) -> None:
    assert postgres_server.dsn == f"postgresql://postgres@127.0.0.1:{postgres_server.port}/postgres"
    connection = await asyncpg.connect(postgres_server.dsn)
    try:
        assert await connection.fetchval("SELECT 1") == 1
        assert await connection.fetchval("SHOW max_connections") == "200"
        assert await connection.fetchval("SHOW listen_addresses") == "127.0.0.1"
    finally:
        await connection.close()


async def test_databases_are_separate(postgres_server: PostgresServer, postgres_dsn: str) -> None:
    other_dsn = postgres_server.create_database("test_postgres_server_other")
    assert other_dsn != postgres_dsn
    first = await asyncpg.connect(postgres_dsn)
    second = await asyncpg.connect(other_dsn)
    try:
        assert await first.fetchval("SELECT current_database()") != await second.fetchval(
            "SELECT current_database()"
        )
        await first.execute("CREATE TABLE players (name text PRIMARY KEY)")
        await first.execute("INSERT INTO players VALUES ('ana')")
        assert await first.fetchval("SELECT count(*) FROM players") == 1
        assert await second.fetchval("SELECT to_regclass('players')") is None
        with pytest.raises(asyncpg.UndefinedTableError):
            await second.fetchval("SELECT count(*) FROM players")
    finally:
        await first.close()
        await second.close()


async def test_committed_data_survives_a_crash(own_postgres: PostgresServer) -> None:
    dsn = own_postgres.create_database("durable")
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("CREATE TABLE moves (id int PRIMARY KEY, move text NOT NULL)")
        async with connection.transaction():
            await connection.executemany(
                "INSERT INTO moves VALUES ($1, $2)", [(number, f"move {number}") for number in range(100)]
            )
    finally:
        await connection.close()

    port = own_postgres.port
    own_postgres.stop("immediate")  # no checkpoint: the rows are only in the write-ahead log
    assert not own_postgres.running
    with pytest.raises(OSError):
        await asyncpg.connect(dsn, timeout=10)

    own_postgres.start()  # crash recovery replays the log
    assert own_postgres.port == port
    connection = await asyncpg.connect(dsn)
    try:
        assert await connection.fetchval("SELECT count(*) FROM moves") == 100
        assert await connection.fetchval("SELECT move FROM moves WHERE id = 99") == "move 99"
    finally:
        await connection.close()


async def test_it_restarts_on_the_same_data_and_port(own_postgres: PostgresServer) -> None:
    port = own_postgres.port
    own_postgres.restart()
    assert own_postgres.running
    assert own_postgres.port == port
    connection = await asyncpg.connect(own_postgres.dsn)
    try:
        assert await connection.fetchval("SELECT 1") == 1
    finally:
        await connection.close()


def test_close_removes_the_cluster() -> None:
    if (reason := available()) is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    server = PostgresServer().start()
    directory = server.directory
    assert directory is not None and (directory / "data" / "PG_VERSION").exists()
    server.close()
    assert not server.running
    assert not directory.exists()

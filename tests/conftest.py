"""Real ``mercado serve`` processes for the end-to-end and client tests, and a real PostgreSQL server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.bench.postgres import PostgresServer, available

# The shared helper modules (on the pythonpath, pyproject.toml) report failed assertions in full.
pytest.register_assert_rewrite("matchplay", "nodes", "positions", "server_process")

from server_process import ServerProcess, Start  # noqa: E402 (after the rewrite is registered)

_database_numbers = itertools.count(1)  # postgres_dsn's database names: test_1, test_2, ...


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server per test module, for tests that do not disturb each other."""
    running = ServerProcess(tmp_path_factory.mktemp("server") / "mercado.db").start()
    yield running
    running.stop_cleanly()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of the test's own, for tests that kill it or need it empty."""
    running = ServerProcess(tmp_path / "mercado.db").start()
    yield running
    running.stop_cleanly()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """Start servers of the test's own: ``start(*flags, db=..., preexec=..., chosen_seeds=...)``."""
    started: list[ServerProcess] = []

    def start(*args: str, db: Path | None = None, **options: object) -> ServerProcess:
        running = ServerProcess(db or tmp_path / f"server-{len(started)}.db", args=list(args), **options)  # type: ignore[arg-type]
        started.append(running.start())
        return running

    yield start
    for running in started:
        if running.process is not None and running.process.poll() is None:
            running.stop()


def _throwaway_postgres() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server (server/bench/postgres.py). Skipped only when PostgreSQL's
    server binaries are not installed (scripts/install-test-servers.sh)."""
    reason = available()
    if reason is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    with PostgresServer() as running:
        yield running


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole session."""
    yield from _throwaway_postgres()


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test's own, for a test that stops it."""
    yield from _throwaway_postgres()


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> str:
    """The DSN of a fresh, empty database of the test's own on the session's PostgreSQL server."""
    return postgres_server.create_database(f"test_{next(_database_numbers)}")

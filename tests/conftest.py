"""Real ``mercado serve`` processes, for the end-to-end tests and the client tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The shared helper modules (on the pythonpath, pyproject.toml) report failed assertions in full.
pytest.register_assert_rewrite("matchplay", "positions", "server_process")

from server_process import ServerProcess, Start  # noqa: E402 (after the rewrite is registered)


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

"""The attacks of a hostile caller, each against a real server on loopback with bounded loops.

Every test here is marked ``abuse``; they run with the rest of the suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from server_process import ServerProcess


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.abuse)


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
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

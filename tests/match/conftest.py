from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("authorities")

from authorities import authority, close  # noqa: E402 (after the rewrite is registered)

from server.match import MatchService  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "mercado.db"


@pytest.fixture
async def service(db: Path) -> AsyncIterator[MatchService]:
    running = await authority(db)
    yield running
    await close(running)

"""The attacks of a hostile caller, each against a real server on loopback with bounded loops.

Every test here is marked ``abuse``; they run with the rest of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.abuse)

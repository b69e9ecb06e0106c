"""The caps a node takes from its machine unless told, and the warning when its connections near them."""

from __future__ import annotations

import logging

import pytest

from server.rpc.capacity import (
    FEWEST,
    FILES_KEPT,
    MEMORY_SHARE,
    PLAYER_BYTES,
    ConnectionWatch,
    default_connections,
    default_streams,
    memory_bytes,
)


def test_streams_are_what_half_the_memory_holds_at_a_players_cost() -> None:
    memory = memory_bytes()
    assert memory is not None and memory > 0  # Linux: the machine's, or its cgroup's limit
    assert default_streams() == max(FEWEST, int(memory * MEMORY_SHARE) // PLAYER_BYTES)
    # Workers on one machine share it.
    assert default_streams(workers=2) == max(FEWEST, int(memory * MEMORY_SHARE) // PLAYER_BYTES // 2)


def test_connections_are_as_many_within_the_open_files_left() -> None:
    assert default_connections(open_files=10**9, web_connections=1024) == default_streams()
    assert default_connections(open_files=2000, web_connections=1024) == 2000 - 1024 - FILES_KEPT
    assert default_connections(open_files=1000, web_connections=1024) == FEWEST


def test_connections_near_the_cap_are_said_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    watch = ConnectionWatch(grpc_cap=100, open_files=10_000)
    watch.held_at_start = 40  # the ports, the database, the event loop's own
    with caplog.at_level(logging.WARNING, logger="mercado.server"):
        watch.seen(40 + 80)
        assert watch.connections == 80 and not caplog.records  # a fifth below the cap
        watch.seen(40 + 95)
        watch.seen(40 + 100)  # still near it: not said again so soon
    assert [record.getMessage() for record in caplog.records] == [
        "gRPC connections near their cap (--grpc-max-connections): beyond it, new ones are closed at once"
        " and their callers see UNAVAILABLE"
    ]
    assert caplog.records[0].connections == 95  # type: ignore[attr-defined]


def test_open_files_near_their_limit_are_said(caplog: pytest.LogCaptureFixture) -> None:
    watch = ConnectionWatch(grpc_cap=100_000, open_files=1000)
    with caplog.at_level(logging.WARNING, logger="mercado.server"):
        watch.seen(950)
    assert "open files near the limit" in caplog.records[0].getMessage()

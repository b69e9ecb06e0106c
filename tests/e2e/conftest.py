"""Fixtures of the end-to-end tests: real ``mercado serve`` processes and clients connected to them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from mercado_client import MercadoClient
from server_process import ServerProcess

Connect = Callable[..., MercadoClient]


def _stop(server: ServerProcess) -> None:
    status = server.stop()
    assert status == 0, "".join(server.log_lines[-20:])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server per test module, for tests that do not disturb each other."""
    running = ServerProcess(tmp_path_factory.mktemp("server") / "mercado.db").start()
    yield running
    _stop(running)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of the test's own, for tests that kill it or need it empty."""
    running = ServerProcess(tmp_path / "mercado.db").start()
    yield running
    _stop(running)


async def _connector(target: Callable[[], str]) -> AsyncIterator[Connect]:
    clients: list[MercadoClient] = []

    def connect(reconnect_seconds: float = 20.0) -> MercadoClient:
        client = MercadoClient(target(), reconnect_seconds=reconnect_seconds)
        clients.append(client)
        return client

    yield connect
    for client in clients:
        await client.close()


@pytest.fixture
async def connect(server: ServerProcess) -> AsyncIterator[Connect]:
    """A factory of clients of the module's server (each its own channel), closed after the test."""
    async for factory in _connector(lambda: server.target):
        yield factory


@pytest.fixture
async def client(connect: Connect) -> MercadoClient:
    return connect()


@pytest.fixture
async def connect_own(own_server: ServerProcess) -> AsyncIterator[Connect]:
    """A factory of clients of the test's own server."""
    async for factory in _connector(lambda: own_server.target):
        yield factory

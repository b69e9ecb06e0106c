"""Fixtures of the end-to-end tests: clients connected to the real servers of tests/conftest.py; and
(from nodes.py) several servers on one PostgreSQL database, with clients of each."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from matchplay import Connect
from mercado_client import MercadoClient
from nodes import client_of, nodes  # noqa: F401 (fixtures of the tests that use them)
from server_process import ServerProcess


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

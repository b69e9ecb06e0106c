"""The web port's guard against slow and crowding clients: uvicorn's HTTP/1.1 protocol with
a time limit for each request's head, and caps on open connections per client and in all.

A connection beyond a cap is closed as soon as it is accepted, so a flood of
half-open connections holds at most ``connections`` file descriptors and the
gRPC port keeps answering. Idle keep-alive connections are closed by uvicorn
(``timeout_keep_alive``); a request's body has its own limit in web.py.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import EXEMPT, Clients, grpc_peer

log = logging.getLogger("mercado.web")


@dataclass(frozen=True)
class WebGuard:
    """The web port's limits."""

    header_seconds: float = 10.0  # for a request's head, and then for its body, to arrive
    idle_seconds: int = 5  # a kept-alive connection with no request is closed after this long
    connections: int = 1024  # open connections in all
    connections_per_client: int = 64
    clients: Clients = field(default_factory=Clients)  # who a connection comes from


def guarded_protocol(guard: WebGuard) -> type[H11Protocol]:
    """An H11Protocol class that enforces ``guard``; its counts are shared by its connections."""
    open_by: dict[str, int] = {}
    state = {"open": 0, "refused": 0}

    class GuardedH11Protocol(H11Protocol):
        _client_key: str | None = None
        _head_timer: asyncio.TimerHandle | None = None
        _awaited_after: Any = None  # the request cycle before the head being waited for

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            key = guard.clients.key(grpc_peer(self.client))
            held = open_by.get(key, 0)
            if state["open"] >= guard.connections or (key != EXEMPT and held >= guard.connections_per_client):
                state["refused"] += 1
                if state["refused"] % 1000 == 1:
                    log.warning("web connections refused: over a cap", extra={"refused": state["refused"]})
                transport.abort()
                return
            self._client_key = key
            open_by[key] = held + 1
            state["open"] += 1
            self._await_head()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_timer is not None and self.cycle is not self._awaited_after:
                self._head_timer.cancel()  # a request's head is in
                self._head_timer = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_head()  # the next request on this connection has the same time

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if self._client_key is not None:
                left = open_by[self._client_key] - 1
                if left:
                    open_by[self._client_key] = left
                else:
                    del open_by[self._client_key]
                state["open"] -= 1
                self._client_key = None
            super().connection_lost(exc)

        def _await_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._awaited_after = self.cycle
            self._head_timer = self.loop.call_later(guard.header_seconds, self._head_too_slow)

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if self.cycle is self._awaited_after and not self.transport.is_closing():
                self.transport.abort()

    return GuardedH11Protocol

"""The gRPC server: the match service, health checking and reflection; graceful shutdown.

The browser's port (gRPC-Web and the page, see web.py) runs beside it in the same event loop.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Coroutine
from typing import Any, NamedTuple

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from mercado.v1 import match_pb2, match_pb2_grpc

from server.match import MatchService
from server.store.sqlite import SqliteStore

from .servicer import MatchServicer
from .web import WebConfig, start_web

log = logging.getLogger("mercado.server")
SERVICE_NAME = match_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name
# Views and replays are a few kilobytes; anything near this limit is abuse.
MAX_RECEIVE_BYTES = 1 << 20
MAX_SEND_BYTES = 4 << 20
SHUTDOWN_GRACE_SECONDS = 5.0


def run_event_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run a server on uvloop, whose event loop costs about a fifth less CPU per call
    (``mercado bench server``), or on the standard one where uvloop is not available (Windows)."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


class Server(NamedTuple):
    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer


def server_options() -> list[tuple[str, int]]:
    """The gRPC server's options: message size limits, and a port of its own."""
    return [
        ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
        ("grpc.max_send_message_length", MAX_SEND_BYTES),
        ("grpc.so_reuseport", 0),
    ]


def create_server(service: MatchService, address: str) -> Server:
    """A server bound to ``address`` (port 0 picks a free one), not yet started."""
    server = grpc.aio.server(options=server_options())
    match_pb2_grpc.add_MatchServiceServicer_to_server(MatchServicer(service), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
    reflection.enable_server_reflection((SERVICE_NAME, health_name, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address)
    return Server(server, port, health_servicer)


async def serve(host: str, port: int, db: str, web: WebConfig | None = None) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully: finish running calls, close the store.

    With ``web``, also serve gRPC-Web and the browser page on a second port.
    """
    store = SqliteStore(db)
    service = MatchService(store)
    # Everything loaded so far lives as long as the server: keep it out of every garbage collection.
    gc.collect()
    gc.freeze()
    running = create_server(service, f"{host}:{port}")
    await running.server.start()
    site = await start_web(service, host, web, MAX_RECEIVE_BYTES, SHUTDOWN_GRACE_SECONDS) if web else None
    for name in ("", SERVICE_NAME):
        await running.health.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info(
        "listening",
        extra={
            "host": host,
            "port": running.port,
            "web_port": site.port if site else None,
            "db": db,
            "matches": len(service.matches),
        },
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    await running.health.enter_graceful_shutdown()
    service.close_streams()
    await asyncio.gather(running.server.stop(SHUTDOWN_GRACE_SECONDS), *([site.stop()] if site else []))
    store.close()
    log.info("stopped")

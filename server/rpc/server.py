"""The gRPC server: the match service, health checking and reflection; limits, TLS, graceful shutdown.

The browser's port (gRPC-Web, the page and /metrics, see web.py) runs beside it in the same event loop.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import resource
import signal
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from mercado.v1 import match_pb2

from server.match import Limits, MatchService, Policy
from server.players.directory import GUEST_SECRET, Players
from server.players.identity import Authenticator, FrontendTokens
from server.players.matchmaking import Matchmaker
from server.store import Store
from server.store.postgres import PostgresStore, is_postgres
from server.store.sqlite import SqliteStore

from .capacity import ConnectionWatch
from .handlers import add_to_server
from .heap import give_back_free_memory
from .limits import FairUse
from .metrics import Metrics
from .servicer import MatchServicer
from .web import WebConfig, start_web

log = logging.getLogger("mercado.server")
T = TypeVar("T")
SERVICE_NAME = match_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name
HEALTH_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
# Views and replays are a few kilobytes; anything near this limit is abuse.
MAX_RECEIVE_BYTES = 1 << 20
MAX_SEND_BYTES = 4 << 20
MAX_METADATA_BYTES = 16 << 10
SHUTDOWN_GRACE_SECONDS = 5.0


# How many new objects the collector lets pile up before it collects the youngest (Python's default:
# 700, which took about 8% of the event loop). Most of the garbage is gRPC's: its asyncio server
# leaves a reference cycle on every call, which only the collector frees, and every call waits while
# it runs. A lower threshold makes each collection shorter (the p99 at half load) and a higher one
# makes them cheaper in all (the actions per second at full load): docs/performance.md measures both.
SERVING_GC_THRESHOLD = 5_000
# The most actions per second, whatever the pauses: the floor server's.
THROUGHPUT_GC_THRESHOLD = 50_000


def collect_garbage_for_serving(threshold: int = SERVING_GC_THRESHOLD) -> None:
    """Once a server is set up: everything loaded so far lives as long as the server, so keep it
    out of every garbage collection, and collect the youngest objects every ``threshold`` new ones."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(threshold, 50, 100)


def run_event_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run a server on uvloop, whose event loop costs about a fifth less CPU per call
    (``mercado bench server``), or on the standard one where uvloop is not available (Windows)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


@dataclass(frozen=True)
class Connections:
    """What the gRPC port allows each connection (seconds, unless said otherwise)."""

    max_idle: float = 300.0  # a connection with no call open this long is closed (GOAWAY)
    max_age: float = 3600.0  # every connection is closed after this long (GOAWAY)...
    max_age_grace: float = 300.0  # ...its calls still running get this long to finish
    keepalive_time: float = 60.0  # the server pings a quiet connection this often...
    keepalive_timeout: float = 20.0  # ...and closes it when the ping is not answered in this time
    min_ping_interval: float = 10.0  # a client pinging more often than this is disconnected
    max_streams: int = 100  # concurrent calls on one connection
    max_connections: int = 10_000  # open connections in all


def server_options(limits: Connections | None = None, shared_port: bool = False) -> list[tuple[str, int]]:
    """The gRPC server's options: message size limits, connection limits, a port of its own (or
    one that several server processes share, ``mercado serve --workers``)."""
    limits = limits or Connections()

    def ms(seconds: float) -> int:
        return int(seconds * 1000)

    return [
        ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
        ("grpc.max_send_message_length", MAX_SEND_BYTES),
        ("grpc.max_metadata_size", MAX_METADATA_BYTES),
        ("grpc.so_reuseport", int(shared_port)),
        ("grpc.max_connection_idle_ms", ms(limits.max_idle)),
        ("grpc.max_connection_age_ms", ms(limits.max_age)),
        ("grpc.max_connection_age_grace_ms", ms(limits.max_age_grace)),
        ("grpc.keepalive_time_ms", ms(limits.keepalive_time)),
        ("grpc.keepalive_timeout_ms", ms(limits.keepalive_timeout)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", ms(limits.min_ping_interval)),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.max_concurrent_streams", limits.max_streams),
        ("grpc.max_allowed_incoming_connections", limits.max_connections),
    ]


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``mercado serve`` is told."""

    host: str = "127.0.0.1"
    port: int = 50051
    db: str = "mercado.db"  # a SQLite file, or a postgresql:// address
    shared_port: bool = False  # other processes listen on the same ports (mercado serve --workers)
    web: WebConfig | None = None
    connections: Connections = field(default_factory=Connections)
    fair_use: FairUse = field(default_factory=FairUse)
    limits: Limits = field(default_factory=Limits)
    policy: Policy = field(default_factory=Policy)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    reflection: bool = True
    metrics: bool = True
    frontend: FrontendTokens | None = None  # how a frontend's player tokens are checked
    bot_ratings: Mapping[str, Mapping[str, tuple[float, float]]] | None = None  # the bots', by game
    matchmaking_ai_wait: float = 15.0
    drain_seconds: float = 0.0  # serving on, NOT_SERVING, before a stop: the balancers look elsewhere


class Server(NamedTuple):
    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer


def create_server(servicer: MatchServicer, address: str, config: ServerConfig | None = None) -> Server:
    """A server bound to ``address`` (port 0 picks a free one), not yet started."""
    config = config or ServerConfig()
    server = grpc.aio.server(options=server_options(config.connections, config.shared_port))
    add_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if config.reflection:
        reflection.enable_server_reflection((SERVICE_NAME, HEALTH_NAME, reflection.SERVICE_NAME), server)
    if config.tls_cert and config.tls_key:
        credentials = grpc.ssl_server_credentials(
            [(config.tls_key.read_bytes(), config.tls_cert.read_bytes())]
        )
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
    return Server(server, port, health_servicer)


def open_file_limit() -> int:
    """The open files the server may hold once started: its hard limit (``raise_open_file_limit``)."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def raise_open_file_limit() -> int:
    """Raise the soft limit of open files to the hard one (every connection is a file); the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully: finish running calls, close the store.

    With ``config.web``, also serve gRPC-Web, the browser page and /metrics on a second port.
    """
    open_files = raise_open_file_limit()
    loop = asyncio.get_running_loop()
    running: Server | None = None
    reports: set[asyncio.Task[None]] = set()

    def store_health(failure: str | None) -> None:
        if running is None:
            return
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if failure is None
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in ("", SERVICE_NAME):
            report = loop.create_task(running.health.set(name, status))
            reports.add(report)
            report.add_done_callback(reports.discard)

    store: Store
    if is_postgres(config.db):
        store = await PostgresStore.open(config.db, on_health=store_health)
    else:
        store = SqliteStore(config.db, on_health=store_health)
    service = MatchService(store, config.limits, config.policy)
    await service.start()
    # As many verified credentials remembered as the node holds streams: a player's calls verify once.
    authenticator = Authenticator(await store.secret(GUEST_SECRET), config.frontend, config.fair_use.streams)
    players = Players(store, authenticator, service)
    await players.start(config.bot_ratings)
    matchmaker = Matchmaker(service, players.bot_ratings, config.matchmaking_ai_wait)
    servicer = MatchServicer(service, config.fair_use, players=players, matchmaker=matchmaker)
    watch = ConnectionWatch(config.connections.max_connections, open_files)
    if config.metrics:
        servicer.metrics = metrics = Metrics(_gauges(service, servicer, store, watch))
        store.on_commit = metrics.commit
    collect_garbage_for_serving()
    running = create_server(servicer, f"{config.host}:{config.port}", config)
    await running.server.start()
    web = config.web
    if web and web.guard.connections > open_files // 2:
        log.warning(
            "web connection cap lowered to half the open-file limit", extra={"open_files": open_files}
        )
        web = _with_connections(web, open_files // 2)
    site = (
        await start_web(
            servicer, config.host, web, MAX_RECEIVE_BYTES, SHUTDOWN_GRACE_SECONDS, servicer.metrics
        )
        if web
        else None
    )
    for name in ("", SERVICE_NAME):
        await running.health.set(name, health_pb2.HealthCheckResponse.SERVING)
    watching = loop.create_task(watch.run())
    log.info(
        "listening",
        extra={
            "host": config.host,
            "port": running.port,
            "web_port": site.port if site else None,
            "db": _without_password(config.db),
            "tls": bool(config.tls_cert),
            "open_files": open_files,
            "max_connections": config.connections.max_connections,
            "max_streams": config.fair_use.streams,
        },
    )
    trimming = loop.create_task(give_back_free_memory())
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.health.enter_graceful_shutdown()
    if config.drain_seconds:
        # A call the balancer sends before it sees NOT_SERVING is served: gRPC would cancel one that
        # reached a stopping server before a handler took it up.
        log.info("draining", extra={"seconds": config.drain_seconds})
        await asyncio.sleep(config.drain_seconds)
    log.info("shutting down")
    watching.cancel()
    trimming.cancel()
    service.close_streams()
    await matchmaker.close()
    await service.close()
    await players.close()
    await asyncio.gather(running.server.stop(SHUTDOWN_GRACE_SECONDS), *([site.stop()] if site else []))
    store.close()
    log.info("stopped")


def _with_connections(web: WebConfig, connections: int) -> WebConfig:
    return replace(web, guard=replace(web.guard, connections=connections))


def _without_password(db: str) -> str:
    """The database as the log may show it."""
    return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", db)


def _gauges(
    service: MatchService, servicer: MatchServicer, store: Store, watch: ConnectionWatch
) -> Callable[[], dict[str, tuple[str, float]]]:
    def read() -> dict[str, tuple[str, float]]:
        return {
            "mercado_matches_in_memory": (
                "Matches held in memory (in play or recently used)",
                len(service.cache),
            ),
            "mercado_matches_waiting": ("Matches waiting for players", service.waiting),
            "mercado_streams_open": ("Open event streams", servicer.streams.open),
            "mercado_connections_open": (
                "Open connections of both ports, counted every few seconds (Linux)",
                watch.connections,
            ),
            "mercado_store_healthy": (
                "1 while the store can make writes durable (and hears the other servers, on PostgreSQL)",
                store.failure is None,
            ),
        }

    return read

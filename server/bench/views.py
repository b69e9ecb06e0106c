"""``mercado bench views``: what a GetView costs, and what reading your own writes across servers adds.

A server on PostgreSQL shares its matches with the others: before it answers a read (GetView, a
stream's first message) it asks the database for the match's stamp (its version and how often its
seats changed: a lookup of one key in each of two tables) and reads the match again only if another
server moved it on. This measures, with real server processes on loopback and sequential calls
(``calls`` of each), the GetView of a seat whose match is in memory:

- through a server on SQLite, which shares nothing and asks nothing (the baseline);
- through one of two servers on a throwaway PostgreSQL cluster, the match current (the lookup);
- through that server right after each move made through the other (the lookup, and the read
  again of a match one action behind).

and for each the latency, the server's CPU per call and, on PostgreSQL, the cluster's CPU per call
(its postmaster and every child of it). ``read_your_writes`` is the difference the lookup makes
against SQLite's. The client is exempt from the rate limits and talks to the servers only through
the public API.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .process import ServerProcess, cpu_seconds, latency_ms, tree_cpu_seconds

if TYPE_CHECKING:
    from mercado_client import MercadoClient, Seat

CALL_SECONDS = 10.0
SEED = 7  # of the match viewed


def _server(db: str, log: Path) -> ServerProcess:
    args = ["-m", "server", "serve", "--allow-anonymous", "--allow-chosen-seeds", "--host", "127.0.0.1"]
    args += ["--port", "0", "--web-port", "-1", "--db", db, "--rate-limit-exempt", "127.0.0.0/8"]
    return ServerProcess(args, log).start()


async def _seated(client: MercadoClient) -> list[Seat]:
    """A match of two seats, both taken through ``client``."""
    match_id = await client.create_match(players=2, seed=SEED)
    return [await client.join(match_id, name) for name in ("ana", "bo")]


async def _move(seats: list[Seat]) -> None:
    """The seat to move plays its first legal action."""
    state = await seats[(await seats[0].view()).to_move].view()
    await seats[state.to_move].submit(state.legal_actions[0], state.version, uuid.uuid4().hex)


async def _measure(
    calls: int,
    view: Callable[[], Awaitable[object]],
    server: ServerProcess,
    database_pid: int | None = None,
    before_each: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """``calls`` sequential GetViews (each after ``before_each``, unmeasured): their latencies, the
    server's CPU per call and, given the postmaster's ``database_pid``, the database's."""
    samples: list[float] = []
    server_cpu = 0.0
    database_cpu = 0.0
    for _ in range(calls):
        if before_each is not None:
            await before_each()
        cpu = cpu_seconds(server.pid) or 0.0
        database = (tree_cpu_seconds(database_pid) or 0.0) if database_pid else 0.0
        started = time.perf_counter()
        await view()
        samples.append(time.perf_counter() - started)
        server_cpu += (cpu_seconds(server.pid) or 0.0) - cpu
        if database_pid:
            database_cpu += (tree_cpu_seconds(database_pid) or 0.0) - database
    figures: dict[str, Any] = {
        "latency_ms": latency_ms(samples),
        "server_cpu_ms_per_call": round(1000 * server_cpu / calls, 3),
    }
    if database_pid:
        figures["database_cpu_ms_per_call"] = round(1000 * database_cpu / calls, 3)
    return figures


async def _probe_sqlite(server: ServerProcess, calls: int) -> dict[str, Any]:
    from mercado_client import MercadoClient

    async with MercadoClient(server.target, reconnect_seconds=CALL_SECONDS) as client:
        seats = await _seated(client)
        await _move(seats)
        return await _measure(calls, seats[0].view, server)


async def _probe_postgres(nodes: list[ServerProcess], calls: int, postmaster: int) -> dict[str, Any]:
    from mercado.v1 import match_pb2 as api
    from mercado_client import MercadoClient, Seat

    one, two = nodes
    async with (
        MercadoClient(one.target, reconnect_seconds=CALL_SECONDS) as first,
        MercadoClient(two.target, reconnect_seconds=CALL_SECONDS) as second,
    ):
        seats: list[Seat] = []
        viewer = Seat(second, "", 0, "")

        async def watched() -> None:
            """A new match, held by node two too (one view), when there is none in play."""
            nonlocal seats, viewer
            if not seats or (await seats[0].view()).match.status == api.MATCH_STATUS_FINISHED:
                seats = await _seated(first)
                viewer = Seat(second, seats[0].match_id, 0, seats[0].token)
                await viewer.view()

        async def moved() -> None:
            await watched()
            await _move(seats)

        await moved()
        current = await _measure(calls, lambda: viewer.view(), two, postmaster)
        behind = await _measure(calls, lambda: viewer.view(), two, before_each=moved)
    return {"current": current, "behind": behind}


def _cost(postgres: dict[str, Any], sqlite: dict[str, Any]) -> dict[str, float]:
    return {
        "latency_ms_p50": round(postgres["latency_ms"]["p50"] - sqlite["latency_ms"]["p50"], 3),
        "server_cpu_ms_per_call": round(
            postgres["server_cpu_ms_per_call"] - sqlite["server_cpu_ms_per_call"], 3
        ),
    }


def run(calls: int = 1000) -> dict[str, Any]:
    from .postgres import PostgresServer, available

    reason = available()
    if reason is not None:
        raise RuntimeError(f"PostgreSQL is not available: {reason}")
    with tempfile.TemporaryDirectory(prefix="mercado-views-") as tmp, PostgresServer() as cluster:
        directory = Path(tmp)
        server = _server(str(directory / "views.db"), directory / "sqlite.log")
        try:
            sqlite = asyncio.run(_probe_sqlite(server, calls))
        finally:
            server.stop()
        dsn = cluster.create_database("views")
        nodes = [_server(dsn, directory / f"node{n}.log") for n in range(2)]
        try:
            postgres = asyncio.run(_probe_postgres(nodes, calls, cluster.postmaster_pid))
        finally:
            for node in nodes:
                node.stop()
    return {
        "calls": calls,
        "sqlite_one_server": sqlite,
        "postgresql_two_servers_match_current": postgres["current"],
        "postgresql_two_servers_after_a_move_through_the_other": postgres["behind"],
        "read_your_writes": _cost(postgres["current"], sqlite),
    }

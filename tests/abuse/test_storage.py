"""Storage that cannot fill the disk, split between two servers, or lose an acknowledged action."""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from matchplay import assert_reason, mover, refusal, seated_match
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from positions import ROOT
from server_process import Start, health

UNLIMITED_CREATES = [
    *("--rate-limit", "CreateMatch=off"),
    *("--max-waiting-per-client", "1000000", "--max-waiting-per-network", "1000000"),
]
UNLIMITED_CREATES += ["--max-waiting", "1000000"]
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
SERVING = health_pb2.HealthCheckResponse.SERVING


async def _flood_creates(
    target: str, seconds: float, stop_on_refusal: bool = False
) -> tuple[list[str], list[grpc.aio.AioRpcError]]:
    """CreateMatch from 32 concurrent callers for ``seconds``: the ids created, and the refusals."""
    created: list[str] = []
    refused: list[grpc.aio.AioRpcError] = []
    deadline = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(target) as channel:
        create = channel.unary_unary(
            "/mercado.v1.MatchService/CreateMatch",
            request_serializer=api.CreateMatchRequest.SerializeToString,
            response_deserializer=api.CreateMatchResponse.FromString,
        )

        async def caller() -> None:
            while time.monotonic() < deadline and not (stop_on_refusal and refused):
                try:
                    created.append((await create(api.CreateMatchRequest(players=4), timeout=10)).match_id)
                except grpc.aio.AioRpcError as error:
                    refused.append(error)

        await asyncio.gather(*(caller() for _ in range(32)))
    return created, refused


async def test_a_flood_of_new_matches_keeps_the_wal_small(start: Start, tmp_path: Path) -> None:
    db = tmp_path / "flood.db"
    server = start(*UNLIMITED_CREATES, db=db)
    wal = db.with_name(db.name + "-wal")
    sizes: list[int] = []

    async def sample() -> None:
        while True:
            sizes.append(wal.stat().st_size if wal.exists() else 0)
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    created, refused = await _flood_creates(server.target, seconds=8)
    assert not refused and len(created) > 2000
    # Idle: within a few seconds the WAL is emptied.
    idle_deadline = time.monotonic() + 15
    while sizes[-1] > 0 and time.monotonic() < idle_deadline:
        await asyncio.sleep(0.1)
    sampler.cancel()
    assert max(sizes) < 64 << 20, f"the WAL grew to {max(sizes) >> 20} MB for {len(created)} matches"
    assert sizes[-1] <= 4 << 20
    async with MercadoClient(server.target) as client:
        assert (await client.view(created[-1])).match.match_id == created[-1]


def test_a_second_server_on_the_same_database_exits(start: Start, tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    first = start(db=db)
    second = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--port", "0", "--web-port", "-1", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 2
    lines = second.stderr.strip().splitlines()
    assert lines[-1] == f"mercado serve: {db} is in use by another mercado server", second.stderr
    assert first.process is not None and first.process.poll() is None  # the first goes on


async def test_a_deleted_database_acknowledges_nothing_more(start: Start, tmp_path: Path) -> None:
    db = tmp_path / "doomed.db"
    server = start(db=db)
    clients: list[MercadoClient] = []

    def connect() -> MercadoClient:
        clients.append(MercadoClient(server.target, reconnect_seconds=1))
        return clients[-1]

    _, seats = await seated_match(connect, 2, seed=5)
    seat, state = await mover(seats)
    await seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink()
    seat, state = await mover(seats)
    for _ in range(5):
        error = await refusal(seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex))
        assert_reason(error, grpc.StatusCode.UNAVAILABLE)
        assert error.details() == "storage is unavailable: the database file was removed"
    assert (await seat.view()).version == state.version  # nothing was acknowledged, nothing changed
    assert await health(server.target) == NOT_SERVING
    for client in clients:
        await client.close()


async def test_a_full_disk_refuses_writes_until_there_is_room_again(start: Start, tmp_path: Path) -> None:
    """A file size limit (RLIMIT_FSIZE) makes every write past it fail as on a full disk."""
    limit = 256 << 10

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    db = tmp_path / "full.db"
    server = start(*UNLIMITED_CREATES, db=db, preexec=small_files)
    seen: set[int] = set()

    async def watch_health() -> None:
        """Every status the health service goes through (its Watch stream sends each change)."""
        async with grpc.aio.insecure_channel(server.target) as channel:
            async for answer in health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest()):
                seen.add(answer.status)

    watcher = asyncio.create_task(watch_health())
    created, refused = await _flood_creates(server.target, seconds=20, stop_on_refusal=True)
    assert refused, f"{len(created)} matches fitted in files of {limit} bytes"
    for error in refused:
        assert_reason(error, grpc.StatusCode.UNAVAILABLE)
        assert error.details() in (
            "storage is unavailable: the disk is full",
            "storage is unavailable: a disk write failed",
        )
    # The health service said so (a checkpoint may make room for a while: then it serves again).
    deadline = time.monotonic() + 5
    while NOT_SERVING not in seen and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    watcher.cancel()
    assert NOT_SERVING in seen

    # Room again: the store notices by itself, and takes writes again.
    assert server.process is not None
    resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
    deadline = time.monotonic() + 10
    while await health(server.target) != SERVING and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert await health(server.target) == SERVING
    async with MercadoClient(server.target) as client:
        later = await client.create_match()
        # Every acknowledged match is there after a crash; none of the refused ones.
        server.restart()
        for match_id in [*created[-5:], later]:
            assert (await client.view(match_id)).match.match_id == match_id
        listed = await client.list_matches(page_size=100)
        assert listed.matches[0].match_id == later
    assert len([m for m in listed.matches if m.match_id not in created]) == 1

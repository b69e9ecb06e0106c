"""Connections a client cannot hoard: caps and time limits on the web port, idle, age, ping and stream
limits on the gRPC port, and enough file descriptors for both."""

from __future__ import annotations

import asyncio
import resource
import socket
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from matchplay import refusal
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from processes import open_files
from server_process import Start, health

SERVING = health_pb2.HealthCheckResponse.SERVING


def _half_open(port: int) -> socket.socket | None:
    """A connection to the web port that sends half a request's head and then nothing."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        return sock
    except OSError:
        return None


def _closed_by_server(sock: socket.socket, wait: float) -> bool:
    sock.settimeout(wait)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


async def test_half_open_http_connections_cannot_starve_the_grpc_port(start: Start) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))  # room for the flood
    server = start(
        "--web-port", "0", "--web-max-connections", "300", "--web-max-connections-per-client", "300"
    )
    assert server.process is not None
    flood: list[socket.socket] = []
    for round_ in range(10):  # 2,000 half-sent requests, a health check between every 200
        flood += [sock for sock in (_half_open(server.web_port) for _ in range(200)) if sock]
        assert await health(server.target, timeout=5) == SERVING, round_
    # The server kept at most its cap of them open: the rest were closed at once.
    held = open_files(server.process.pid)
    assert held < 300 + 100, held
    assert sum(_closed_by_server(sock, 0.01) for sock in flood) >= len(flood) - 300
    for sock in flood:
        sock.close()


def test_a_request_head_that_never_ends_is_cut_off(start: Start) -> None:
    server = start("--web-port", "0", "--web-header-timeout", "1")
    slow = _half_open(server.web_port)
    assert slow is not None
    assert _closed_by_server(slow, wait=5)  # after the header timeout, not never
    idle = socket.create_connection(("127.0.0.1", server.web_port), timeout=5)
    assert _closed_by_server(idle, wait=5)  # a connection that never sends anything, too
    slow.close()
    idle.close()


def test_one_client_cannot_take_every_web_connection(start: Start) -> None:
    server = start("--web-port", "0", "--web-max-connections-per-client", "5")
    mine = [socket.create_connection(("127.0.0.1", server.web_port), timeout=5) for _ in range(8)]
    closed = [_closed_by_server(sock, 0.5) for sock in mine]
    assert closed.count(False) == 5  # the first five stay open, the others were closed at once
    for sock in mine:
        sock.close()


async def test_idle_grpc_connections_are_closed(start: Start) -> None:
    server = start("--grpc-max-idle", "1")
    assert server.process is not None
    before = open_files(server.process.pid)
    # A subchannel pool of each channel's own: a connection each, as from 100 clients.
    own = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(server.target, options=own) for _ in range(100)]
    for channel in channels:
        await channel.channel_ready()  # each connected (the first may be closed again meanwhile)
    deadline = time.monotonic() + 30
    while open_files(server.process.pid) > before + 5 and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert open_files(server.process.pid) <= before + 5
    assert all(channel.get_state() != grpc.ChannelConnectivity.READY for channel in channels)
    for channel in channels:
        await channel.close()


async def test_old_connections_are_closed_and_clients_follow_on(start: Start) -> None:
    server = start("--grpc-max-age", "1", "--grpc-max-age-grace", "1")
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match(players=2)
        request = api.StreamEventsRequest(match_id=match_id)
        raw = client.stub.StreamEvents(request)
        first = await raw.read()
        assert first.version == 0
        # The connection's age and then its grace run out: the stream ends, as in a restart.
        ended = await refusal(asyncio.wait_for(raw.read(), 10))
        assert (ended.code(), ended.details()) == (grpc.StatusCode.UNAVAILABLE, "max connection age")
        # The client library reconnects and resumes as after any dropped connection.
        follow = client.follow(match_id)
        assert (await anext(follow)).version == 0
        await asyncio.sleep(2.5)  # past the age and the grace of the connection the stream is on
        await client.join(match_id, "ada")
        assert (await asyncio.wait_for(anext(follow), 10)).state.match.seats[0].taken
        await follow.aclose()


async def test_a_client_pinging_too_often_is_disconnected(start: Start) -> None:
    server = start("--grpc-min-ping-interval", "10")
    options = [
        ("grpc.keepalive_time_ms", 200),
        ("grpc.keepalive_timeout_ms", 5000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
    ]
    async with grpc.aio.insecure_channel(server.target, options=options) as channel:
        stream = channel.unary_stream(
            "/mercado.v1.MatchService/StreamEvents",
            request_serializer=api.StreamEventsRequest.SerializeToString,
            response_deserializer=api.MatchUpdate.FromString,
        )
        async with MercadoClient(server.target) as client:
            match_id = await client.create_match()
        call = stream(api.StreamEventsRequest(match_id=match_id))
        await call.read()
        # Pinged far more often than allowed, the server sends GOAWAY: the quiet stream ends.
        assert await asyncio.wait_for(call.code(), 15) == grpc.StatusCode.UNAVAILABLE
        assert await call.details() == "Too many pings"


async def test_calls_on_one_connection_are_limited(start: Start) -> None:
    server = start("--grpc-max-streams-per-connection", "5")
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match()
        streams = [client.stub.StreamEvents(api.StreamEventsRequest(match_id=match_id)) for _ in range(6)]
        opened = await asyncio.wait([asyncio.ensure_future(s.initial_metadata()) for s in streams], timeout=2)
        assert len(opened[0]) == 5  # the sixth waits for a free stream on the connection
        streams[0].cancel()
        await asyncio.wait_for(asyncio.gather(*opened[1]), 5)  # ...and opens once one ends
        for s in streams:
            s.cancel()


async def test_refused_calls_free_their_streams_on_the_connection(start: Start) -> None:
    server = start("--grpc-max-streams-per-connection", "5", "--rate-limit", "all=off")
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match()
        nowhere = api.GetViewRequest(match_id="0" * 32)
        garbage = client.channel.unary_unary("/mercado.v1.MatchService/GetView")
        for _ in range(20):  # four times what the connection holds at once, one after the other
            assert (await refusal(client.stub.GetView(nowhere))).code() == grpc.StatusCode.NOT_FOUND
            assert (await refusal(garbage(b"\xff\xff"))).code() == grpc.StatusCode.INVALID_ARGUMENT
        # The same connection still takes calls.
        view = await asyncio.wait_for(client.stub.GetView(api.GetViewRequest(match_id=match_id)), 5)
        assert view.match.match_id == match_id


def test_the_open_file_limit_is_raised_to_the_hard_limit(start: Start, tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(1024, hard)

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))

    server = start(preexec=lower)
    assert server.process is not None
    limits = Path(f"/proc/{server.process.pid}/limits").read_text().splitlines()
    files = next(line for line in limits if line.startswith("Max open files")).split()
    assert (int(files[3]), int(files[4])) == (hard, hard)


async def test_grpc_connections_are_capped(start: Start) -> None:
    server = start("--grpc-max-connections", "5")
    own = [("grpc.use_local_subchannel_pool", 1)]  # a connection each, as from different clients
    channels = [grpc.aio.insecure_channel(server.target, options=own) for _ in range(8)]

    async def answered(channel: grpc.aio.Channel) -> bool:
        try:
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
        except grpc.aio.AioRpcError:
            return False
        return True

    assert (
        sorted(await asyncio.gather(*(answered(channel) for channel in channels))) == [False] * 3 + [True] * 5
    )
    for channel in channels:
        await channel.close()


async def _health_code(channel: grpc.aio.Channel) -> grpc.StatusCode:
    try:
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def test_connections_refused_at_the_cap_are_said_in_the_log(start: Start) -> None:
    # gRPC closes a connection beyond --grpc-max-connections as soon as it is accepted and logs nothing:
    # its caller sees UNAVAILABLE. The server counts its connections and says when they near the cap.
    server = start("--grpc-max-connections", "4")
    own_connection = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(server.target, options=own_connection) for _ in range(8)]
    try:
        codes = [await _health_code(channel) for channel in channels]
        assert codes[:4] == [grpc.StatusCode.OK] * 4
        assert set(codes[4:]) == {grpc.StatusCode.UNAVAILABLE}
        deadline = time.monotonic() + 30
        while not any("near their cap" in line for line in list(server.log_lines)):
            assert time.monotonic() < deadline, "the log says nothing of the refused connections"
            await asyncio.sleep(0.1)
    finally:
        for channel in channels:
            await channel.close()

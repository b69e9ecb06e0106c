"""``mercado serve`` stopped with SIGTERM and ``--drain``: its health turns NOT_SERVING at once, so a
load balancer sends new calls elsewhere, but it serves every call and stream that still comes for
that long; then its streams end with UNAVAILABLE and it exits cleanly."""

from __future__ import annotations

import asyncio
import signal
import time

import grpc
from grpc_health.v1 import health_pb2
from matchplay import assert_reason, refusal
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from nodes import eventually, timely
from server_process import Start, health

DRAIN_SECONDS = 10.0  # ample for the calls made while it drains, on a loaded machine too


async def test_a_draining_server_says_not_serving_and_serves_on_until_it_stops(start: Start) -> None:
    server = start("--drain", str(DRAIN_SECONDS))
    assert server.process is not None
    client = MercadoClient(server.target, reconnect_seconds=0.0)  # no retries: each call is seen
    try:
        match_id = await timely(client.create_match(players=2))
        before = client.stub.StreamEvents(api.StreamEventsRequest(match_id=match_id))
        await timely(before.read())  # the match as it stands

        server.process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()

        async def not_serving() -> bool:
            return await health(server.target) == health_pb2.HealthCheckResponse.NOT_SERVING

        await eventually(not_serving, "the health to turn NOT_SERVING")
        # Still served: a call, and a stream opened now.
        later = await timely(client.create_match(players=2))
        after = client.stub.StreamEvents(api.StreamEventsRequest(match_id=later))
        await timely(after.read())
        # Once drained, both streams are told to reconnect elsewhere.
        for stream in (before, after):
            error = await refusal(timely(stream.read(), DRAIN_SECONDS * 2))
            assert_reason(error, grpc.StatusCode.UNAVAILABLE)
            assert "shutting down" in (error.details() or "")
        assert time.monotonic() - stopped >= DRAIN_SECONDS
        assert await asyncio.to_thread(server.process.wait, 30) == 0, "".join(server.log_lines[-20:])
    finally:
        await client.close()

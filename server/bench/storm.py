"""``mercado bench storm``: a server's resident memory under storms of streams opened and reset.

A storm opens ``StreamEvents`` calls on one waiting match, ``CONCURRENT`` at a time on one HTTP/2
connection, and resets each (``RST_STREAM`` with ``CANCEL``, what a client that gives up sends) at
a random moment of its first ``RESET_WITHIN`` seconds: before the server has answered, while it
answers, or once it waits for the next update. It speaks HTTP/2 frame by frame (h2), as a flooding
client would, rather than through a gRPC client, which keeps much of every call it cancels. The
figures are the server process's resident memory once it has started, right after each storm and
once it has settled (it gives free memory back to the system every few seconds,
``server/rpc/heap.py``): what a storm leaves behind.
"""

from __future__ import annotations

import asyncio
import random
import struct
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient

from server.rpc.heap import TRIM_SECONDS

from .process import ServerProcess, memory_mib

CONCURRENT = 50  # streams open at once (the server allows 100 on a connection)
RESET_WITHIN = 0.005  # seconds
SETTLE_SECONDS = 3 * TRIM_SECONDS  # the longest a settled figure is waited for
STREAM_EVENTS = "/mercado.v1.MatchService/StreamEvents"


class _Connection:
    """One HTTP/2 connection to a gRPC server: opens streams, resets them, reads what comes back."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, authority: str) -> None:
        self.reader, self.writer = reader, writer
        self.authority = authority
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.h2.initiate_connection()
        self.flush()
        self.ended_by_server: Counter[str] = Counter()  # streams the server ended or refused, by how
        self.reading = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, target: str) -> _Connection:
        host, _, port = target.rpartition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        return cls(reader, writer, target)

    @property
    def closed(self) -> bool:
        return self.reading.done()

    def flush(self) -> None:
        self.writer.write(self.h2.data_to_send())

    def open_stream(self, request: bytes) -> int:
        stream = self.h2.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", STREAM_EVENTS),
            (":authority", self.authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
        self.h2.send_headers(stream, headers)
        self.h2.send_data(stream, struct.pack(">BI", 0, len(request)) + request, end_stream=True)
        self.flush()
        return stream

    def reset(self, stream: int) -> None:
        """Reset ``stream`` unless the server ended it first (or hung up)."""
        if not self.closed and self.h2.streams.get(stream) is not None and not self.h2.streams[stream].closed:
            self.h2.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
            self.flush()

    async def _read(self) -> None:
        """Take in what the server sends (giving its flow-control credit back) until it hangs up."""
        while data := await self.reader.read(65_536):
            for event in self.h2.receive_data(data):
                if isinstance(event, h2.events.DataReceived):
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamReset) and event.remote_reset:
                    self.ended_by_server[getattr(event.error_code, "name", str(event.error_code))] += 1
                elif isinstance(event, h2.events.TrailersReceived):
                    status = dict(event.headers).get(b"grpc-status", b"?")
                    self.ended_by_server[f"grpc-status {status.decode()}"] += 1
                elif isinstance(event, h2.events.ConnectionTerminated):
                    return
            self.flush()

    async def close(self) -> None:
        self.reading.cancel()
        await asyncio.gather(self.reading, return_exceptions=True)
        self.writer.close()
        await asyncio.gather(self.writer.wait_closed(), return_exceptions=True)


async def storm(target: str, streams: int, seed: int = 1) -> dict[str, Any]:
    """Open ``streams`` streams of a new waiting match on ``target`` and reset each: the connections
    it took (the server may hang up on one that resets too many) and the streams the server ended
    first, by how."""
    rng = random.Random(seed)
    async with MercadoClient(target) as client:
        request = api.StreamEventsRequest(match_id=await client.create_match(players=2))
    payload = request.SerializeToString()
    slots = asyncio.Semaphore(CONCURRENT)
    reconnecting = asyncio.Lock()
    used = [await _Connection.open(target)]

    async def open_and_reset() -> None:
        async with slots:
            async with reconnecting:
                if used[-1].closed:
                    await used[-1].close()
                    used.append(await _Connection.open(target))
            connection = used[-1]
            stream = connection.open_stream(payload)
            await asyncio.sleep(rng.random() * RESET_WITHIN)
            connection.reset(stream)

    try:
        await asyncio.gather(*(open_and_reset() for _ in range(streams)))
    finally:
        await used[-1].close()
    ended = sum((connection.ended_by_server for connection in used), Counter[str]())
    return {"connections": len(used), "ended_by_server": dict(ended)}


async def settled_mib(pid: int, ceiling: float, seconds: float = SETTLE_SECONDS) -> float:
    """The process's resident memory once it is at most ``ceiling`` MiB, or after ``seconds``."""
    deadline = time.monotonic() + seconds
    resident = resident_mib(pid)
    while resident > ceiling and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        resident = resident_mib(pid)
    return resident


def resident_mib(pid: int) -> float:
    resident = memory_mib(pid)
    if resident is None:
        raise RuntimeError("the resident memory of a process is read from /proc (Linux)")
    return resident


async def _measure(server: ServerProcess, streams: int, storms: int) -> dict[str, Any]:
    at_start = resident_mib(server.pid)
    runs = []
    for number in range(storms):
        began = time.perf_counter()
        stormed = await storm(server.target, streams, seed=number + 1)
        seconds = time.perf_counter() - began
        after = resident_mib(server.pid)
        settled = await settled_mib(server.pid, at_start)
        runs.append(
            {
                "streams": streams,
                **stormed,
                "seconds": round(seconds, 1),
                "memory_after_mib": after,
                "memory_settled_mib": settled,
                "settled_growth": f"{(settled - at_start) / at_start:.1%}",
            }
        )
    return {"memory_at_start_mib": at_start, "storms": runs}


def run(streams: int, storms: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mercado-storm-") as tmp:
        args = ["-m", "server", "serve", "--allow-anonymous", "--port", "0", "--web-port", "-1"]
        args += ["--db", str(Path(tmp) / "storm.db"), "--rate-limit-exempt", "127.0.0.0/8"]
        server = ServerProcess(args, Path(tmp) / "storm.log").start()
        try:
            report = asyncio.run(_measure(server, streams, storms))
        finally:
            status = server.stop()
        if status != 0:
            raise RuntimeError(f"the server exited with status {status}:\n{server.log_tail()}")
    return report

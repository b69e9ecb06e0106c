"""``mercado bench agent``: how many matches one AI agent keeps up with, at a level.

A real server and a real ``mercado ai`` (one search process per core) run on
loopback; ``matches`` two-player matches each seat a bot of ``level`` against a
client that answers at once with a random legal move. Over ``duration`` seconds
this counts the bot's moves and times each one from the human's move to the
bot's reply. People take far longer over a turn than the bot: with a person
who takes ``think`` seconds, one match asks the agent for a move about every
``think`` seconds, so the agent keeps up with about moves-per-second x think
matches at that latency.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from .process import AGENT_KEY, ServerProcess, latency_ms

THINK_SECONDS = 10.0  # a person's turn, for the capacity figure


async def _human(target: str, level: str, deadline: float, rng: random.Random, replies: list[float]) -> None:
    """Matches against the bot, one after another, until ``deadline``; times each of the bot's replies."""
    import grpc
    from mercado.v1 import match_pb2 as api
    from mercado_client import MercadoClient

    async with MercadoClient(target) as client:
        while time.monotonic() < deadline:
            match_id = await client.create_match(players=2, seats=[None, level])
            seat = await client.join(match_id, "bench")
            moved_at: float | None = None
            async for update in seat.follow():
                now = time.monotonic()
                if now > deadline:
                    break
                state = update.state
                if update.HasField("action") and update.seat != seat.seat and moved_at is not None:
                    replies.append(now - moved_at)
                    moved_at = None
                if state.match.status != api.MATCH_STATUS_PLAYING or not state.legal_actions:  # our turn
                    continue
                try:
                    await seat.submit(rng.choice(list(state.legal_actions)), state.version, uuid.uuid4().hex)
                    moved_at = time.monotonic()
                except grpc.aio.AioRpcError:
                    moved_at = None  # a stale picture: the stream brings the new one


def run(level: str, matches: int, duration: float, seed: int = 1) -> dict[str, Any]:
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="mercado-agent-") as tmp:
        directory = Path(tmp)
        server_args = [
            "-m",
            "server",
            "serve",
            "--allow-anonymous",
            "--port",
            "0",
            "--web-port",
            "-1",
            "--db",
            str(directory / "a.db"),
        ]
        server_args += ["--agent-key", AGENT_KEY, "--rate-limit-exempt", "127.0.0.0/8"]
        server_args += ["--max-waiting-per-client", "1000000"]
        server = ServerProcess(server_args, directory / "server.log").start()
        agent_args = [
            "-m",
            "server",
            "ai",
            "--server",
            server.target,
            "--agent-key",
            AGENT_KEY,
            "--level",
            level,
        ]
        agent_args += [
            "--max-matches",
            str(matches),
            "--workers",
            str(cores),
            "--state-file",
            str(directory / "s"),
        ]
        agent = ServerProcess(agent_args, directory / "agent.log")
        try:
            agent.start(ready="agent started")
            replies: list[float] = []

            async def load() -> None:
                deadline = time.monotonic() + duration
                rng = random.Random(seed)
                await asyncio.gather(
                    *(
                        _human(server.target, level, deadline, random.Random(rng.random()), replies)
                        for _ in range(matches)
                    )
                )

            asyncio.run(load())
        finally:
            agent.stop()
            server.stop()
    per_second = len(replies) / duration
    return {
        "level": level,
        "matches": matches,
        "cores": cores,
        "duration_seconds": duration,
        "bot_moves": len(replies),
        "bot_moves_per_second": round(per_second, 2),
        "bot_reply_ms": latency_ms(replies),
        f"matches_kept_up_with_at_{THINK_SECONDS:g}_s_a_human_turn": round(per_second * THINK_SECONDS),
    }

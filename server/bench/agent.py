"""``mercado bench agent``: how promptly one AI agent answers, and how many matches it keeps up with.

A real server and a real ``mercado ai`` (one search process per core) run on
loopback; ``matches`` two-player matches of ``game`` each seat a bot of ``level``
against a client that answers at once with a random legal move. Over ``duration``
seconds this times each of the bot's answers from its turn starting (the first
update in which its seat is to move, in a sealed step as in a turn) to the update
that says it acted, once the server has applied it: what a player waits. A level
is prompt when the 99th percentile stays within half as much again as its time
cap. People take far longer over a turn than the bot: with a person who takes
``think`` seconds, one match asks the agent for a move about every ``think``
seconds, so the agent keeps up with about moves-per-second x think matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from .process import AGENT_KEY, ServerProcess, latency_ms

THINK_SECONDS = 10.0  # a person's turn, for the capacity figure
PROMPT = 1.5  # a level is prompt when its answers' 99th percentile is within this many times its cap


async def _human(
    target: str, game: str, level: str, deadline: float, rng: random.Random, answers: list[float]
) -> None:
    """Matches against the bot, one after another, until ``deadline``; times each of the bot's answers
    from its turn starting."""
    import grpc
    from mercado.v1 import match_pb2 as api
    from mercado_client import MercadoClient

    async with MercadoClient(target) as client:
        while time.monotonic() < deadline:
            match_id = await client.create_match(players=2, seats=[None, level], game=game)
            seat = await client.join(match_id, "bench")
            bot = 1 - seat.seat
            started: float | None = None  # when the bot's current turn started
            async for update in seat.follow():
                now = time.monotonic()
                if now > deadline:
                    break
                state = update.state
                if update.HasField("seat") and update.seat == bot and started is not None:
                    answers.append(now - started)
                    started = None
                playing = state.match.status == api.MATCH_STATUS_PLAYING
                if playing and bot in state.seats_to_move:
                    started = now if started is None else started
                else:
                    started = None
                if not playing or not state.legal_actions:  # not our turn
                    continue
                with contextlib.suppress(grpc.aio.AioRpcError):  # a stale picture: the stream brings the new
                    await seat.submit(rng.choice(list(state.legal_actions)), state.version, uuid.uuid4().hex)


def run(level: str, matches: int, duration: float, seed: int = 1, game: str = "mercado") -> dict[str, Any]:
    from ai.levels import level_config

    cap = level_config(game, level).seconds
    assert cap is not None
    load_before = os.getloadavg()[0]
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
            answers: list[float] = []

            async def load() -> None:
                deadline = time.monotonic() + duration
                rng = random.Random(seed)
                await asyncio.gather(
                    *(
                        _human(server.target, game, level, deadline, random.Random(rng.random()), answers)
                        for _ in range(matches)
                    )
                )

            asyncio.run(load())
        finally:
            agent.stop()
            server.stop()
    per_second = len(answers) / duration
    answer_ms = latency_ms(answers)
    return {
        "game": game,
        "level": level,
        "matches": matches,
        "cores": cores,
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],  # at the start, at the end
        "duration_seconds": duration,
        "level_cap_seconds": cap,
        "bot_moves": len(answers),
        "bot_moves_per_second": round(per_second, 2),
        "bot_answer_ms": answer_ms,
        "p99_over_cap": round(answer_ms["p99"] / 1000 / cap, 2),
        "prompt": answer_ms["p99"] <= PROMPT * cap * 1000,
        f"matches_kept_up_with_at_{THINK_SECONDS:g}_s_a_human_turn": round(per_second * THINK_SECONDS),
    }

"""``make run`` (scripts/run.sh): a server and an AI agent that play, and Ctrl-C that stops them
all cleanly, the agent's search processes too."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import grpc
import pytest
from mercado_client import MercadoClient
from positions import ROOT
from processes import in_session

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def play_against_the_agent(target: str) -> None:
    """Until the AI has answered twice: its search processes have started."""
    client = MercadoClient(target, reconnect_seconds=30)
    try:
        deadline = time.monotonic() + 60
        while True:  # the server starts, and its agent says hello a moment later
            try:
                match_id = await client.create_match(players=2, seats=[None, "easy"])
                break
            except grpc.aio.AioRpcError as error:
                waiting = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.FAILED_PRECONDITION)
                assert error.code() in waiting, error
                assert time.monotonic() < deadline, error.details()
                await asyncio.sleep(0.2)
        seat = await client.join(match_id, "person")
        rng = random.Random(1)
        moved = 0
        async for update in seat.follow():
            if update.state.legal_actions:
                if moved == 3:
                    return
                action = rng.choice(list(update.state.legal_actions))
                await seat.submit(action, update.state.version, uuid.uuid4().hex)
                moved += 1
    finally:
        await client.close()


def test_ctrl_c_stops_the_server_and_the_agent_cleanly(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "MERCADO_PORT": str(port),
        "MERCADO_WEB_PORT": "-1",
        "MERCADO_DB": str(tmp_path / "m.db"),
    }
    env.pop("MERCADO_AGENT_KEY", None)
    output = tmp_path / "run.log"
    with output.open("w") as log:
        script = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        asyncio.run(play_against_the_agent(f"127.0.0.1:{port}"))
        assert len(in_session(script.pid)) >= 4  # the script, the server, the agent, its search
        os.killpg(script.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends
        assert script.wait(timeout=30) == 0, output.read_text()
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
    text = output.read_text()
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    deadline = time.monotonic() + 10
    while left := in_session(script.pid):
        assert time.monotonic() < deadline, f"processes {left} outlived the script"
        time.sleep(0.05)

"""``make run`` (scripts/run.sh): a server and an AI agent that play, and Ctrl-C that stops them
all cleanly, the agent's search processes too; a banner once the server listens, and its log in a file
(or, asked for a log level, on the terminal)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
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


def start_run(tmp_path: Path, output: Path, *arguments: str) -> subprocess.Popen[bytes]:
    """``scripts/run.sh`` on free ports without the page, its data directory in ``tmp_path``."""
    env = {
        **os.environ,
        "MERCADO_PORT": "0",
        "MERCADO_WEB_PORT": "-1",
        "MERCADO_DB": str(tmp_path / "m.db"),
        "XDG_DATA_HOME": str(tmp_path / "data"),  # where platformdirs puts the user's data directory
    }
    for name in ("MERCADO_AGENT_KEY", "MERCADO_LOG_LEVEL"):
        env.pop(name, None)
    with output.open("w") as log:
        return subprocess.Popen(
            ["bash", "scripts/run.sh", *arguments],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def banner(output: Path, script: subprocess.Popen[bytes]) -> tuple[str, int]:
    """Wait for the banner: everything shown until it ends, and the port it names."""
    deadline = time.monotonic() + 60
    pattern = re.compile(r"(?s)server 127\.0\.0\.1:(\d+), one AI agent.*--bots easy\n")
    while (found := pattern.search(text := output.read_text())) is None:
        assert script.poll() is None and time.monotonic() < deadline, text
        time.sleep(0.1)
    return text, int(found.group(1))


def stop(script: subprocess.Popen[bytes], output: Path) -> str:
    os.killpg(script.pid, signal.SIGINT)
    try:
        assert script.wait(timeout=30) == 0, output.read_text()
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
    text = output.read_text()
    assert "Traceback" not in text, text
    return text


def test_a_person_sees_a_banner_once_the_server_listens_and_its_log_goes_to_a_file(tmp_path: Path) -> None:
    log_file = tmp_path / "data" / "mercado" / "server.log"
    output = tmp_path / "run.log"
    script = start_run(tmp_path, output)
    try:
        shown, port = banner(output, script)
        asyncio.run(play_against_the_agent(f"127.0.0.1:{port}"))  # the agent plays on that port
    finally:
        text = stop(script, output)
    assert f"The server's log is in {log_file} (warnings show here)." in shown
    assert f".venv/bin/mercado play --server 127.0.0.1:{port} --bots medium" in shown
    assert f".venv/bin/mercado play --server 127.0.0.1:{port} --match ID --as NAME" in shown
    assert "Play in your browser" not in shown  # no page on this run
    assert not [line for line in text.splitlines() if line.startswith("{")]  # no JSON on the terminal
    records = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert [r["port"] for r in records if r["message"] == "listening"] == [port]
    assert {"match created", "stopped"} <= {r["message"] for r in records}

    # A log level asked for brings the whole log back to the terminal; the last run's log is kept.
    output = tmp_path / "again.log"
    script = start_run(tmp_path, output, "--log-level", "info")
    try:
        shown, port = banner(output, script)
    finally:
        text = stop(script, output)
    assert f"The server's log is here, and in {log_file}." in shown
    listening = [json.loads(line) for line in text.splitlines() if '"listening"' in line]
    assert [record["port"] for record in listening] == [port]
    kept = log_file.with_name("server.log.1").read_text().splitlines()
    assert [json.loads(line) for line in kept] == records

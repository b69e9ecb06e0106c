"""``mercado play`` end to end: a real server, a random-move opponent, and answers piped to stdin.

(tests/clients/test_terminal.py drives it in a real terminal: Ctrl-C, resuming, the clock.)"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat
from positions import ROOT
from server_process import ServerProcess

from server.cli import main

GAME_SECONDS = 120.0


async def play_randomly(seat: Seat, seed: int) -> None:
    """Play ``seat`` with uniformly random legal actions until the match ends."""
    rng = random.Random(seed)
    async for update in seat.follow():
        state = update.state
        if state.match.status == api.MATCH_STATUS_FINISHED:
            return
        if state.match.status == api.MATCH_STATUS_PLAYING and state.legal_actions:
            await seat.act(rng.choice(list(state.legal_actions)), state.version)


async def run_play(target: str, match_id: str, answers: bytes, seats_file: Path) -> tuple[int, str, str]:
    """Run ``mercado play --match`` with ``answers`` on stdin; returns (exit status, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "server", "play", "--server", target, "--match", match_id, "--name", "tester"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "100", "PYTHONUNBUFFERED": "1", "MERCADO_SEATS_FILE": str(seats_file)},
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(answers), GAME_SECONDS)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return await process.wait(), out.decode(), err.decode()  # exited: wait returns its status


async def test_play_a_whole_match_against_a_random_opponent(
    own_server: ServerProcess, tmp_path: Path
) -> None:
    seats_file = tmp_path / "seats.json"
    async with MercadoClient(own_server.target) as client:
        match_id = await client.create_match(players=2, money="hidden", seed=11)
        opponent = asyncio.create_task(play_randomly(await client.join(match_id, "randy", seat=1), seed=3))
        # Every other answer is not a menu number and must be asked again.
        status, out, err = await run_play(own_server.target, match_id, b"x\n1\n" * 1000, seats_file)
        await asyncio.wait_for(opponent, 10)
        final = await client.view(match_id)
    assert status == 0, err[-2000:]
    assert final.match.status == api.MATCH_STATUS_FINISHED
    result = final.view.mercado.result
    ranks = list(final.match.ranks) or list(result.ranks)
    assert "final scores" in out
    table = [" ".join(line.split()) for line in out.rsplit("final scores", 1)[1].splitlines()]
    for seat, name in enumerate(["tester", "randy"]):
        row = next(line for line in table if f" {name} (seat {seat + 1}) " in line)
        words = row.split()
        assert words[0] == str(ranks[seat])
        assert words[4] == str(result.scores[seat])
        assert words[-1] == str(result.stands_on_market[seat])
    assert f"tester (seat 1) finished rank {ranks[0]} of 2 with a score of {result.scores[0]}" in out
    assert "randy (seat 2) opened a" in out  # the opponent's moves are narrated
    assert f"match {match_id}" in out  # the whole id
    assert "your move (1-" in out
    assert "type a number from 1 to" in out
    assert json.loads(seats_file.read_text()) == {"seats": []}  # finished: no longer held


async def test_end_of_input_leaves_with_an_error(own_server: ServerProcess, tmp_path: Path) -> None:
    async with MercadoClient(own_server.target) as client:
        match_id = await client.create_match(players=2, seed=11)
        opponent = asyncio.create_task(play_randomly(await client.join(match_id, "randy", seat=1), seed=3))
        status, out, _ = await run_play(own_server.target, match_id, b"", tmp_path / "seats.json")
        opponent.cancel()
    assert status == 1
    assert "input closed before the game ended" in out
    assert f"--resume {match_id}" in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bots", "medium,genius"], "'genius' is not one of easy, medium, hard, expert"),
        (["--players", "2", "--bots", "easy,hard"], "2 bots do not fit beside you in 2 seats"),
        (["--seat", "1"], "--seat needs --match"),
        (["--match", "0" * 32, "--seat", "0"], "0 is not in the range 1<=x<=4"),
        (["--resume", "--match", "0" * 32], "--resume takes up a held game: no --match"),
        (["--resume", "--bots", "easy", "--seed", "3"], "no --bots, --seed"),
        (["--resume", "--unrated"], "--resume takes up a held game: no --unrated"),
        (["--quick", "--match", "0" * 32], "--quick queues for a match the server makes: no --match"),
        (["--quick", "--bots", "easy", "--unrated"], "no --bots, --unrated"),
        (["--quick", "--resume"], "no --resume"),
        (["--no-allow-ai"], "--allow-ai and --no-allow-ai go with --quick"),
        (["--quick", "--players", "5"], "5 is not in the range 2<=x<=4"),
    ],
)
def test_bad_options_are_refused_before_connecting(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", "--server", "127.0.0.1:1", *arguments])
    assert result.exit_code == 2
    assert message in result.output


def test_an_unreachable_server_is_one_line() -> None:
    result = CliRunner().invoke(main, ["play", "--server", "127.0.0.1:1"])
    assert result.exit_code == 1
    assert result.output.startswith("cannot start:")
    assert "[unavailable] (server 127.0.0.1:1)" in " ".join(result.output.split())

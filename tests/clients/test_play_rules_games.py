"""``mercado play`` end to end with Oregano and Leilão: a real server, answers piped to stdin, through the
same session as Mercado's: against a random-move opponent, two people against each other, a game left
when the input ends and resumed, against the AI, and one found by matchmaking."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from mercado_client.games import game_enum, view_json
from positions import ROOT
from server_process import ServerProcess, Start
from terminal import ai_agent
from test_play import play_randomly

GAME_SECONDS = 120.0
ANSWERS = b"sing\n1\n" * 2000  # "1" reaches a legal action at every step; "sing" is none and asked again
# Leilão's bids are typed as cards: one of the numbers 1-20 is in the hand, and "1" picks the first stall.
CARDS = (b"sing\n" + b"".join(b"%d\n" % card for card in range(1, 21))) * 400


async def start_play(target: str, arguments: list[str], seats_file: Path) -> asyncio.subprocess.Process:
    """``mercado play`` on ``target`` with ``arguments``, its stdin and stdout piped."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "server", "play", "--server", target, *arguments),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "100", "PYTHONUNBUFFERED": "1", "MERCADO_SEATS_FILE": str(seats_file)},
    )


async def finish_play(
    process: asyncio.subprocess.Process, answers: bytes, shown: str = ""
) -> tuple[int, str]:
    """Pipe ``answers`` in and wait for the end: (exit status, everything shown, ``shown`` first)."""
    try:
        out, err = await asyncio.wait_for(process.communicate(answers), GAME_SECONDS)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    status = await process.wait()
    assert "Traceback" not in err.decode(), err.decode()[-2000:]
    return status, shown + out.decode()


def final_rows(out: str) -> list[str]:
    return [" ".join(line.split()) for line in out.rsplit("final scores", 1)[1].splitlines()]


def check_result(out: str, final: api.MatchState, seat: int, names: list[str]) -> None:
    """The result table and the closing line of ``seat``'s terminal agree with the match's result."""
    result = (view_json(final) or {})["result"]
    ranks = list(final.match.ranks) or result["ranks"]
    rows = final_rows(out)
    for other, name in enumerate(names):
        row = next(line for line in rows if f" {name} (seat {other + 1}) " in line)
        rank, after = row.split()[0], row.split(f" {name} (seat {other + 1}) ", 1)[1].split()
        assert rank == str(ranks[other]) and after[0] == str(result["scores"][other])
    me = f"{names[seat]} (seat {seat + 1})"
    assert f"{me} finished rank {ranks[seat]} of {len(names)} with a score of {result['scores'][seat]}" in out


@pytest.mark.parametrize(
    ("game", "narrated"),
    [("leilao", "randy (seat 2) has bid"), ("oregano", "randy (seat 2) declared ")],
)
async def test_play_a_whole_match_of_each_game_against_a_random_opponent(
    own_server: ServerProcess, tmp_path: Path, game: str, narrated: str
) -> None:
    seats_file = tmp_path / "seats.json"
    async with MercadoClient(own_server.target) as client:
        match_id = await client.create_match(players=2, seed=11, game=game)
        opponent = asyncio.create_task(play_randomly(await client.join(match_id, "randy", seat=1), seed=3))
        arguments = ["--match", match_id, "--name", "tester"]
        answers = CARDS if game == "leilao" else ANSWERS
        status, out = await finish_play(await start_play(own_server.target, arguments, seats_file), answers)
        await asyncio.wait_for(opponent, 10)
        final = await client.view(match_id)
    assert status == 0, out[-2000:]
    assert final.match.status == api.MATCH_STATUS_FINISHED
    assert final.match.game == game_enum(game)
    check_result(out, final, 0, ["tester", "randy"])
    assert narrated in out  # the opponent's moves are narrated
    assert f"match {match_id}" in out
    assert "your move (1-" in out and ", or an action like " in out
    assert "type a number from 1 to" in out
    assert f"mercado verify {match_id} --commitment " in out
    assert json.loads(seats_file.read_text()) == {"seats": []}  # finished: no longer held


async def test_two_people_play_leilao_from_two_terminals(own_server: ServerProcess, tmp_path: Path) -> None:
    target = own_server.target  # each person's own seat and player files
    creator = await start_play(
        target, ["--game", "leilao", "--players", "2", "--name", "ada"], tmp_path / "a.json"
    )
    assert creator.stdout is not None
    shown = ""
    while (found := re.search(r"created match ([0-9a-f]{32})", shown)) is None:
        line = await asyncio.wait_for(creator.stdout.readline(), GAME_SECONDS)
        assert line, shown
        shown += line.decode()
    match_id = found.group(1)
    joiner = await start_play(target, ["--match", match_id, "--name", "bob"], tmp_path / "bob" / "seats.json")
    (status_a, out_a), (status_b, out_b) = await asyncio.gather(
        finish_play(creator, CARDS, shown), finish_play(joiner, CARDS)
    )
    assert (status_a, status_b) == (0, 0), out_a[-2000:] + out_b[-2000:]
    async with MercadoClient(target) as client:
        final = await client.view(match_id)
    assert final.match.status == api.MATCH_STATUS_FINISHED and final.match.game == api.GAME_LEILAO
    assert "waiting for players: seat 2 (open)" in out_a
    assert f"`mercado play --server {target} --match {match_id}`" in " ".join(out_a.split())  # how to join
    for seat, out in enumerate((out_a, out_b)):
        check_result(out, final, seat, ["ada", "bob"])
    # Each saw the other's bids sealed, then revealed together.
    assert "bob (seat 2) has bid" in out_a or "bob (seat 2) has bid" in out_b
    assert "bids revealed: ada (seat 1) " in out_a and "bids revealed: ada (seat 1) " in out_b


async def test_an_oregano_game_left_when_the_input_ends_is_resumed(
    own_server: ServerProcess, tmp_path: Path
) -> None:
    seats_file = tmp_path / "seats.json"
    async with MercadoClient(own_server.target) as client:
        match_id = await client.create_match(players=2, seed=5, game="oregano")
        opponent = asyncio.create_task(play_randomly(await client.join(match_id, "randy", seat=1), seed=4))
        arguments = ["--match", match_id, "--name", "tester"]
        status, out = await finish_play(
            await start_play(own_server.target, arguments, seats_file), b"1\n" * 12
        )
        assert status == 1
        resume = f"mercado play --server {own_server.target} --resume {match_id}"
        assert f"input closed before the game ended: resume with `{resume}`" in " ".join(out.split())
        resumed = await start_play(own_server.target, ["--resume", match_id], seats_file)
        status, out = await finish_play(resumed, ANSWERS)
        await asyncio.wait_for(opponent, 10)
        final = await client.view(match_id)
    assert status == 0, out[-2000:]
    assert f"resuming match {match_id} as tester (seat 1)" in out
    check_result(out, final, 0, ["tester", "randy"])
    assert json.loads(seats_file.read_text()) == {"seats": []}


async def test_leilao_against_the_ai(own_server: ServerProcess, tmp_path: Path) -> None:
    with ai_agent(own_server.target, tmp_path / "agent.json"):
        arguments = ["--game", "leilao", "--bots", "easy", "--name", "ada"]
        status, out = await finish_play(
            await start_play(own_server.target, arguments, tmp_path / "s.json"), CARDS
        )
    assert status == 0, out[-2000:]
    match_id = re.search(r"created match ([0-9a-f]{32})", out)
    assert match_id is not None
    async with MercadoClient(own_server.target) as client:
        final = await client.view(match_id.group(1))
    assert final.match.game == api.GAME_LEILAO and final.match.seats[1].bot
    check_result(out, final, 0, ["ada", final.match.seats[1].display_name])
    assert re.search(r"your rating: -?\d+\.\d \([+-]\d+\.\d, was 0\.0\)", out)


async def test_quick_queues_for_an_oregano_match_and_plays_it(start: Start, tmp_path: Path) -> None:
    server = start("--matchmaking-ai-wait", "1")
    with ai_agent(server.target, tmp_path / "agent.json"):
        arguments = ["--quick", "--game", "oregano", "--name", "ada"]
        status, out = await finish_play(
            await start_play(server.target, arguments, tmp_path / "s.json"), ANSWERS
        )
    assert status == 0, out[-2000:]
    text = " ".join(out.split())
    assert "queueing for a 2-player Oregano match (bots fill empty seats after a while)" in text
    found = re.search(
        r"found match ([0-9a-f]{32}) after 0:\d\d: you are ada \(seat (\d)\); against: Easy AI", text
    )
    assert found is not None, text[-2000:]
    async with MercadoClient(server.target) as client:
        final = await client.view(found.group(1))
    assert final.match.game == api.GAME_OREGANO and final.match.status == api.MATCH_STATUS_FINISHED
    seat = int(found.group(2)) - 1
    names = [info.display_name for info in sorted(final.match.seats, key=lambda info: info.seat)]
    check_result(out, final, seat, names)

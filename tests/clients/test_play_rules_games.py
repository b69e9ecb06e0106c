"""``mercado play`` end to end with Oregano and Leilão: a real server, a random-move opponent, and
answers piped to stdin through the same session as Mercado's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from mercado_client.games import view_json
from server_process import ServerProcess
from test_play import play_randomly, run_play


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
        # "1" reaches a legal action at every step; every other answer is typed out and not an action.
        status, out, err = await run_play(own_server.target, match_id, b"sing\n1\n" * 2000, seats_file)
        await asyncio.wait_for(opponent, 10)
        final = await client.view(match_id)
    assert status == 0, err[-2000:]
    assert final.match.status == api.MATCH_STATUS_FINISHED
    assert final.match.game == {"leilao": api.GAME_LEILAO, "oregano": api.GAME_OREGANO}[game]
    result = (view_json(final) or {})["result"]
    ranks = list(final.match.ranks) or result["ranks"]
    assert "final scores" in out
    table = [" ".join(line.split()) for line in out.rsplit("final scores", 1)[1].splitlines()]
    for seat, name in enumerate(["tester", "randy"]):
        row = next(line for line in table if f" {name} (seat {seat + 1}) " in line)
        assert row.split()[:1] == [str(ranks[seat])]
        assert row.split()[4] == str(result["scores"][seat])
    assert f"tester (seat 1) finished rank {ranks[0]} of 2 with a score of {result['scores'][0]}" in out
    assert narrated in out  # the opponent's moves are narrated
    assert f"match {match_id}" in out
    assert "your move (1-" in out and ", or an action like " in out
    assert "type a number from 1 to" in out
    assert json.loads(seats_file.read_text()) == {"seats": []}  # finished: no longer held

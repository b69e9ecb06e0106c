"""A finished match's replay (seed, options, actions) is reproduced by `mercado rules`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import Connect
from matchplay import play_random_match, seated_match
from mercado.v1 import mercado_pb2 as pb
from mercado_client import action_json

ROOT = Path(__file__).resolve().parents[2]


def rules(*args: str, stdin: str | None = None) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "server", "rules", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(done.stdout)


async def test_mercado_rules_reproduces_a_replay(connect: Connect, tmp_path: Path) -> None:
    match_id, seats = await seated_match(connect, players=3, money="public", seed=4242)
    await play_random_match(seats, seed=7)
    replay = await connect().replay(match_id)
    money = "public" if replay.mercado.money == pb.MONEY_PUBLIC else "hidden"
    position = rules("new", "--players", str(replay.players), "--seed", str(replay.seed), "--money", money)
    for step in replay.steps:
        assert position["current_player"] == step.seat
        action = json.dumps(action_json(step.action))
        position = rules("apply", "-", action, stdin=json.dumps(position))["position"]
    final = await seats[0].view()
    assert position["status"] == "finished"
    assert position["result"]["scores"] == list(final.view.mercado.result.scores)
    assert position["result"]["ranks"] == list(final.view.mercado.result.ranks)

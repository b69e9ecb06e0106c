"""A finished match's replay (seed, options, actions) is reproduced by `mercado rules`."""

from __future__ import annotations

import json

from matchplay import Connect, play_random_match, replay_options, seated_match
from mercado_client import action_json
from positions import rules, single_json


async def test_mercado_rules_reproduces_a_replay(connect: Connect) -> None:
    match_id, seats = await seated_match(connect, players=3, money="public", seed=4242)
    await play_random_match(seats, seed=7)
    replay = await connect().replay(match_id)
    money = replay_options(replay).money
    new = ("new", "--players", str(replay.players), "--seed", str(replay.seed), "--money", money)
    position = single_json(rules(*new))
    for step in replay.steps:
        assert position["current_player"] == step.seat
        action = json.dumps(action_json(step.action))
        position = single_json(rules("apply", "-", action, stdin=json.dumps(position)))["position"]
    final = await seats[0].view()
    assert position["status"] == "finished"
    assert position["result"]["scores"] == list(final.view.mercado.result.scores)
    assert position["result"]["ranks"] == list(final.view.mercado.result.ranks)

"""Nobody can foresee the AI's sealed choices: a rival who rebuilds the view the server's AI chose from
(in Leilão every seat can) and runs the same AI on it, with the seed anyone could compute or with many
of its own, predicts at most a third of them."""

from __future__ import annotations

from server_process import Start

from server.bench.predict import rival, seat_view
from server.games.registry import game_named

SEALED_CHOICES = 8  # the first of a match: enough to tell, and a few seconds at easy


async def test_a_rival_cannot_predict_the_stand_in_s_sealed_bids(start: Start) -> None:
    server = start()
    found = await rival(server.target, "leilao", "easy", seed=7, samples=8, limit=SEALED_CHOICES)
    assert len(found) == SEALED_CHOICES
    same_seed = sum(p.same_seed == p.actual for p in found)
    most_frequent = sum(p.most_frequent == p.actual for p in found)
    assert same_seed <= SEALED_CHOICES / 3, f"{same_seed} of {SEALED_CHOICES} predicted with its seed"
    assert most_frequent <= SEALED_CHOICES / 3, f"{most_frequent} of {SEALED_CHOICES} predicted by sampling"


def test_a_rival_rebuilds_the_view_the_ai_chooses_from() -> None:
    rules = game_named("leilao")
    state = rules.new_game(rules.options({"players": 2}), 3)
    rules.apply(state, 0, rules.action_from_json({"type": "bid", "card": 12, "extra": 4}))
    assert seat_view("leilao", rules.view(state, 0), 1) == rules.view(state, 1)

"""Mercado's view as the server sends it (built from the rules' state through cached fragments) is the
player view of the rules (``player_view``, its JSON) as a message, with the mover's legal actions and
what each costs and pays as the mover may see it."""

from __future__ import annotations

import random

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client.wire import action_message

from server.games.mercado import GameState, Options, apply, legal_actions, new_game, payments, player_view
from server.games.mercado.views import may_see_coins
from server.match import Update
from server.rpc.wires.mercado import MercadoWire, view_message


def expected(state: GameState, seat: int | None, moving: bool) -> api.MatchState:
    """What ``seat`` may see, from the rules' JSON view and ``payments``, each built one by one."""
    message = api.MatchState()
    message.view.mercado.CopyFrom(view_message(player_view(state, seat)))
    if moving:
        assert seat is not None
        for action in legal_actions(state):
            message.legal_actions.append(action_message(action.to_json()))
            cost, income = payments(state, action)
            preview = message.previews.add().mercado
            preview.cost = cost
            for player, amount in enumerate(income):
                if amount:
                    earning = preview.earnings.add(seat=player)
                    if may_see_coins(state.options, seat, player):
                        earning.amount = amount
    return message


@pytest.mark.parametrize(
    "options",
    [
        Options(players=2),
        Options(players=3, money="public"),
        Options(players=4, face_down_counts_as_available=False),
        Options(players=4, money="public"),
    ],
    ids=str,
)
def test_every_viewer_gets_the_rules_view_with_the_movers_actions(options: Options) -> None:
    wire = MercadoWire()
    for seed in range(3):
        state = new_game(options, seed=seed)
        rng = random.Random(seed)
        version = 0
        while True:
            update = Update(version=version, state=state.clone())
            for seat in (None, *range(options.players)):
                moving = seat == state.current_player and not state.is_terminal
                sent = api.MatchState.FromString(wire.view_bytes(update, seat, moving))
                assert sent == expected(state, seat, moving), (seed, version, seat)
            if state.is_terminal:
                break
            apply(state, rng.choice(legal_actions(state)))
            version += 1
        assert state.result is not None

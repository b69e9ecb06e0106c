"""Helpers of the Oregano and Leilão screens' tests: real engine positions as the server would send them."""

from __future__ import annotations

import random
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado_client.games import action_message, game_enum, json_struct
from screens import NAMES

from server.games.registry import game_named


def played(game: str, players: int = 3, steps: int = 40, seed: int = 5, **options: Any) -> Any:
    """A position of ``game`` after ``steps`` random legal actions (each by the lowest seat to move)."""
    rules = game_named(game)
    state = rules.new_game(rules.options({"players": players, **options}), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if rules.is_over(state):
            break
        seat = min(rules.to_move(state))
        rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    return state


def finished(game: str, players: int = 2, seed: int = 1) -> Any:
    return played(game, players, steps=100_000, seed=seed)


def match_state(game: str, state: Any, seat: int | None, version: int = 9) -> api.MatchState:
    """What the server sends ``seat``: the rules' view in a Struct, its legal actions, the seats to move."""
    rules = game_named(game)
    view = rules.view(state, seat)
    out = api.MatchState(version=version)
    getattr(out.view, game).view.CopyFrom(json_struct(view))
    if seat is not None:
        out.your_seat = seat
        for action in rules.legal_actions(state, seat) if seat in rules.to_move(state) else []:
            out.legal_actions.append(action_message(game, rules.action_to_json(action)))
    over = rules.is_over(state)
    movers = sorted(rules.to_move(state))
    out.seats_to_move.extend(movers)
    if len(movers) == 1:
        out.to_move = movers[0]
    out.match.match_id = "m1"
    out.match.game = game_enum(game)
    out.match.players = state.players
    out.match.status = api.MATCH_STATUS_FINISHED if over else api.MATCH_STATUS_PLAYING
    for s in range(out.match.players):
        out.match.seats.add(seat=s, taken=True, display_name=NAMES[s])
    return out

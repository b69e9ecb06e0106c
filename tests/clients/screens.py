"""Helpers of the terminal client's rendering tests: real engine positions as the server would send them."""

from __future__ import annotations

import random

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.wire import action_message
from rich.console import Console, RenderableType

from server.games.mercado import (
    GameState,
    Money,
    Options,
    apply,
    legal_actions,
    new_game,
    payments,
    player_view,
)
from server.games.mercado.views import may_see_coins
from server.rpc.wires.mercado import view_message

NAMES = ["ada", "bob", "carmen", "dimitri"]
MATCH_ID = "88b42d4a0c1e4f0b9a7d3e2f1c0b5a69"


def played(players: int = 3, money: Money = "hidden", steps: int = 40, seed: int = 5) -> GameState:
    """A position after ``steps`` random actions, leaning towards customers and restaurants."""
    state = new_game(Options(players=players, money=money), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        actions = legal_actions(state)
        busy = [a for a in actions if a.type in ("bring_customer", "open_restaurant")]
        apply(state, rng.choice(busy if busy and rng.random() < 0.6 else actions))
    return state


def match_state(state: GameState, seat: int, version: int = 7, match_id: str = "m1") -> api.MatchState:
    """What the server (server.rpc.render) would send ``seat``: its view, and on its turn its legal
    actions with their previews (costs, and earnings as ``seat`` may see them)."""
    view = player_view(state, seat)
    out = api.MatchState(version=version, view=api.View(mercado=view_message(view)))
    if not state.is_terminal and state.current_player == seat:
        for action in legal_actions(state):
            out.legal_actions.append(action_message(action.to_json()))
            cost, income = payments(state, action)
            earnings = [
                pb.Earning(seat=p, amount=a) if may_see_coins(state.options, seat, p) else pb.Earning(seat=p)
                for p, a in enumerate(income)
                if a
            ]
            out.previews.add(mercado=pb.MercadoPreview(cost=cost, earnings=earnings))
    out.match.match_id = match_id
    out.match.players = state.players
    out.match.status = api.MATCH_STATUS_FINISHED if state.is_terminal else api.MATCH_STATUS_PLAYING
    for s in range(state.players):
        out.match.seats.add(seat=s, taken=True, display_name=NAMES[s])
    out.your_seat = seat
    if not state.is_terminal:
        out.to_move = view["current_player"]
    return out


def text(renderable: RenderableType, width: int = 120) -> str:
    console = Console(record=True, width=width, color_system=None)
    console.print(renderable)
    return console.export_text()


def squeezed(rendered: str) -> list[str]:
    """The lines of ``rendered`` with runs of blanks as one space."""
    return [" ".join(line.split()) for line in rendered.splitlines()]

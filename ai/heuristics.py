"""Cheap judgements of single actions, shared by the greedy bot and the search's rollouts."""

from __future__ import annotations

from server.games.mercado import Action, GameState, customer_income, stand_cost, stand_income


def immediate_gain(state: GameState, action: Action) -> int:
    """Coins the action earns the player to move right now (negative when it costs)."""
    kind = action.type
    if kind == "open_stand":
        return stand_income(state, action.good, action.square) - stand_cost(state, action.square)
    if kind == "bring_customer":
        return customer_income(state, action.customer, action.entrance)[state.current_player]
    if kind == "open_restaurant":
        # One coin now, and one not lost at the end for holding it.
        return 2
    return 1 if kind == "take_coin" else 0

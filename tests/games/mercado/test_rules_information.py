"""RULES.md, "Information" and the ``money`` option: what a player's view may hold."""

from __future__ import annotations

from typing import Any

import pytest
from positions import act, customer, load, stand

from server.games.mercado import apply, events_for, player_view


def info_position(money: str) -> dict[str, Any]:
    return {
        "options": {"money": money},
        "coins": [4, 9],
        "stand_hands": [["fish", "meat"], ["grapes"]],
        "restaurant_hands": [["pub"], []],
        "wooden_stands": [6, 7],
        "market": {
            "c1": stand("fish", 0),
            "c2": stand("meat", 1),
            "b1": {"face_down": "pizzeria"},
            "d2": {"restaurant": "sushi_bar"},
        },
        "entrances": {"left-1": customer(1, "fish", "grapes")},
        "offer": ["meat", "grapes", "fish"],
        "bag": ["tomatoes", "flowers"],
        "display": {"1": [["fish", "meat"]]},
        "decks": {"1": [["fish", "grapes"], ["meat", "grapes"]], "4": [["fish", "flowers"]]},
    }


@pytest.mark.parametrize(
    "money,seat,coins",
    [
        ("hidden", 0, [4, None]),
        ("hidden", 1, [None, 9]),
        ("hidden", None, [None, None]),
        ("public", 0, [4, 9]),
        ("public", 1, [4, 9]),
        ("public", None, [4, 9]),
    ],
)
def test_coins_are_seen_per_the_money_option(money: str, seat: int | None, coins: list[int | None]) -> None:
    view = player_view(load(**info_position(money)), seat)
    assert view["coins"] == coins


@pytest.mark.parametrize("seat", [0, 1, None])
def test_hidden_information_is_not_in_any_view(seat: int | None) -> None:
    view = player_view(load(**info_position("public")), seat)
    assert view["market"]["b1"] == {"face_down": True}
    assert "pizzeria" not in repr(view)
    assert "bag" not in view and "decks" not in view and "rng" not in view
    assert view["bag_count"] == 2
    assert view["deck_counts"] == {"1": 2, "2": 0, "3": 0, "4": 1}


@pytest.mark.parametrize("seat", [0, 1, None])
def test_public_information_is_in_every_view(seat: int | None) -> None:
    view = player_view(load(**info_position("hidden")), seat)
    assert view["market"]["c1"] == {"stand": "fish", "owner": 0}
    assert view["market"]["d2"] == {"restaurant": "sushi_bar"}
    assert view["entrances"] == {"left-1": {"level": 1, "goods": ["fish", "grapes"]}}
    assert view["offer"] == ["meat", "grapes", "fish"]
    assert view["display"]["1"] == [["fish", "meat"]]
    assert view["stand_hands"] == [["fish", "meat"], ["grapes"]]
    assert view["restaurant_hands"] == [["pub"], []]
    assert view["wooden_stands"] == [6, 7]
    assert view["current_player"] == 0


def test_only_the_player_to_move_sees_legal_actions() -> None:
    state = load(**info_position("hidden"))
    assert {"type": "take_coin"} in player_view(state, 0)["legal_actions"]
    assert "legal_actions" not in player_view(state, 1)
    assert "legal_actions" not in player_view(state, None)


def customer_events(money: str) -> tuple[Any, list[dict[str, Any]]]:
    # Seat 0 brings fish+meat to top-c: c1 fish pays seat 0 and c2 meat pays seat 1.
    state = load(**info_position(money))
    events = apply(state, act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-c"))
    return state, events


def test_hidden_money_strips_other_players_income_from_events() -> None:
    state, events = customer_events("hidden")
    incomes = [e for e in events if e["type"] == "income"]
    assert incomes == [
        {"type": "income", "player": 0, "amount": 1},
        {"type": "income", "player": 1, "amount": 1},
    ]
    for_0 = [e for e in events_for(events, state.options, 0) if e["type"] == "income"]
    for_1 = [e for e in events_for(events, state.options, 1) if e["type"] == "income"]
    for_spectator = [e for e in events_for(events, state.options, None) if e["type"] == "income"]
    assert for_0 == [{"type": "income", "player": 0, "amount": 1}, {"type": "income", "player": 1}]
    assert for_1 == [{"type": "income", "player": 0}, {"type": "income", "player": 1, "amount": 1}]
    assert for_spectator == [{"type": "income", "player": 0}, {"type": "income", "player": 1}]


def test_public_money_keeps_every_income_in_events() -> None:
    state, events = customer_events("public")
    for seat in (0, 1, None):
        assert events_for(events, state.options, seat) == events

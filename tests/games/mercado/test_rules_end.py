"""RULES.md, "End of the game" (the two triggers, the final round, the coin run) and "Final scoring"."""

from __future__ import annotations

from typing import Any

import pytest
from positions import (
    ENTRANCES,
    act,
    customer,
    filled_market,
    load,
    play,
    stand,
    stands,
)

from server.games.mercado import RULES, Action, GameState, apply, legal_actions, position

FIVE_OPEN = {"a1", "b2", "c3", "d4", "e5"}
SIX_OPEN = {*FIVE_OPEN, "a2"}


def status(state: GameState) -> str:
    return str(position.to_json(state)["status"])


def trigger_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "end_triggered"]


# --- trigger 1: a placement leaves at most 4 available squares ------------------


def test_stand_leaving_four_available_squares_triggers_the_end_at_the_end_of_the_turn() -> None:
    state = load(coins=[10, 10], market=filled_market(FIVE_OPEN))
    apply(state, act("open_stand", good="fish", square="a1"))
    assert (status(state), position.to_json(state)["phase"]) == ("playing", "take_offer")
    events = apply(state, act("take_offer", good="meat"))
    data = position.to_json(state)
    assert (data["status"], data["final_turns_left"], data["current_player"]) == ("final_round", 1, 1)
    assert trigger_events(events) == [{"type": "end_triggered", "reason": "squares", "final_turns": 1}]


def test_stand_leaving_five_available_squares_does_not_trigger() -> None:
    state = load(coins=[10, 10], market=filled_market(SIX_OPEN))
    events = play(state, act("open_stand", good="fish", square="a1"), act("take_offer", good="meat"))
    assert (status(state), position.to_json(state)["final_turns_left"]) == ("playing", None)
    assert trigger_events(events) == []


def test_stand_with_empty_offer_triggers_at_once() -> None:
    state = load(coins=[10, 10], market=filled_market(FIVE_OPEN), offer=[], bag=[])
    apply(state, act("open_stand", good="fish", square="a1"))
    assert (status(state), state.current_player) == ("final_round", 1)


def test_restaurant_leaving_four_available_squares_triggers_the_end() -> None:
    state = load(market=filled_market(FIVE_OPEN), restaurant_hands=[["pub"], []])
    events = apply(state, act("open_restaurant", restaurant="pub", square="c3"))
    assert (status(state), position.to_json(state)["final_turns_left"]) == ("final_round", 1)
    assert trigger_events(events) == [{"type": "end_triggered", "reason": "squares", "final_turns": 1}]


def test_restaurant_leaving_five_available_squares_does_not_trigger() -> None:
    state = load(market=filled_market(SIX_OPEN), restaurant_hands=[["pub"], []])
    apply(state, act("open_restaurant", restaurant="pub", square="c3"))
    assert status(state) == "playing"


@pytest.mark.parametrize("counts,expected", [(True, "playing"), (False, "final_round")])
def test_face_down_square_counts_as_available_per_option(counts: bool, expected: str) -> None:
    # After the placement five squares have no stand and no face-up restaurant; e1 holds a
    # face-down restaurant. Decision (French page): it counts, unless the option says otherwise.
    market = filled_market({*FIVE_OPEN, "e1"}, e1={"face_down": "pizzeria"})
    state = load(
        options={"face_down_counts_as_available": counts},
        market=market,
        restaurant_hands=[["pub"], []],
    )
    apply(state, act("open_restaurant", restaurant="pub", square="a1"))
    assert status(state) == expected


@pytest.mark.parametrize("counts,expected", [(True, "playing"), (False, "final_round")])
def test_face_down_option_with_a_stand_placement(counts: bool, expected: str) -> None:
    market = filled_market({*FIVE_OPEN, "e1"}, e1={"face_down": "pizzeria"}, b2={"face_down": "pub"})
    state = load(options={"face_down_counts_as_available": counts}, market=market, coins=[10, 10])
    # The stand goes on c3; left open: a1, d4, e5 and the face-down squares b2 and e1.
    play(state, act("open_stand", good="fish", square="c3"), act("take_offer", good="meat"))
    # With counts=False only 3 squares count; with True 5 do.
    assert status(state) == expected


def test_taking_a_coin_never_triggers_the_end() -> None:
    state = load(market=filled_market({"a1", "b2"}))
    events = apply(state, act("take_coin"))
    assert status(state) == "playing"
    assert trigger_events(events) == []


def test_customer_placement_does_not_use_trigger_1() -> None:
    market = filled_market({"b2", "c3", "d4"}, a1=stand("fish", 0))
    state = load(market=market, display={"1": [["fish", "meat"]]})
    apply(state, act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-a"))
    assert status(state) == "playing"


# --- trigger 2: a customer placement leaves at most 4 empty entrances -------------


def entrances_leaving_empty(empty: set[str]) -> dict[str, Any]:
    return {e: customer(1, "flowers", "grapes") for e in ENTRANCES if e not in empty}


FIVE_EMPTY = {"top-a", "top-e", "bottom-e", "left-5", "right-5"}


def test_customer_leaving_four_empty_entrances_triggers_the_end() -> None:
    state = load(
        players=3,
        market={"a1": stand("fish", 0)},
        entrances=entrances_leaving_empty(FIVE_EMPTY),
        display={"1": [["fish", "meat"]]},
    )
    events = apply(state, act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-a"))
    data = position.to_json(state)
    assert (data["status"], data["final_turns_left"], data["current_player"]) == ("final_round", 2, 1)
    assert trigger_events(events) == [{"type": "end_triggered", "reason": "entrances", "final_turns": 2}]


def test_customer_leaving_five_empty_entrances_does_not_trigger() -> None:
    state = load(
        market={"a1": stand("fish", 0)},
        entrances=entrances_leaving_empty({*FIVE_EMPTY, "top-b"}),
        display={"1": [["fish", "meat"]]},
    )
    apply(state, act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-a"))
    assert status(state) == "playing"


def test_placement_does_not_use_trigger_2() -> None:
    state = load(
        coins=[5, 5], entrances=entrances_leaving_empty({"top-a", "top-b"}), restaurant_hands=[["pub"], []]
    )
    apply(state, act("open_restaurant", restaurant="pub", square="c3"))
    assert status(state) == "playing"


# --- the final round -----------------------------------------------------------


@pytest.mark.parametrize(
    "players,trigger_seat", [(2, 0), (2, 1), (3, 0), (3, 2), (4, 1), (4, 3)], ids=lambda v: str(v)
)
def test_after_the_trigger_every_other_player_takes_exactly_one_turn(players: int, trigger_seat: int) -> None:
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[trigger_seat] = ["pub"]
    state = load(
        players=players,
        current_player=trigger_seat,
        market=filled_market(FIVE_OPEN),
        restaurant_hands=hands,
        coins=[3] * players,
    )
    apply(state, act("open_restaurant", restaurant="pub", square="a1"))
    movers = []
    for turns_left in range(players - 1, 0, -1):
        data = position.to_json(state)
        assert (data["status"], data["final_turns_left"]) == ("final_round", turns_left)
        movers.append(state.current_player)
        apply(state, act("take_coin"))
    data = position.to_json(state)
    assert movers == [(trigger_seat + i) % players for i in range(1, players)]
    assert data["status"] == "finished"
    assert data["current_player"] == (trigger_seat - 1) % players  # the seat that acted last
    assert data["final_turns_left"] is None
    expected = [4] * players
    expected[trigger_seat] = 3 + 1  # restaurant coin instead of a taken coin
    assert data["result"]["scores"] == expected
    assert legal_actions(state) == []


def test_a_second_trigger_does_not_extend_the_final_round() -> None:
    state = load(
        players=3,
        status="final_round",
        final_turns_left=2,
        current_player=1,
        market=filled_market({"a1", "b2", "c3"}),
        restaurant_hands=[[], ["pub"], []],
    )
    events = apply(state, act("open_restaurant", restaurant="pub", square="a1"))
    assert trigger_events(events) == []
    assert (status(state), position.to_json(state)["final_turns_left"], state.current_player) == (
        "final_round",
        1,
        2,
    )
    apply(state, act("take_coin"))
    assert status(state) == "finished"


def test_opening_a_stand_in_the_final_round_is_one_turn() -> None:
    state = load(players=3, status="final_round", final_turns_left=2, coins=[5, 5, 5])
    apply(state, act("open_stand", good="fish", square="a1"))
    assert position.to_json(state)["final_turns_left"] == 2
    apply(state, act("take_offer", good="meat"))
    assert (status(state), position.to_json(state)["final_turns_left"], state.current_player) == (
        "final_round",
        1,
        1,
    )


def test_last_turn_of_the_final_round_ends_the_game_whatever_the_action() -> None:
    state = load(
        players=2,
        status="final_round",
        final_turns_left=1,
        current_player=1,
        market={"b1": stand("meat", 1)},
        display={"1": [["meat", "grapes"]]},
        coins=[2, 2],
    )
    events = apply(state, act("bring_customer", level=1, goods=["meat", "grapes"], entrance="top-b"))
    assert status(state) == "finished"
    assert events[-1]["type"] == "game_ended"
    assert events[-1]["reason"] == "final_round"
    assert position.to_json(state)["result"]["scores"] == [2, 3]


# --- the consecutive-coin end --------------------------------------------------


@pytest.mark.parametrize("players,run", [(2, 4), (3, 3), (4, 4)])
def test_consecutive_coin_run_ends_the_game_at_once(players: int, run: int) -> None:
    state = load(players=players, coins=[0] * players)
    for i in range(run - 1):
        apply(state, act("take_coin"))
        assert (status(state), state.consecutive_coins) == ("playing", i + 1)
    events = apply(state, act("take_coin"))
    data = position.to_json(state)
    assert data["status"] == "finished"
    assert data["current_player"] == (run - 1) % players
    assert events[-1]["type"] == "game_ended"
    assert events[-1]["reason"] == "consecutive_coins"
    assert sum(data["coins"]) == run


def non_coin_turns() -> dict[str, list[Action]]:
    return {
        "open_stand": [act("open_stand", good="fish", square="a1"), act("take_offer", good="meat")],
        "bring_customer": [act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-c")],
        "open_restaurant": [act("open_restaurant", restaurant="pub", square="a1")],
    }


@pytest.mark.parametrize("turn", non_coin_turns().values(), ids=non_coin_turns().keys())
def test_a_non_coin_action_resets_the_run(turn: list[Action]) -> None:
    state = load(
        consecutive_coins=3,
        coins=[3, 3],
        market={"c1": stand("fish", 0)},
        restaurant_hands=[["pub"], []],
        display={"1": [["fish", "meat"]]},
    )
    play(state, *turn)
    assert state.consecutive_coins == 0
    for _ in range(3):
        apply(state, act("take_coin"))
        assert status(state) == "playing"
    apply(state, act("take_coin"))
    assert status(state) == "finished"


@pytest.mark.parametrize("players,turns_left", [(3, 2), (4, 3), (4, 2)])
def test_coin_run_also_ends_the_game_during_the_final_round(players: int, turns_left: int) -> None:
    run = 4 if players == 2 else players
    state = load(
        players=players,
        status="final_round",
        final_turns_left=turns_left,
        consecutive_coins=run - 1,
    )
    events = apply(state, act("take_coin"))
    assert status(state) == "finished"
    assert events[-1]["reason"] == "consecutive_coins"


# --- final scoring -------------------------------------------------------------


def finish_by_coin(players: int, **overrides: Any) -> dict[str, Any]:
    """The last seat takes the final coin of a run; returns the result."""
    run = 4 if players == 2 else players
    state = load(players=players, current_player=players - 1, consecutive_coins=run - 1, **overrides)
    apply(state, act("take_coin"))
    data = position.to_json(state)
    assert data["status"] == "finished"
    return dict(data["result"])


def test_each_restaurant_in_hand_costs_one_and_scores_may_go_negative() -> None:
    result = finish_by_coin(2, coins=[0, 3], restaurant_hands=[["pub", "pizzeria"], []])
    assert result == {"scores": [-2, 4], "stands_on_market": [0, 0], "ranks": [2, 1]}


def test_a_score_is_explained_as_coins_less_restaurants_and_shown_as_coins_are() -> None:
    market = stands(1, "fish", "a1", "b1")
    hidden = {"money": "hidden"}
    state = load(coins=[4, 3], market=market, restaurant_hands=[["pub", "pizzeria"], []], options=hidden)
    first, second = RULES.score_parts(state)
    assert [(p.name, p.points, p.counted) for p in first.parts] == [
        ("coins", 4, None),
        ("restaurants_in_hand", -2, 2),
    ]
    assert first.total == 2 and second.total == 3
    assert [(t.name, t.value) for t in second.tie_breaks] == [("stands_on_market", 2)]
    # With hidden money a running score is its seat's alone; with public money everyone's.
    assert [RULES.score_shown(state, 1, viewer) for viewer in (None, 0, 1)] == [False, False, True]
    public = load(coins=[4, 3])
    assert all(RULES.score_shown(public, 1, viewer) for viewer in (None, 0, 1))


def test_every_final_score_is_shown_once_the_game_is_over() -> None:
    hidden = {"money": "hidden"}
    state = load(current_player=1, consecutive_coins=3, restaurant_hands=[["pub"], []], options=hidden)
    apply(state, act("take_coin"))  # the fourth coin in a row of two players ends the game
    assert all(RULES.score_shown(state, seat, viewer) for seat in (0, 1) for viewer in (None, 0, 1))
    assert [s.total for s in RULES.score_parts(state)] == list(state.result.scores)  # type: ignore[union-attr]


def test_restaurant_penalty_can_change_the_winner() -> None:
    result = finish_by_coin(2, coins=[5, 3], restaurant_hands=[["sushi_bar", "tea_house"], ["pub"]])
    assert result["scores"] == [3, 3]
    assert result["ranks"] == [1, 1]


def test_most_coins_wins_whatever_the_stands() -> None:
    market = {**stands(1, "fish", "a1", "b1", "c1", "d1"), "e1": stand("fish", 0)}
    result = finish_by_coin(2, coins=[6, 4], market=market)
    assert result == {"scores": [6, 5], "stands_on_market": [1, 4], "ranks": [1, 2]}


def test_tie_broken_by_most_stands_on_the_market() -> None:
    market = {**stands(0, "meat", "a1", "b1"), "c1": stand("meat", 1), **stands(2, "meat", "a2", "b2", "c2")}
    result = finish_by_coin(3, coins=[5, 5, 4], market=market)
    assert result == {"scores": [5, 5, 5], "stands_on_market": [2, 1, 3], "ranks": [2, 3, 1]}


def test_players_still_tied_share_the_rank() -> None:
    market = {
        **stands(0, "meat", "a1", "b1"),
        **stands(1, "meat", "c1", "d1"),
        **stands(2, "meat", "a2", "b2", "c2", "d2", "e2"),
    }
    result = finish_by_coin(3, coins=[6, 6, 3], market=market)
    assert result == {"scores": [6, 6, 4], "stands_on_market": [2, 2, 5], "ranks": [1, 1, 3]}


def test_shared_second_place_in_four_players() -> None:
    market = {"a1": stand("fish", 1), "b1": stand("fish", 2), "c1": stand("fish", 3), "d1": stand("fish", 3)}
    result = finish_by_coin(4, coins=[3, 7, 7, 6], market=market)
    assert result == {"scores": [3, 7, 7, 7], "stands_on_market": [0, 1, 1, 2], "ranks": [4, 2, 2, 1]}

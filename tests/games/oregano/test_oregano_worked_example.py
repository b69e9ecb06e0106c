"""RULES.md "Worked example", step by step: two players, defaults, round 7."""

from __future__ import annotations

from test_oregano_support import SKIP, of_type, play, position, types

from server.games.oregano import RULES, OreganoState
from server.games.oregano import actions as A
from server.games.oregano.previews import preview
from server.games.oregano.scoring import score, score_parts

ANA, BEN = 0, 1


def _before_round_7(rng: int) -> OreganoState:
    """Ben ends his round-6 turn (skipping his last action); Ana then starts round 7."""
    return position(
        round=6,
        phase="action",
        declared=["sell", "attract"],
        step=1,
        current=BEN,
        first=ANA,
        gold=[6, 4],
        resources=[{"wood": 1}, {"stone": 2}],
        areas=[
            {"1a": "lumber_merchant", "1b": "builder", "1c": "clothing_store", "2a": "cafe"},
            {"1a": "stone_merchant", "1b": "fountain", "1c": "general_store", "2d": "cafe"},
        ],
        boulevard=[("restaurant", 1, ANA)],
        strategies=["step_by_step", "aggressive_merger"],
        records=[{"levelled": [3]}, {}],  # since taking her card Ana levelled the cafe (id 3)
        rng=rng,
    )


def _ana_draws(rng: int) -> list[str]:
    state = _before_round_7(rng)
    play(state, BEN, SKIP)
    play(state, ANA, A.declare("resource", "attract"))
    play(state, ANA, A.take_resources(BEN, "1a"))
    play(state, ANA, A.level_up("1c", "2c"))
    return sorted(state.drawn[ANA])


def test_worked_example() -> None:
    # The deck is shuffled from rng: pick a position whose shuffle gives Ana the example's cards.
    rng = next(r for r in range(5000) if _ana_draws(r) == ["chain_store", "savvy_shopper"])
    state = _before_round_7(rng)
    play(state, BEN, SKIP)

    # Ana's turn. Income: cafe 1 + 1 = 2, clothing store 2; 6 -> 10.
    assert state.round == 7 and RULES.to_move(state) == {ANA}
    assert state.gold[ANA] == 10
    play(state, ANA, A.declare("resource", "attract"))
    # She takes 1 stone from Ben's level-1 stone merchant, paying him 2 (Ana 8, Ben 6).
    taking = preview(state, ANA, A.take_resources(BEN, "1a"))
    assert (taking.cost, taking.earnings, taking.resources) == ((2, 0, 0, 0), (0, 2), (0, 1, 0))
    assert taking.score_change == -2 and not taking.achieves_strategy
    play(state, ANA, A.take_resources(BEN, "1a"))
    assert state.gold == [8, 6] and state.resources[ANA] == {"wood": 1, "stone": 1, "metal": 0}
    # She levels the clothing store 1c -> 2c: 1 wood, 1 stone and 3 gold (Ana 5, no cards).
    # Two different shops levelled: achieved, +5 (Ana 10) and first_strategy.
    levelling = preview(state, ANA, A.level_up("1c", "2c"))
    assert (levelling.cost, levelling.earnings) == ((3, 1, 1, 0), (5, 0))
    assert levelling.achieves_strategy and levelling.bonuses == ("first_strategy",)
    assert levelling.score_change == 2 + (5 - 2) + 5  # gold, the shop's level, the bonus card
    events = play(state, ANA, A.level_up("1c", "2c"))
    assert types(events) == [
        "levelled_up",
        "strategy_achieved",
        "bonus_taken",
        "deck_shuffled",
        "strategy_drawn",
    ]
    assert of_type(events, "levelled_up")[0]["paid"] == {"wood": 1, "stone": 1, "gold": 3}
    assert sum(state.resources[ANA].values()) == 0
    assert state.gold[ANA] == 10 and state.bonuses[ANA] == ["first_strategy"]
    # She shows and returns step_by_step, draws chain_store and savvy_shopper, keeps chain_store.
    assert of_type(events, "strategy_achieved")[0]["card"] == "step_by_step"
    assert sorted(state.drawn[ANA]) == ["chain_store", "savvy_shopper"]
    events = play(state, ANA, A.keep_strategy("chain_store"))
    assert state.strategies[ANA] == "chain_store"
    # No casino. Round 7 < 12: no stock check; Ben's turn.
    assert not of_type(events, "end_triggered") and RULES.to_move(state) == {BEN}

    # Ben's turn. Income: general store 1 + 0 + 1 (fountain) = 2, cafe 1 + 1 + 1 = 3; 6 -> 11.
    assert of_type(events, "income") == [{"type": "income", "seat": BEN, "gold": 5}]
    assert state.gold[BEN] == 11
    play(state, BEN, A.declare("acquire", "resource"))
    # He acquires the restaurant for 3 - 1 = 2 (Ben 9) into 1d: column 1 full, first_column.
    acquiring = preview(state, BEN, A.acquire("restaurant", 1, ANA, "1d"))
    assert acquiring.cost == (2, 0, 0, 0) and acquiring.bonuses == ("first_column",)
    assert acquiring.score_change == -2 + 2 + 5 and not acquiring.achieves_strategy
    events = play(state, BEN, A.acquire("restaurant", 1, ANA, "1d"))
    assert state.gold[BEN] == 9 and state.bonuses[BEN] == ["first_column"]
    assert RULES.view(state, BEN)["strategies"][BEN] == {
        "card": "aggressive_merger",
        "progress": 1,
        "goal": 2,
    }
    # He takes 1 stone from his own merchant, free (3 stone). That ends his turn, and Ana's
    # round-8 turn starts with her income, so the example's "now" is kept before it.
    now = RULES.clone(state)
    events = play(state, BEN, A.take_resources(BEN, "1a"))
    assert of_type(events, "took_resources")[0]["fee"] == 0
    assert state.resources[BEN]["stone"] == 3 and state.gold[BEN] == 9
    assert of_type(events, "income") == [{"type": "income", "seat": ANA, "gold": 5}]

    # If the game ended now: Ana 10 + (2 + 2 + 5 + 5) + 5 = 29; Ben 9 + (2 + 2 + 2 + 2 + 5) + 5 = 27
    # (resource cards are worth nothing, so Ben's stone changes no score).
    assert (score(now, ANA), score(now, BEN)) == (29, 27)
    assert score(state, BEN) == 27
    parts = {part.name: (part.points, part.counted) for part in score_parts(now, ANA).parts}
    assert parts == {
        "gold": (10, None),
        "shops_level_1": (2 + 2, 2),
        "shops_level_2": (5 + 5, 2),
        "shops_level_3": (0, 0),
        "shops_level_4": (0, 0),
        "bonus_cards": (5, 1),
    }
    assert [(t.name, t.value) for t in score_parts(now, BEN).tie_breaks] == [("gold", 9), ("bonus_cards", 1)]
    # (The casino sentence of the example is test_oregano_turn.py's test_casino_*: 12 gold against
    # 10 and 4 -> 23 on a 5, 7 on a 1-4.)

"""RULES.md "A turn": income, declaration, attract, resource, sell, acquire and the casino."""

from __future__ import annotations

import pytest
from test_oregano_support import SKIP, acting, of_type, play, position, shop_at, types

from server.games.oregano import RULES, IllegalAction
from server.games.oregano import actions as A
from server.games.oregano import components as C
from server.games.oregano.rules import income_of


def _end_of_turn_of_seat_1(**facts: object) -> tuple[list[dict[str, object]], object]:
    """Seat 1 skips its last action; the events include seat 0's next turn (its income)."""
    state = position(phase="action", declared=["sell", "attract"], step=1, current=1, **facts)  # type: ignore[arg-type]
    return play(state, 1, SKIP), state


# Income (Decision): base + (level - 1) + fountain for each general shop, at the turn's start.
def test_income_per_general_shop_and_level() -> None:
    events, state = _end_of_turn_of_seat_1(
        areas=[
            {
                "1a": "lumber_merchant",
                "1b": "cafe",
                "2a": "general_store",
                "3a": "clothing_store",
                "4a": "restaurant",
                "1c": "builder",
            },
            {},
        ],
        gold=[0, 0],
    )
    # cafe 1, general store 1 + 1, clothing 2 + 2, restaurant 3 + 3; merchant and builder nothing
    assert of_type(events, "income") == [{"type": "income", "seat": 0, "gold": 1 + 2 + 4 + 6}]
    assert state.gold == [13, 0]  # type: ignore[attr-defined]


# Decision: the fountain adds 1 to its owner's general shops only, including ones placed later.
def test_fountain_only_its_owners_general_shops() -> None:
    state = position(
        areas=[{"1a": "fountain", "1b": "cafe", "1c": "stone_merchant"}, {"1a": "cafe"}],
    )
    assert income_of(state, 0) == 2 and income_of(state, 1) == 1
    state = acting("attract", areas=[{"1a": "fountain"}, {}], resources=[{"wood": 1}, {}])
    play(state, 0, A.build("cafe", "1b"))
    assert income_of(state, 0) == 2


# Declare (Decision): the two kinds must differ; option same_action_twice.
def test_declare_two_different_kinds() -> None:
    state = position()
    legal = RULES.legal_actions(state, 0)
    assert len(legal) == 12 and all(a.first != a.second for a in legal)
    with pytest.raises(IllegalAction, match="must differ"):
        play(state, 0, A.declare("sell", "sell"))


def test_option_same_action_twice() -> None:
    state = position(options={"same_action_twice": True})
    assert len(RULES.legal_actions(state, 0)) == 16
    play(state, 0, A.declare("sell", "sell"))
    assert state.declared == ["sell", "sell"]


# Declare: the declaration is public and fixes the order of the two actions.
def test_declared_actions_are_performed_in_order() -> None:
    state = position(areas=[{"1a": "cafe"}, {}])
    events = play(state, 0, A.declare("sell", "resource"))
    assert of_type(events, "declared") == [
        {"type": "declared", "seat": 0, "first": "sell", "second": "resource"}
    ]
    assert RULES.legal_actions(state, 0) == [A.sell("1a"), SKIP]
    with pytest.raises(IllegalAction, match="declared action is sell"):
        play(state, 0, A.take_resources(0, "1a"))
    play(state, 0, SKIP)
    assert state.step == 1 and RULES.legal_actions(state, 0) == [SKIP]  # no resource shop anywhere


# Declare: skipping is always legal, and the only choice when nothing is.
def test_skip_is_always_legal() -> None:
    for kind in C.ACTION_KINDS:
        assert RULES.legal_actions(acting(kind, gold=[0, 0]), 0) == [SKIP]
    state = acting("sell", areas=[{"1a": "cafe"}, {}])
    assert SKIP in RULES.legal_actions(state, 0)


def test_not_your_turn() -> None:
    state = position()
    assert RULES.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        play(state, 1, A.declare("sell", "attract"))


# Attract, build: stock, cost to the supply/bank, an empty cell of column 1, at level 1.
def test_build_pays_cards_to_the_supply() -> None:
    state = acting("attract", resources=[{"wood": 1, "stone": 2}, {}], supply={"wood": 10, "stone": 10})
    play(state, 0, A.build("clothing_store", "1d"))
    assert shop_at(state, 0, "1d") == "clothing_store"
    assert state.resources[0] == {"wood": 0, "stone": 1, "metal": 0}
    assert state.supply == {"wood": 11, "stone": 11, "metal": 18}
    assert state.stock["clothing_store"] == 15


def test_build_merchant_costs_five_gold() -> None:
    state = acting("attract", gold=[5, 0])
    play(state, 0, A.build("metal_merchant", "1a"))
    assert state.gold[0] == 0


def test_build_refusals() -> None:
    state = acting("attract", areas=[{"1a": "cafe"}, {}], resources=[{"wood": 3}, {}], stock={"cafe": 0})
    for action, reason in [
        (A.build("cafe", "1b"), "no cafe left"),
        (A.build("general_store", "1b"), "cannot pay"),
        (A.build("restaurant", "2b"), "column 1"),
        (A.build("lumber_merchant", "1a"), "taken"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            play(state, 0, action)
    assert {a.shop for a in RULES.legal_actions(state, 0) if a.type == "build"} == {
        "lumber_merchant",
        "stone_merchant",
        "metal_merchant",
    }


# Attract, level up: the build cost again plus 3/5/7 gold, into column L+1, any row.
def test_level_up_merchant_costs_eight_gold_any_row() -> None:
    state = acting("attract", areas=[{"1a": "lumber_merchant", "1b": "builder"}, {}], gold=[8, 0])
    play(state, 0, A.level_up("1a", "2d"))
    assert shop_at(state, 0, "2d") == "lumber_merchant" and "1a" not in state.areas[0]
    assert state.gold[0] == 0


def test_level_up_restaurant_three_to_four() -> None:
    state = acting(
        "attract",
        areas=[{"3b": "restaurant", "1b": "builder"}, {}],
        resources=[{"wood": 1, "stone": 1, "metal": 1}, {}],
        gold=[7, 0],
    )
    play(state, 0, A.level_up("3b", "4c"))
    assert shop_at(state, 0, "4c") == "restaurant"
    assert state.gold[0] == 0 and sum(state.resources[0].values()) == 0


def test_level_up_cafe_two_to_three_costs_wood_and_five() -> None:
    state = acting(
        "attract", areas=[{"2a": "cafe", "1b": "builder"}, {}], resources=[{"wood": 1}, {}], gold=[5, 0]
    )
    play(state, 0, A.level_up("2a", "3a"))
    assert state.gold[0] == 0 and state.resources[0]["wood"] == 0


def test_level_up_refusals() -> None:
    state = acting(
        "attract",
        areas=[{"1a": "cafe", "2a": "cafe", "4a": "cafe", "1b": "builder"}, {}],
        resources=[{"wood": 5}, {}],
        gold=[20, 0],
    )
    for action, reason in [
        (A.level_up("1a", "3b"), "moves to column 2"),
        (A.level_up("1a", "2a"), "taken"),
        (A.level_up("4a", "4b"), "already at level 4"),
        (A.level_up("1b", "2b"), "special shops never level up"),
        (A.level_up("1c", "2c"), "no shop of yours"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            play(state, 0, action)


# Decision: a builder in your area now; having had one is not enough.
def test_level_up_needs_a_builder_now() -> None:
    state = position(areas=[{"1a": "cafe", "1b": "builder"}, {}], resources=[{"wood": 1}, {}], gold=[10, 0])
    play(state, 0, A.declare("sell", "attract"))
    play(state, 0, A.sell("1b"))
    assert not [a for a in RULES.legal_actions(state, 0) if a.type == "level_up"]
    with pytest.raises(IllegalAction, match="needs a builder"):
        play(state, 0, A.level_up("1a", "2a"))


# Special limit (Decision): one special shop in total by default...
def test_special_limit_one_total() -> None:
    state = acting("attract", areas=[{"1a": "builder"}, {}], resources=[{"metal": 6, "stone": 3}, {}])
    with pytest.raises(IllegalAction, match="special limit"):
        play(state, 0, A.build("casino", "1b"))


# ... or one of each kind (option special_limit = one_per_kind).
def test_special_limit_one_per_kind() -> None:
    state = acting(
        "attract",
        areas=[{"1a": "builder"}, {}],
        resources=[{"metal": 6, "wood": 2, "stone": 2}, {}],
        options={"special_limit": "one_per_kind"},
    )
    with pytest.raises(IllegalAction, match="special limit"):
        play(state, 0, A.build("builder", "1b"))
    play(state, 0, A.build("casino", "1b"))
    assert shop_at(state, 0, "1b") == "casino"


# Special limit: after selling your special shop you may take another; it applies to acquire too.
def test_special_limit_after_selling_and_for_acquire() -> None:
    state = position(areas=[{"1a": "builder"}, {}], boulevard=[("casino", 1, 1)], gold=[10, 0])
    play(state, 0, A.declare("acquire", "sell"))
    with pytest.raises(IllegalAction, match="special limit"):
        play(state, 0, A.acquire("casino", 1, 1, "1b"))
    play(state, 0, SKIP)
    play(state, 0, A.sell("1a"))
    state = position(
        areas=[{}, {}],
        boulevard=[("casino", 1, 1)],
        gold=[10, 0],
        phase="action",
        declared=["acquire", "sell"],
    )
    play(state, 0, A.acquire("casino", 1, 1, "1b"))
    assert shop_at(state, 0, "1b") == "casino"


# Resource: min(level, supply) of its resource; another's shop costs 2 gold paid to its owner.
def test_take_from_another_players_shop() -> None:
    state = acting("resource", areas=[{}, {"2c": "stone_merchant"}], gold=[3, 0])
    events = play(state, 0, A.take_resources(1, "2c"))
    assert state.resources[0]["stone"] == 2 and state.supply["stone"] == 16
    assert state.gold == [1, 2]
    assert of_type(events, "took_resources")[0]["fee"] == 2


# Decision: your own resource shops are free.
def test_take_from_own_shop_is_free() -> None:
    state = acting("resource", areas=[{"3a": "metal_merchant"}, {}], gold=[0, 0])
    play(state, 0, A.take_resources(0, "3a"))
    assert state.resources[0]["metal"] == 3 and state.gold == [0, 0]


def test_take_limited_by_supply_and_refusals() -> None:
    state = acting(
        "resource",
        areas=[{"3a": "metal_merchant"}, {"1a": "lumber_merchant", "1b": "cafe"}],
        supply={"metal": 1, "wood": 0},
        gold=[1, 0],
    )
    legal = RULES.legal_actions(state, 0)
    assert legal == [A.take_resources(0, "3a"), SKIP]
    for action, reason in [
        (A.take_resources(1, "1a"), "supply is empty"),
        (A.take_resources(1, "1b"), "no resource shop"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            play(state, 0, action)
    play(state, 0, A.take_resources(0, "3a"))
    assert state.resources[0]["metal"] == 1 and state.supply["metal"] == 0


def test_take_from_another_needs_two_gold() -> None:
    state = acting("resource", areas=[{}, {"1a": "lumber_merchant"}], gold=[1, 0])
    with pytest.raises(IllegalAction, match="costs 2 gold"):
        play(state, 0, A.take_resources(1, "1a"))


# Sell: the table prices; Decision: +3/+5/+8 added to the level-1 price.
def test_sale_price_table() -> None:
    assert [C.sale_price("cafe", lv) for lv in (1, 2, 3, 4)] == [1, 4, 6, 9]
    assert [C.sale_price("general_store", lv) for lv in (1, 2, 3, 4)] == [1, 4, 6, 9]
    assert [C.sale_price("clothing_store", lv) for lv in (1, 2, 3, 4)] == [2, 5, 7, 10]
    assert [C.sale_price("restaurant", lv) for lv in (1, 2, 3, 4)] == [3, 6, 8, 11]
    assert [C.sale_price("stone_merchant", lv) for lv in (1, 2, 3, 4)] == [5, 8, 10, 13]
    assert C.sale_price("builder", 1) == 5
    assert {C.sale_price(k, 1) for k in ("fountain", "jeweler", "casino")} == {8}


def test_sell_moves_to_the_boulevard_and_pays() -> None:
    state = acting("sell", areas=[{"3b": "clothing_store"}, {}], gold=[0, 0])
    stock = dict(state.stock)
    events = play(state, 0, A.sell("3b"))
    assert state.gold[0] == 7 and not state.areas[0]
    entry = state.boulevard[0]
    assert (entry.kind, entry.level, entry.seller) == ("clothing_store", 3, 0)
    assert state.stock == stock  # sold shops never return to the stock
    assert of_type(events, "sold")[0]["gold"] == 7


def test_sell_needs_your_shop() -> None:
    state = acting("sell", areas=[{}, {"1a": "cafe"}])
    with pytest.raises(IllegalAction, match="no shop of yours"):
        play(state, 0, A.sell("1a"))


# Jeweler: each sale pays 3 more; Decision: not the jeweler's own sale.
def test_jeweler_adds_three_but_not_to_its_own_sale() -> None:
    state = acting(
        "sell",
        second="sell",
        options={"same_action_twice": True},
        areas=[{"1a": "jeweler", "2b": "cafe"}, {}],
        gold=[0, 0],
    )
    play(state, 0, A.sell("2b"))
    assert state.gold[0] == 4 + 3
    play(state, 0, A.sell("1a"))
    assert state.gold[0] == 7 + 8


# Acquire: price = table - 1, never the jeweler's +3; into the column of its level; no builder.
def test_acquire_pays_the_price_into_its_level_column() -> None:
    state = acting("acquire", areas=[{"1a": "jeweler"}, {}], boulevard=[("restaurant", 3, 1)], gold=[7, 0])
    with pytest.raises(IllegalAction, match="column 3"):
        play(state, 0, A.acquire("restaurant", 3, 1, "2a"))
    play(state, 0, A.acquire("restaurant", 3, 1, "3d"))
    assert shop_at(state, 0, "3d") == "restaurant" and state.gold[0] == 0 and not state.boulevard


def test_acquire_level_one_cafe_costs_nothing() -> None:
    state = acting("acquire", boulevard=[("cafe", 1, 1)], gold=[0, 0])
    play(state, 0, A.acquire("cafe", 1, 1, "1a"))
    assert state.gold[0] == 0 and shop_at(state, 0, "1a") == "cafe"


# Decision: never your own sale.
def test_acquire_not_your_own_sale() -> None:
    state = acting("acquire", boulevard=[("cafe", 1, 0), ("cafe", 2, 1)], gold=[0, 0])
    assert RULES.legal_actions(state, 0) == [SKIP]
    with pytest.raises(IllegalAction, match="you sold"):
        play(state, 0, A.acquire("cafe", 1, 0, "1a"))
    with pytest.raises(IllegalAction, match="cannot pay"):
        play(state, 0, A.acquire("cafe", 2, 1, "2a"))
    with pytest.raises(IllegalAction, match="no level-3 cafe"):
        play(state, 0, A.acquire("cafe", 3, 1, "3a"))


# Casino (Decisions): only its owner, with at least 5 gold, after the two actions.
def test_casino_offered_only_to_an_owner_with_five_gold() -> None:
    state = position(
        phase="action",
        declared=["sell", "attract"],
        step=1,
        areas=[{"1a": "casino"}, {"1a": "casino"}],
        gold=[5, 4],
    )
    play(state, 0, SKIP)
    assert state.phase == "casino" and RULES.legal_actions(state, 0) == [A.casino(True), A.casino(False)]
    play(state, 0, A.casino(False))
    assert state.current == 1
    play(state, 1, A.declare("sell", "attract"))
    play(state, 1, SKIP)
    play(state, 1, SKIP)
    assert state.phase == "declare" and state.current == 0  # 4 gold: no casino


def _casino_roll(roll: int, gold: list[int]) -> object:
    for rng in range(200):
        state = position(
            3,
            phase="casino",
            declared=["sell", "attract"],
            step=2,
            areas=[{"1a": "casino"}, {}, {}],
            gold=gold,
            rng=rng,
        )
        events = play(state, 0, A.casino(True))
        if of_type(events, "die")[0]["roll"] == roll:
            return state
    raise AssertionError("no such roll")


# Casino: 1-4 pays 5 to the bank; 5-6 takes 7 from each other player, or all they have.
def test_casino_loses_on_one_to_four() -> None:
    for roll in (1, 4):
        state = _casino_roll(roll, [12, 10, 4])
        assert state.gold == [7, 10, 4]  # type: ignore[attr-defined]


def test_casino_wins_on_five_or_six() -> None:
    for roll in (5, 6):
        state = _casino_roll(roll, [12, 10, 4])
        assert state.gold == [23, 3, 0]  # type: ignore[attr-defined]


def test_die_is_fair_six_sided() -> None:
    rolls = set()
    for rng in range(60):
        state = position(
            phase="casino",
            declared=["sell", "attract"],
            step=2,
            areas=[{"1a": "casino"}, {}],
            gold=[10, 10],
            rng=rng,
        )
        rolls.add(of_type(play(state, 0, A.casino(True)), "die")[0]["roll"])
    assert rolls == {1, 2, 3, 4, 5, 6}


# Nothing may be done that cannot be paid in full.
def test_gold_never_negative_after_refusal() -> None:
    state = acting("attract", gold=[4, 0])
    before = RULES.position_to_json(state)
    with pytest.raises(IllegalAction):
        play(state, 0, A.build("stone_merchant", "1a"))
    assert RULES.position_to_json(state) == before
    assert types(play(state, 0, SKIP)) == ["skipped"]


# Decision: the bank is unlimited; denominations do not matter.
def test_bank_is_unlimited() -> None:
    state = acting("sell", areas=[{"4a": "stone_merchant"}, {}], gold=[10_000, 10_000])
    play(state, 0, A.sell("4a"))
    assert state.gold[0] == 10_013


# A cell holds at most one shop, also for an acquisition.
def test_acquire_into_a_taken_cell_refused() -> None:
    state = acting("acquire", areas=[{"2a": "cafe"}, {}], boulevard=[("cafe", 2, 1)], gold=[9, 0])
    with pytest.raises(IllegalAction, match="taken"):
        play(state, 0, A.acquire("cafe", 2, 1, "2a"))


# Boulevard entries equal in kind, level and seller are interchangeable (the engine takes the
# one with the smallest shop id, so play stays deterministic).
def test_equal_boulevard_entries_are_interchangeable() -> None:
    state = acting("acquire", boulevard=[("cafe", 2, 1), ("cafe", 2, 1)], gold=[9, 0])
    assert [a for a in RULES.legal_actions(state, 0) if a.cell == "2a"] == [A.acquire("cafe", 2, 1, "2a")]
    first_id = min(e.id for e in state.boulevard)
    play(state, 0, A.acquire("cafe", 2, 1, "2a"))
    assert state.areas[0]["2a"].id == first_id and len(state.boulevard) == 1


# Resource: only shops in an area, not on the boulevard.
def test_boulevard_merchants_give_nothing() -> None:
    state = acting("resource", boulevard=[("lumber_merchant", 1, 1)])
    assert RULES.legal_actions(state, 0) == [SKIP]


# The level-up's cards go back to the supply.
def test_level_up_cards_return_to_the_supply() -> None:
    state = acting(
        "attract",
        areas=[{"1a": "clothing_store", "1b": "builder"}, {}],
        resources=[{"wood": 1, "stone": 1}, {}],
        supply={"wood": 0, "stone": 0},
        gold=[3, 0],
    )
    play(state, 0, A.level_up("1a", "2a"))
    assert state.supply == {"wood": 1, "stone": 1, "metal": 18}


# Information: the declaration is public.
def test_declaration_is_public() -> None:
    state = position()
    events = play(state, 0, A.declare("acquire", "attract"))
    assert RULES.events_for(state, events, 1) == events
    assert RULES.view(state, 1)["declared"] == ["acquire", "attract"]


# Casino (Decision): only the owner goes, however rich another player is.
def test_no_casino_without_owning_one() -> None:
    state = position(
        phase="action", declared=["sell", "attract"], step=1, areas=[{}, {"1a": "casino"}], gold=[50, 5]
    )
    play(state, 0, SKIP)
    assert state.phase == "declare" and state.current == 1


# Errors: a hand-built action with a missing field is refused, the state unchanged.
def test_malformed_action_refused() -> None:
    state = acting("attract")
    before = RULES.position_to_json(state)
    for action in (A.OreganoAction("build", shop="cafe"), A.OreganoAction("fly")):
        assert RULES.why_illegal(state, 0, action) is not None
        with pytest.raises(ValueError):
            play(state, 0, action)
    assert RULES.position_to_json(state) == before


# Decision: one attract action is exactly one operation (one build or one level-up).
def test_attract_is_one_operation() -> None:
    state = acting("attract", resources=[{"wood": 2}, {}], areas=[{}, {}])
    play(state, 0, A.build("cafe", "1a"))
    assert state.step == 1 and state.declared == ["attract", "sell"]
    with pytest.raises(IllegalAction, match="declared action is sell"):
        play(state, 0, A.build("cafe", "1b"))

"""RULES.md, "Worked example": two players, A (seat 0) the start player, step by step."""

from __future__ import annotations

from leilao_helpers import bid, card, game, names, pick, rebid

from server.games.leilao import RULES, Bid, Pick, Rebid
from server.games.leilao.previews import Preview, preview
from server.games.leilao.scoring import score_parts, scores
from server.games.leilao.state import PICK, TIEBREAK, LeilaoState

A, B = 0, 1
TOP = ("red-17", "blue-12", "yellow-9", "green-5")


def example(**options: str) -> LeilaoState:
    return game(2, TOP, start=A, **options)


def play_to_picks(state: LeilaoState) -> None:
    bid(state, A, 11, 4)
    bid(state, B, 4)
    play_to_picks_after_bids(state)


def play_to_picks_after_bids(state: LeilaoState) -> None:
    rebid(state, A, 3)
    rebid(state, B, 3)
    rebid(state, A, 1)
    rebid(state, B, 2)


def test_round_1_deals_four_stalls_and_the_deck_holds_76() -> None:
    state = example()
    assert names(state.display) == list(TOP)
    assert len(state.deck) == 76


def test_step_1_a_bids_11_with_extra_4_and_b_sees_only_that_a_has_bid() -> None:
    state = example()
    bid(state, A, 11, 4)
    view = RULES.view(state, B)
    assert view["acted"] == [A]
    assert view["to_move"] == [B]
    assert view["hands"][A] == list(range(1, 21))  # still 20 cards, as B sees it
    assert view["fees"][A] == 0  # the fee is recorded at the reveal
    events = bid(state, B, 4)
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["bids"] == [{"seat": A, "card": 11, "extra": 4}, {"seat": B, "card": 4, "extra": None}]


def test_step_2_a_is_first_and_a_extra_4_ties_b_4() -> None:
    state = example()
    bid(state, A, 11, 4)
    bid(state, B, 4)
    assert state.phase == TIEBREAK
    assert RULES.view(state, None)["ranking"] == [
        [{"seat": A, "role": "main", "card": 11}],
        [{"seat": A, "role": "extra", "card": 4}, {"seat": B, "role": "main", "card": 4}],
    ]
    assert RULES.to_move(state) == {A, B}


def test_step_3_equal_rebids_form_a_new_group_then_b_goes_before_a() -> None:
    state = example()
    bid(state, A, 11, 4)
    bid(state, B, 4)
    rebid(state, A, 3)
    rebid(state, B, 3)
    assert state.phase == TIEBREAK and RULES.to_move(state) == {A, B}
    rebid(state, A, 1)
    rebid(state, B, 2)
    assert state.phase == PICK


def test_step_4_ranking_a_b_a_and_the_cycle_sequence_is_a_b_a_a() -> None:
    state = example()
    play_to_picks(state)
    assert [(s.seat, s.role, s.card) for group in state.ranking or [] for s in group] == [
        (A, "main", 11),
        (B, "main", 4),
        (A, "extra", 4),
    ]
    assert state.pick_sequence == [A, B, A, A]


def test_steps_5_and_6_picks_piles_and_round_2() -> None:
    state = example()
    play_to_picks(state)
    pick(state, A, "red-17")
    pick(state, B, "blue-12")
    pick(state, A, "yellow-9")
    assert scores(state) == (17 + 9 - 19 - 5, 12 - 9)
    pick(state, A, "green-5")
    assert [p.card for p in state.played[A]] == [11, 4, 3, 1]
    assert [p.card for p in state.played[B]] == [4, 3, 2]
    assert len(state.hands[A]) == 16 and len(state.hands[B]) == 17
    assert names(state.stalls[A]) == ["red-17", "yellow-9", "green-5"]
    assert names(state.stalls[B]) == ["blue-12"]
    assert state.round == 2 and len(state.display) == 4 and len(state.deck) == 72


def test_scored_now_a_has_7_and_b_3() -> None:
    state = example()
    play_to_picks(state)
    for seat, stall in ((A, "red-17"), (B, "blue-12"), (A, "yellow-9"), (A, "green-5")):
        pick(state, seat, stall)
    assert scores(state) == (7, 3)
    # A: 17 + 9 + 5 = 31, no set (no blue), cards 11 + 4 + 3 + 1 = 19, one extra bid.
    a = score_parts(state, A)
    assert [(p.name, p.points, p.counted) for p in a.parts] == [
        ("stall_points", 31, 3),
        ("set_bonus", 0, 0),
        ("card_penalty", -19, 4),
        ("extra_bid_fees", -5, 1),
    ]
    assert a.total == 7
    assert [(t.name, t.value) for t in score_parts(state, B).tie_breaks] == [
        ("stall_points", 12),
        ("stalls", 1),
    ]


def test_the_previews_say_what_each_choice_costs_at_the_end_or_gains() -> None:
    state = example()
    assert preview(state, A, Bid(11, 4)) == Preview(card_penalty=15, fee=5)
    assert preview(state, A, Bid(11, 4)).score_change == -20
    assert preview(state, B, Bid(4)) == Preview(card_penalty=4)
    bid(state, A, 11, 4)
    bid(state, B, 4)
    assert preview(state, A, Rebid(3)) == Preview(card_penalty=3)
    play_to_picks_after_bids(state)
    assert preview(state, A, Pick(card("red-17"))) == Preview(stall_points=17)
    with_one = example(card_penalty="one")
    assert preview(with_one, A, Bid(11, 4)) == Preview(card_penalty=2, fee=5)


def test_a_pick_that_completes_a_set_previews_its_bonus() -> None:
    state = example()
    play_to_picks(state)
    state.stalls[A] = [card("red-1"), card("blue-1"), card("green-1")]
    assert preview(state, A, Pick(card("yellow-9"))) == Preview(stall_points=9, set_bonus=10)
    assert preview(state, A, Pick(card("red-17"))) == Preview(stall_points=17)


def test_with_card_penalty_one_a_has_22_and_b_9() -> None:
    state = example(card_penalty="one")
    play_to_picks(state)
    for seat, stall in ((A, "red-17"), (B, "blue-12"), (A, "yellow-9"), (A, "green-5")):
        pick(state, seat, stall)
    assert scores(state) == (22, 9)


def test_with_leftover_stalls_discard_green_5_leaves_the_game_and_a_has_2() -> None:
    state = example(leftover_stalls="discard")
    play_to_picks(state)
    assert state.pick_sequence == [A, B, A]
    pick(state, A, "red-17")
    pick(state, B, "blue-12")
    events = pick(state, A, "yellow-9")
    assert {"type": "leftover", "stalls": ["green-5"]} in events
    assert names(state.removed) == ["green-5"]
    assert scores(state) == (2, 3)
    assert state.round == 2 and len(state.deck) == 72

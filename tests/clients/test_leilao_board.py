"""Leilão on the terminal: who still has to bid, a sealed bid seen by its owner only until the reveal,
hands, stalls, fees and scores, what each bid and pick costs or pays, the result; choosing by number
or by text."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json, action_message, json_struct
from mercado_terminal.boards import board_for
from mercado_terminal.boards.base import RESIGN, RulesBoard
from mercado_terminal.boards.menu import BACK
from rules_screens import finished, match_state, played
from screens import NAMES, squeezed, text

from server.games.leilao import RULES

GAME = "leilao"


def board(message: api.MatchState) -> RulesBoard:
    found = board_for(message)
    assert isinstance(found, RulesBoard)
    return found


def rendered(state: Any, seat: int | None) -> str:
    message = match_state(GAME, state, seat)
    return text(board(message).render(message), 140)


def panel(state: Any, viewer: int, seat: int) -> list[str]:
    message = match_state(GAME, state, viewer)
    found = board(message)
    return squeezed(text(found.seat_panel(found.seen(message), seat), 100))


def row(lines: list[str], label: str) -> str:
    return next(line for line in lines if line.startswith(f"│ {label} "))


def bid(state: Any, seat: int, card: int, extra: int | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = RULES.apply(
        state, seat, RULES.action_from_json({"type": "bid", "card": card, "extra": extra})
    )
    return events


def test_a_sealed_bid_is_seen_by_its_owner_only_until_the_reveal() -> None:
    state = played(GAME, players=3, steps=0, seed=4)
    bid(state, 0, 16, 9)
    theirs = rendered(state, 1)
    assert row(panel(state, 0, 0), "sealed") == "│ sealed 16 + extra 9 (only you see it) │"
    assert "sealed" not in theirs
    assert row(panel(state, 1, 0), "hand").startswith("│ hand " + " ".join(map(str, range(1, 21))))
    assert (
        "16" not in row(panel(state, 0, 0), "hand").split()
        and "9" not in row(panel(state, 0, 0), "hand").split()
    )
    assert "✓ has bid" in panel(state, 1, 0)[0]
    assert "✓ has bid" not in panel(state, 1, 1)[0]
    status = squeezed(theirs)[0]
    assert status.startswith("match m1 · Leilão · playing · round 1 · ")
    assert "to bid: bob (seat 2), carmen (seat 3)" in status
    assert "has bid: ada (seat 1)" in status
    # The spectator and the others see nothing of it either.
    assert "16 + extra" not in rendered(state, None)
    bid(state, 1, 3)
    events = bid(state, 2, 16)
    reveal = next(e for e in events if e["type"] == "reveal")
    assert {(b["seat"], b["card"], b["extra"]) for b in reveal["bids"]} == {
        (0, 16, 9),
        (1, 3, None),
        (2, 16, None),
    }
    after = squeezed(rendered(state, 1))
    played_row = row(panel(state, 1, 0), "played")
    assert played_row.startswith("│ played 16 +9 (sum 25)")  # 16 tied with carmen's: void, still played
    assert "sealed" not in " ".join(after)


def test_waiting_says_you_have_bid_and_for_whom() -> None:
    state = played(GAME, players=3, steps=0, seed=4)
    bid(state, 1, 5)
    for seat, expected in (
        (1, "you have bid; waiting for ada (seat 1), carmen (seat 3) to bid…"),
        (0, "waiting for ada (seat 1), carmen (seat 3) to bid…"),
    ):
        message = match_state(GAME, state, seat)
        assert board(message).waiting_text(message, seat, NAMES).plain == expected
    bid(state, 0, 20)
    bid(state, 2, 19)
    (picker,) = RULES.to_move(state)
    message = match_state(GAME, state, (picker + 1) % 3)
    waiting = board(message).waiting_text(message, (picker + 1) % 3, NAMES).plain
    assert waiting == f"waiting for {NAMES[picker]} (seat {picker + 1}) to pick a stall…"


def walk(seed: int, players: int, **options: Any) -> Iterator[Any]:
    """Every position of one random game (each step by the lowest seat to move), to its end (excluded)."""
    rng = random.Random(seed)
    state = RULES.new_game(RULES.options({"players": players, **options}), seed)
    while not RULES.is_over(state):
        yield RULES.clone(state)
        seat = min(RULES.to_move(state))
        RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))


def test_panels_show_hands_stalls_fees_and_scores_and_never_anothers_sealed_choice() -> None:
    for index, state in enumerate(walk(3, 3)):
        if index % 7:
            continue
        public = RULES.view(state, None)
        for viewer in range(3):
            view = RULES.view(state, viewer)
            for seat in range(3):
                lines = panel(state, viewer, seat)
                hand = row(lines, "hand").strip("│ ").split()[1:]
                assert hand == ([str(c) for c in view["hands"][seat]] or ["empty"])
                if seat != viewer:
                    assert hand == ([str(c) for c in public["hands"][seat]] or ["empty"])  # as if unsealed
                    assert not any(line.startswith("│ sealed") for line in lines)
                assert row(lines, "score").split()[2] == str(view["scores"][seat])
                fees = view["fees"][seat]
                assert any(line.startswith(f"│ fees -{fees} ") for line in lines) == bool(fees)
                stalls = row(lines, "stalls")
                for name in view["stalls"][seat]:
                    colour, number = name.split("-")
                    assert colour in stalls and number in stalls.split()
            screen = rendered(state, viewer)
            for name in view["display"]:
                assert name in screen


def test_bids_and_picks_show_what_they_cost_and_pay() -> None:
    state = played(GAME, players=2, steps=0, seed=1)
    message = match_state(GAME, state, 0)
    found = board(message)
    groups = found.groups(message)
    assert [g.title.plain for g in groups][:2] == [
        "bid 1 (-1 point): with or without an extra card (fee 5)",
        "bid 2 (-2 points): with or without an extra card (fee 5)",
    ]
    eleven = groups[10]
    labels = [c.label.plain if c.label else "" for c in eleven.choices]
    assert labels[0] == "no extra card"
    assert "extra 4  -4 points, -5 fee" in labels
    cheap = played(GAME, players=2, steps=0, seed=1, card_penalty="one")
    message = match_state(GAME, cheap, 0)
    assert board(message).groups(message)[10].title.plain.startswith("bid 11 (-1 point)")  # not "1 points"
    bid(state, 0, 20)
    bid(state, 1, 19)
    message = match_state(GAME, state, 0)
    picks = [g.title.plain for g in board(message).groups(message)]
    worth = {name: int(name.split("-")[1]) for name in RULES.view(state, 0)["display"]}
    assert picks == [f"take {name}  +{n} point{'' if n == 1 else 's'}" for name, n in worth.items()]


def test_a_bid_is_chosen_by_number_then_extra_card_or_typed() -> None:
    state = played(GAME, players=2, steps=0, seed=1)
    message = match_state(GAME, state, 0)
    found = board(message)
    groups = found.groups(message)
    offered = sorted(c.action.SerializeToString() for g in groups for c in g.choices)
    assert offered == sorted(a.SerializeToString() for a in message.legal_actions)
    eleven = groups[10]
    assert eleven.noun == "extra card"

    def chosen(picked: Any) -> dict[str, Any]:
        assert picked is not None and picked != BACK
        return action_json(picked.action)

    assert chosen(found.pick_target(eleven, "none")) == {"type": "bid", "card": 11, "extra": None}
    assert chosen(found.pick_target(eleven, "1")) == {"type": "bid", "card": 11, "extra": None}
    assert chosen(found.pick_target(eleven, "+4")) == {"type": "bid", "card": 11, "extra": 4}
    assert chosen(found.pick_target(eleven, "bid 11+4")) == {"type": "bid", "card": 11, "extra": 4}
    assert found.pick_target(eleven, "0") == BACK
    assert found.pick_target(eleven, "+11") is None
    expected = action_message(GAME, {"type": "bid", "card": 11, "extra": 4})
    assert expected.leilao.bid.card == 11 and expected.leilao.bid.extra == 4
    assert found.typed(groups, "bid 11+4") == expected
    assert found.typed(groups, "11+4") == expected
    assert found.typed(groups, "bid 11") == action_message(GAME, {"type": "bid", "card": 11})
    assert found.typed(groups, "bid 11+11") is None
    assert found.typed_hint(groups) == ", or an action like bid 1"


def test_a_bid_is_typed_as_its_cards_number_and_the_extra_cards_after_it() -> None:
    state = played(GAME, players=2, steps=0, seed=1)
    bid(state, 0, 5)
    bid(state, 1, 5)  # a tie at 5: both re-bid
    message = match_state(GAME, state, 0)
    found = board(message)
    groups = found.groups(message)
    assert found.read(groups, "2") == action_message(GAME, {"type": "rebid", "card": 2})  # not entry 1
    assert found.read(groups, "5") is None  # played already
    assert found.read(groups, "2 3") is None  # no extra card in a tie-break
    assert found.first_hint(groups) == "a card like 1, or resign"
    for seat in (0, 1):
        RULES.apply(state, seat, RULES.action_from_json({"type": "rebid", "card": 20 - seat}))
    while RULES.view(state, 0)["phase"] == "pick":
        [seat] = RULES.to_move(state)
        RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])
    message = match_state(GAME, state, 0)
    found = board(message)
    groups = found.groups(message)
    hand = RULES.view(state, 0)["hands"][0]
    assert 5 not in hand and 8 in hand
    assert found.read(groups, "7") == action_message(GAME, {"type": "bid", "card": 7})  # card 7, not "bid 8"
    assert found.read(groups, "7 3") == action_message(GAME, {"type": "bid", "card": 7, "extra": 3})
    assert found.read(groups, "7+3") == found.read(groups, "bid 7+3") == found.read(groups, "7 3")
    assert found.read(groups, "5") is None and found.read(groups, "7 7") is None
    assert found.read(groups, "resign") == RESIGN
    assert found.misread(groups) == (
        f"type a card of your hand ({' '.join(map(str, hand))}), and an extra card after it if you like; "
        "or resign"
    )
    menu = text(found.render_groups(groups, 0, NAMES, []), 120)
    assert f"hand  {' '.join(map(str, hand))}" in menu


def test_every_legal_action_is_offered_once_at_every_step() -> None:
    for index, state in enumerate(walk(5, 3, leftover_stalls="discard")):
        for seat in sorted(RULES.to_move(state)):
            message = match_state(GAME, state, seat)
            found = board(message)
            groups = found.groups(message)
            offered = [c.action for g in groups for c in g.choices]
            assert sorted(a.SerializeToString() for a in offered) == sorted(
                a.SerializeToString() for a in message.legal_actions
            ), index
            for group in groups:
                for choice in group.choices:
                    assert found.typed(groups, choice.text) == choice.action


def test_a_sealed_bid_is_narrated_without_its_cards_to_others() -> None:
    state = played(GAME, players=2, steps=0, seed=1)
    events = bid(state, 0, 12, 3)
    for viewer, expected in ((1, "ada (seat 1) has bid"), (0, "ada (seat 1) has bid: 12 + extra 3 (sealed)")):
        update = api.MatchUpdate(version=2, seat=0)
        if viewer == 0:
            update.action.CopyFrom(action_message(GAME, {"type": "bid", "card": 12, "extra": 3}))
        for event in RULES.events_for(state, events, viewer):
            update.events.add(leilao={"event": json_struct(event)})
        update.state.CopyFrom(match_state(GAME, state, viewer))
        assert [line.plain for line in board(update.state).update_lines(update, NAMES)] == [expected]
    events = bid(state, 1, 7)
    update = api.MatchUpdate(version=3, seat=1, action=action_message(GAME, {"type": "bid", "card": 7}))
    for event in RULES.events_for(state, events, 0):
        update.events.add(leilao={"event": json_struct(event)})
    update.state.CopyFrom(match_state(GAME, state, 0))
    [line] = board(update.state).update_lines(update, NAMES)
    assert line.plain.startswith(
        "bob (seat 2) has bid; bids revealed: ada (seat 1) 12+3, bob (seat 2) 7; pick order: "
    )


def test_a_finished_game_shows_the_result() -> None:
    state = finished(GAME, players=3, seed=2)
    outcome = RULES.outcome(state)
    assert outcome is not None
    lines = squeezed(rendered(state, 1))
    assert "final scores" in lines
    view = RULES.view(state, 1)
    for seat in range(3):
        stalls = view["stalls"][seat]
        points = sum(int(s.split("-")[1]) for s in stalls)
        expected = (
            f"{outcome.ranks[seat]} {NAMES[seat]} (seat {seat + 1}) {outcome.scores[seat]} "
            f"{len(stalls)} {points} {view['fees'][seat]}"
        )
        assert expected in lines
    assert not any("to bid" in line or "to pick" in line for line in lines)

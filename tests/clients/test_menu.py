"""The two-step menu: grouping, numbering, the server's cost and income hints, face-down squares, answers."""

from __future__ import annotations

import re

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client.wire import action_json, square_name
from mercado_terminal.menu import (
    BACK,
    FACE_DOWN_MARK,
    group_summary,
    menu_choices,
    menu_groups,
    parse_number,
    pick_target,
    render_groups,
    render_targets,
)
from rich.text import Text
from screens import NAMES, match_state, played, squeezed, text

from server.games.mercado import GameState, Money, apply, legal_actions, payments
from server.games.mercado.components import GOODS
from server.games.mercado.geometry import ENTRANCE_NAMES, SQUARE_NAMES


def mover_state(state: GameState) -> api.MatchState:
    return match_state(state, seat=state.current_player)


def positions(count: int = 12, money: Money = "hidden") -> list[GameState]:
    """Positions with the mover to choose, from various games and moments."""
    found = [
        played(players=2 + seed % 3, money=money, seed=seed, steps=5 + 7 * seed) for seed in range(count)
    ]
    # Restaurants in hand (84 and 85 legal actions), and the set-up (76: three goods on 25 squares, a coin).
    found += [played(2, money, 16, seed=4), played(2, money, 12, seed=6), played(2, money, 0, seed=0)]
    return [state for state in found if not state.is_terminal]


def numbers(rendered: str) -> list[int]:
    """The entry numbers of a rendered step, in reading order: each line's first word, and in a step of
    squares or entrances each number before a name."""
    found = re.findall(r"^ *(\d+) |(?<= )(\d+) (?=[a-e][1-5]\b|top-|bottom-|left-|right-)", rendered, re.M)
    return [int(first or named) for first, named in found]


def test_every_legal_action_is_in_exactly_one_group() -> None:
    for state in positions():
        message = mover_state(state)
        groups = menu_groups(message)
        grouped = [c.action.SerializeToString() for g in groups for c in g.choices]
        assert sorted(grouped) == sorted(a.SerializeToString() for a in message.legal_actions)
        for group in groups:
            assert {(c.kind, c.key) for c in group.choices} == {(group.kind, group.key[2:])}
            assert len({c.target for c in group.choices}) == len(group.choices)


def test_a_big_turn_is_a_short_first_step() -> None:
    """Over a hundred legal actions become one line per kind and tile."""
    for state in (played(players=2, steps=0, seed=0), played(players=2, steps=16, seed=4)):
        check_a_big_turn(state)


def check_a_big_turn(state: GameState) -> None:
    message = mover_state(state)
    assert len(message.legal_actions) >= 76
    groups = menu_groups(message)
    assert len(groups) <= 20
    rendered = text(render_groups(groups, state.current_player, NAMES, [Text("resign")]), 100)
    assert numbers(rendered) == list(range(1, len(groups) + 2))
    assert squeezed(rendered)[-1] == f"{len(groups) + 1} resign"
    hand = {GOODS[g] for g in state.hands[state.current_player]}
    for good in hand:
        squares = sum(1 for a in legal_actions(state) if a.type == "open_stand" and GOODS[a.good] == good)
        if squares > 1:
            assert any(f"open a {good} stand: {squares} squares" in line for line in squeezed(rendered))


def test_answering_1_everywhere_always_reaches_a_legal_action() -> None:
    for state in positions(20):
        message = mover_state(state)
        group = menu_groups(message)[0]
        choice = group.choices[0] if len(group.choices) == 1 else pick_target(group, "1")
        assert choice is not None and choice != BACK
        assert choice.action in message.legal_actions


def test_the_take_offer_step_offers_each_good_at_once() -> None:
    state = played(players=2, steps=0, seed=3)
    apply(state, next(a for a in legal_actions(state) if a.type == "open_stand"))
    groups = menu_groups(mover_state(state))
    assert {g.kind for g in groups} <= {"take_offer", "refresh_offer"}
    assert all(len(g.choices) == 1 and not g.noun for g in groups)
    assert [g.title.plain for g in groups if g.kind == "take_offer"] == [
        f"take {good} from the offer" for good in sorted({GOODS[g] for g in state.offer}, key=GOODS.index)
    ]


def hints(state: GameState, seat: int) -> dict[str, str]:
    """Each legal action's hint from the engine: ' $cost +mine (+other name)...'."""
    out = {}
    for action in legal_actions(state):
        cost, income = payments(state, action)
        hint = f" ${cost}" if cost else ""
        hint += f" +{income[seat]}" if income[seat] else ""
        for other, amount in enumerate(income):
            if other != seat and amount:
                shown = amount if state.options.money == "public" else "?"
                hint += f" (+{shown} {NAMES[other]})"
        out[str(sorted(action.to_json().items()))] = hint
    return out


@pytest.mark.parametrize("money", ["hidden", "public"])
def test_the_second_step_shows_the_servers_costs_and_incomes(money: Money) -> None:
    checked: set[str] = set()
    for state in positions(16, money):
        seat = state.current_player
        message = mover_state(state)
        expected = hints(state, seat)
        for group in menu_groups(message):
            if len(group.choices) < 2:
                continue
            rendered = " ".join(squeezed(text(render_targets(group, seat, NAMES), 200)))
            for number, choice in enumerate(group.choices, 1):
                key = str(sorted(action_json(choice.action).items()))
                mark = f" {FACE_DOWN_MARK}" if choice.face_down else ""
                label = f"{number} {choice.target}{mark}{expected[key]}"
                assert re.search(rf"(^| ){re.escape(label)}( |$)", rendered), (label, rendered)
                checked.add(group.kind)
            assert rendered.endswith("0 back")
    assert checked == {"open_stand", "bring_customer", "open_restaurant"}


def test_squares_are_laid_out_as_the_market_and_face_down_ones_marked() -> None:
    for state in positions():
        message = mover_state(state)
        face_down = {
            square_name(c.square)
            for c in message.view.mercado.market
            if c.WhichOneof("content") == "face_down"
        }
        for group in menu_groups(message):
            if group.noun != "square" or len(group.choices) < 2:
                continue
            rendered = text(render_targets(group, state.current_player, NAMES), 200)
            rows = [line for line in rendered.splitlines() if re.search(r"\b[a-e][1-5]\b", line)]
            assert len(rows) == 5
            for row, line in enumerate(rows, 1):
                # Every square of the row, in column order, a legal one with its number.
                names = re.findall(r"\b([a-e])([1-5])\b", line)
                assert names == [(column, str(row)) for column in "abcde"]
            targets = {c.target: c for c in group.choices}
            assert numbers(rendered) == [*range(1, len(group.choices) + 1), 0]
            for choice in group.choices:
                assert choice.face_down == (choice.target in face_down)
            marked = re.findall(rf"\d+ ([a-e][1-5]) {FACE_DOWN_MARK}", rendered)
            assert sorted(marked) == sorted(t for t in targets if t in face_down)
            summary = group_summary(group, state.current_player, NAMES).plain
            if marked:
                assert f"{len(marked)} with {FACE_DOWN_MARK}" in summary


def test_entrances_are_listed_by_side() -> None:
    state = next(
        s
        for s in positions(30)
        if any(len(g.choices) > 1 and g.noun == "entrance" for g in menu_groups(mover_state(s)))
    )
    message = mover_state(state)
    group = next(g for g in menu_groups(message) if g.noun == "entrance" and len(g.choices) > 1)
    order = [c.target for c in group.choices]
    assert order == sorted(order, key=ENTRANCE_NAMES.index)
    rendered = text(render_targets(group, state.current_player, NAMES))
    assert f"{group.title.plain}: which entrance?" in rendered


def test_answers_by_number_name_or_back() -> None:
    state = max(positions(), key=lambda s: len(legal_actions(s)))
    group = next(g for g in menu_groups(mover_state(state)) if g.noun == "square" and len(g.choices) > 2)
    assert pick_target(group, "0") == BACK
    assert pick_target(group, " 2 ") == group.choices[1]
    assert pick_target(group, group.choices[-1].target.upper()) == group.choices[-1]
    taken = next(name for name in SQUARE_NAMES if name not in {c.target for c in group.choices})
    for wrong in ("", "x", "-1", str(len(group.choices) + 1), taken, "z9"):
        assert pick_target(group, wrong) is None
    assert parse_number("3", 3) == 3
    assert parse_number("4", 3) is None
    assert parse_number("0", 3) is None
    assert parse_number("1.0", 3) is None


def test_a_server_without_previews_still_gives_a_menu() -> None:
    state = positions()[0]
    message = mover_state(state)
    del message.previews[:]
    choices = menu_choices(message)
    assert len(choices) == len(message.legal_actions)
    assert all(not c.preview.cost and not c.preview.earnings for c in choices)

"""Oregano on the terminal: whose move, what each seat has, what each legal action costs (as the engine
then charges it), hidden strategy cards, the result; choosing an action by number or by text."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json, action_message, json_struct
from mercado_terminal.boards import board_for
from mercado_terminal.boards.base import RulesBoard, amounts_text
from mercado_terminal.boards.menu import BACK
from mercado_terminal.boards.oregano import SHOP_NAMES, STRATEGIES
from rules_screens import finished, match_state, played
from screens import NAMES, squeezed, text

from server.games.oregano import RULES
from server.games.oregano.state import BoulevardEntry

GAME = "oregano"


def positions(count: int = 30) -> Iterator[Any]:
    """Positions of 2-4 players, from set-up to late in the game."""
    for seed in range(count):
        state = played(GAME, players=2 + seed % 3, steps=4 + 9 * seed, seed=seed)
        if not RULES.is_over(state):
            yield state


def mover(state: Any) -> int:
    (seat,) = RULES.to_move(state)
    return int(seat)


def board(message: api.MatchState) -> RulesBoard:
    found = board_for(message)
    assert isinstance(found, RulesBoard)
    return found


def panel_text(message: api.MatchState, seat: int) -> str:
    found = board(message)
    return text(found.seat_panel(found.seen(message), seat), 100)


def test_the_status_line_and_the_panels_say_whose_move_it_is() -> None:
    for state in positions(12):
        me = mover(state)
        for viewer in range(state.players):
            message = match_state(GAME, state, viewer)
            rendered = text(board(message).render(message), 140)
            status = squeezed(rendered)[0]
            assert status.startswith("match m1 · Oregano · playing")
            assert f"to move {NAMES[me]} (seat {me + 1})" in status
            assert f"round {state.round} of 20" in status if state.round else "· set-up ·" in status
            you = ", you" if viewer == me else ""
            assert f"▶ {NAMES[me]} (seat {me + 1}{you}) to move" in rendered
            assert rendered.count("to move") == 2  # the status line and the mover's panel


def test_each_panel_shows_gold_cards_shops_and_only_its_holders_strategy() -> None:
    for state in positions(12):
        view = RULES.view(state, None)
        for viewer in range(state.players):
            message = match_state(GAME, state, viewer)
            for seat in range(state.players):
                lines = squeezed(panel_text(message, seat))
                assert any(line.startswith(f"│ gold {view['gold'][seat]} ") for line in lines)
                resources = view["resources"][seat]
                cards = f"wood {resources['wood']} stone {resources['stone']} metal {resources['metal']}"
                assert any(cards in line for line in lines)
                rows = {line.split("│")[2].strip(): line for line in lines if line.count("│") >= 6}
                for row in "abcd":
                    cells = rows[row].split("│")[3:7]
                    for level, cell in enumerate(cells, 1):
                        shop = view["areas"][seat].get(f"{level}{row}")
                        assert cell.strip() == shop_name(shop, level, row)
                card = state.strategies[seat]
                strategy = next(line for line in lines if line.startswith("│ strategy"))
                if card is None:
                    assert "none (choosing)" in strategy
                elif seat == viewer:
                    name, goal = STRATEGIES[card]
                    assert f"strategy {name}: {goal}" in " ".join(lines)  # its name, not its id
                else:
                    assert "strategy hidden" in strategy
                    assert card not in " ".join(lines)


def shop_name(shop: dict[str, Any] | None, level: int, row: str) -> str:
    """An area cell as the panel shows it: its shop's name as the page shows it, else the cell's name."""
    return SHOP_NAMES[shop["shop"]] if shop else f"{level}{row}"


def test_open_strategy_cards_are_shown_to_everyone() -> None:
    state = played(GAME, players=3, steps=30, seed=2, strategy_cards="open")
    for seat in range(3):
        card = state.strategies[seat]
        if card is not None:
            assert f"strategy {STRATEGIES[card][0]}:" in " ".join(
                squeezed(panel_text(match_state(GAME, state, (seat + 1) % 3), seat))
            )


def cost_of_applying(state: Any, seat: int, data: dict[str, Any]) -> str:
    """What the engine charges or pays for an action, from its events, written as the menu writes it."""
    events = RULES.apply(RULES.clone(state), seat, RULES.action_from_json(data))
    event = next(
        e for e in events if e["type"] in ("built", "levelled_up", "acquired", "sold", "took_resources")
    )
    if event["type"] in ("built", "levelled_up"):
        return amounts_text(event["paid"])
    if event["type"] == "acquired":
        return amounts_text({"gold": event["gold"]})
    if event["type"] == "sold":
        return f"+{event['gold']} gold"
    return amounts_text({"gold": event["fee"]})


def walk(seed: int, players: int) -> Iterator[Any]:
    """Every position of one random game, from set-up to its end (not included)."""
    rng = random.Random(seed)
    state = RULES.new_game(RULES.options({"players": players}), seed)
    while not RULES.is_over(state):
        yield RULES.clone(state)
        seat = mover(state)
        RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))


def equipped(special: str, declared: str) -> Iterator[Any]:
    """Positions where the mover is to perform ``declared`` with a ``special`` shop, gold and cards
    (a builder: every level-up is legal; a jeweler: sales pay more)."""
    for state in positions(40):
        data = RULES.position_to_json(state)
        seat = data["current_player"]
        if data["phase"] != "action" or data["declared"][data["step"]] != declared:
            continue
        area = data["areas"][seat]
        free = next((f"1{row}" for row in "abcd" if f"1{row}" not in area), None)
        if free is None or any(
            shop["shop"] in ("builder", "fountain", "jeweler", "casino") for shop in area.values()
        ):
            continue
        area[free] = {"shop": special, "id": data["next_shop_id"]}
        data["next_shop_id"] += 1
        data["gold"][seat] = 40
        data["resources"][seat] = {"wood": 4, "stone": 4, "metal": 4}
        yield RULES.position_from_json(data)


def test_every_costed_action_shows_what_the_engine_then_charges() -> None:
    seen: set[str] = set()
    for state in [
        *walk(1, 2),
        *walk(2, 3),
        *walk(3, 4),
        *equipped("builder", "attract"),
        *equipped("jeweler", "sell"),
    ]:
        seat = mover(state)
        message = match_state(GAME, state, seat)
        found = board(message)
        for group in found.groups(message):
            for choice in group.choices:
                data = action_json(choice.action)
                if data["type"] not in ("build", "level_up", "acquire", "sell", "take_resources"):
                    continue
                seen.add(data["type"])
                shown = choice.label.plain if choice.label is not None else group.title.plain
                assert shown.endswith(cost_of_applying(state, seat, data)), (data, shown)
    assert seen == {"build", "level_up", "acquire", "sell", "take_resources"}


def test_the_shop_table_shows_stock_and_build_costs() -> None:
    state = played(GAME, players=2, steps=20, seed=3)
    message = match_state(GAME, state, 0)
    lines = squeezed(text(board(message).render(message), 140))
    stock = RULES.view(state, 0)["stock"]
    assert any(
        line == f"restaurant {stock['restaurant']} 1 wood, 1 stone, 1 metal +3 3/6/8/11" for line in lines
    )
    assert any(line == f"builder {stock['builder']} 2 wood, 2 stone 5" for line in lines)
    assert any(line.startswith(f"lumber merchant {stock['lumber_merchant']} 5 gold ") for line in lines)


def test_every_legal_action_is_offered_once_and_chosen_by_number_or_text() -> None:
    for state in positions(20):
        seat = mover(state)
        message = match_state(GAME, state, seat)
        found = board(message)
        groups = found.groups(message)
        offered = [c.action.SerializeToString() for g in groups for c in g.choices]
        assert sorted(offered) == sorted(a.SerializeToString() for a in message.legal_actions)
        for group in groups:
            for number, choice in enumerate(group.choices, 1):
                expected = action_message(GAME, RULES.action_to_json(RULES.parse_action(choice.text)))
                assert choice.action == expected
                assert found.typed(groups, choice.text) == expected
                assert found.typed(groups, f"  {choice.text.upper()} ") == expected
                if len(group.choices) > 1:
                    assert found.pick_target(group, str(number)) == choice
                    assert found.pick_target(group, choice.target) == choice
            if len(group.choices) > 1:
                assert found.pick_target(group, "0") == BACK
                assert found.pick_target(group, str(len(group.choices) + 1)) is None
        assert found.typed(groups, "build a castle") is None


def test_a_build_is_chosen_by_shop_then_cell() -> None:
    state = next(s for s in positions(40) if any(a.type == "build" for a in RULES.legal_actions(s, mover(s))))
    seat = mover(state)
    message = match_state(GAME, state, seat)
    found = board(message)
    groups = found.groups(message)
    menu = squeezed(text(found.render_groups(groups, seat, NAMES, []), 120))
    builds = [a for a in RULES.legal_actions(state, seat) if a.type == "build"]
    kind, cells = builds[0].shop, [a.cell for a in builds if a.shop == builds[0].shop]
    number = next(n for n, g in enumerate(groups, 1) if g.title.plain.startswith("build a "))
    assert menu[number].startswith(f"{number} build a ")
    group = groups[number - 1]
    if len(cells) > 1:
        assert group.noun == "cell"
        assert f": {len(cells)} cells" in group.title.plain
        picked = found.pick_target(group, cells[-1])
        assert picked is not None and picked != BACK
        assert action_json(picked.action) == {"type": "build", "shop": kind, "cell": cells[-1]}
        assert found.typed(groups, f"{kind} {cells[0]}") == action_message(
            GAME, {"type": "build", "shop": kind, "cell": cells[0]}
        )


def test_a_finished_game_shows_every_seats_score_and_rank() -> None:
    for seed in (1, 2):
        state = finished(GAME, players=2 + seed, seed=seed)
        outcome = RULES.outcome(state)
        assert outcome is not None
        message = match_state(GAME, state, 0)
        found = board(message)
        lines = squeezed(text(found.render(message), 140))
        assert found.result(message) == (list(outcome.scores), list(outcome.ranks))
        view = RULES.view(state, 0)
        for seat in range(state.players):
            player = f"{NAMES[seat]} (seat {seat + 1})"
            row = f"{outcome.ranks[seat]} {player} {outcome.scores[seat]} {view['gold'][seat]} "
            assert any(line.startswith(row) for line in lines), row
        assert "to move" not in " ".join(lines)


@pytest.mark.parametrize("seed", [0, 1])
def test_updates_are_narrated_with_what_was_paid(seed: int) -> None:
    rng = random.Random(seed)
    state = RULES.new_game(RULES.options({"players": 2}), seed)
    found = None
    for _ in range(400):
        seat = mover(state)
        action = rng.choice(RULES.legal_actions(state, seat))
        events = RULES.apply(state, seat, action)
        built = next((e for e in events if e["type"] == "built"), None)
        if built is not None:
            found = (seat, action, events, built)
            break
    assert found is not None
    seat, action, events, built = found
    update = api.MatchUpdate(version=5, seat=seat, action=action_message(GAME, RULES.action_to_json(action)))
    for event in RULES.events_for(state, events, 1 - seat):
        update.events.add(oregano={"event": json_struct(event)})
    update.state.CopyFrom(match_state(GAME, state, 1 - seat))
    [line] = board(update.state).update_lines(update, NAMES)
    paid = ", ".join(f"{n} {what}" for what, n in built["paid"].items())
    assert f"{NAMES[seat]} (seat {seat + 1}) built a " in line.plain
    assert f" on {built['cell']} for {paid}" in line.plain


def test_a_kept_strategy_card_is_named_to_its_holder_only() -> None:
    state = played(GAME, players=2, steps=2, seed=6)  # both start shops placed: the first keeps a card
    seat = mover(state)
    assert state.phase == "keep_strategy"
    card = state.drawn[seat][0]
    events = RULES.apply(state, seat, RULES.action_from_json({"type": "keep_strategy", "card": card}))
    for viewer, expected in ((seat, f"kept {STRATEGIES[card][0]}"), (1 - seat, "kept a strategy card")):
        update = api.MatchUpdate(version=3, seat=seat)
        for event in RULES.events_for(state, events, viewer):
            update.events.add(oregano={"event": json_struct(event)})
        update.state.CopyFrom(match_state(GAME, state, viewer))
        [line] = board(update.state).update_lines(update, NAMES)
        assert line.plain.startswith(f"{NAMES[seat]} (seat {seat + 1}) {expected}")
        assert (STRATEGIES[card][0] in line.plain) == (viewer == seat)


def test_the_smallest_board_keeps_a_long_boulevard_to_one_line() -> None:
    """A small window's last resort: however many shops were sold, the boulevard takes one line, so
    that the status line, both seats and the menu still fit 80 columns by 24 lines."""
    state = played(GAME, players=2, steps=40, seed=3)
    sold = [BoulevardEntry(100 + n, kind, 1, 1) for n, kind in enumerate(list(SHOP_NAMES) * 2)]
    state = dataclasses.replace(state, boulevard=sold)
    message = match_state(GAME, state, 0)
    full, *_, smallest = board(message).compact(message)
    assert sum("boulevard" in line or line.startswith(" ") for line in text(full, 80).splitlines()) > 1
    lines = text(smallest, 80).splitlines()
    (boulevard,) = [line for line in lines if line.startswith("boulevard ")]
    assert boulevard.endswith("…") and len(boulevard) <= 80
    assert lines[lines.index(boulevard) + 1].lstrip().startswith(("▶", NAMES[0], NAMES[1]))

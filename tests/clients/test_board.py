"""The terminal client's rendering: board, players, supply, menu and log, from real engine positions."""

from __future__ import annotations

import random

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client.board import RESTAURANTS, render_match
from mercado_client.menu import Market, menu_choices, render_menu
from mercado_client.narrate import update_lines
from mercado_client.wire import action_message, entrance_name, good_name, square_name
from rich.console import Console, RenderableType

from server.engine import (
    GameState,
    Money,
    Options,
    apply,
    customer_income,
    legal_actions,
    new_game,
    player_view,
    stand_cost,
    stand_income,
)
from server.engine.actions import CUSTOMER_GOODS, CUSTOMER_LEVEL
from server.engine.components import GOODS
from server.engine.geometry import ENTRANCE_NAMES, SQUARE_NAMES
from server.rpc.convert import events_message, view_message

NAMES = ["ada", "bob", "carmen", "dimitri"]


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


def match_state(state: GameState, seat: int, version: int = 7) -> api.MatchState:
    """What the server (server.rpc.render) would send ``seat``: the view and legal actions of player_view."""
    view = player_view(state, seat)
    out = api.MatchState(
        version=version,
        view=api.View(mercado=view_message(view)),
        legal_actions=[action_message(a) for a in view.get("legal_actions", [])],
    )
    out.match.match_id = "m1"
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


def market_cells(rendered: str) -> dict[tuple[str, str], str]:
    """The market table's cells by (row label, column label), e.g. ('3', 'c'), ('top', 'a'), ('2', 'left')."""
    rows: list[list[str]] = []
    block: list[list[str]] = []
    lines = rendered.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    for line in lines[start + 1 :]:
        if line.startswith(("├", "╰")):
            rows.append([" ".join(" ".join(column).split()) for column in zip(*block, strict=True)])
            block = []
            if line.startswith("╰"):
                break
            continue
        cells = line.split("│")[1:9]  # row label, left, a..e, right
        block.append([c.strip() for c in cells])
    row_names = ["header", "top", "1", "2", "3", "4", "5", "bottom"]
    column_names = ["label", "left", "a", "b", "c", "d", "e", "right"]
    return {(r, c): rows[i][j] for i, r in enumerate(row_names) for j, c in enumerate(column_names)}


@pytest.mark.parametrize("width", [80, 120])
def test_market_shows_every_square_and_entrance_where_it_is(width: int) -> None:
    state = played()
    message = match_state(state, seat=0)
    cells = market_cells(text(render_match(message), width))
    view = message.view.mercado
    assert [cells[("header", c)] for c in "abcde"] == list("abcde")
    assert [cells[(r, "label")] for r in "12345"] == list("12345")
    occupied = {square_name(c.square): c for c in view.market}
    kinds = set()
    for name in (c + r for c in "abcde" for r in "12345"):
        cell = cells[(name[1], name[0])]
        content = occupied.get(name)
        kind = content.WhichOneof("content") if content else "empty"
        kinds.add(kind)
        if content is None:
            assert cell == name
        elif kind == "stand":
            good, owner = good_name(content.stand.good), content.stand.owner
            assert cell == f"{good} #{owner} {NAMES[owner]}"
        elif kind == "face_down":
            assert cell == "? face-down"
        else:
            assert cell == RESTAURANTS[content.restaurant][0].upper()
    assert kinds == {"empty", "stand", "face_down", "restaurant"}
    tiles = {entrance_name(e.entrance): e.tile for e in view.entrances}
    assert len(tiles) >= 3
    for name in ENTRANCE_NAMES:
        side, line = name.split("-")
        cell = cells[(side, line)] if side in ("top", "bottom") else cells[(line, side)]
        tile = tiles.get(name)
        if tile is None:
            assert cell == {"top": "↓", "bottom": "↑", "left": "→", "right": "←"}[side]
        else:
            goods = " ".join(good_name(g) for g in tile.goods)
            assert cell == f"L{tile.level} {'●' * tile.level} {goods}"


def test_players_show_hidden_coins_hands_and_whose_turn() -> None:
    state = played()
    viewer = (state.current_player + 1) % state.players
    rendered = text(render_match(match_state(state, seat=viewer)))
    for seat in range(state.players):
        shown = f"#{seat} {NAMES[seat]}"
        assert shown in rendered
        coins = str(state.coins[seat]) if seat == viewer else "hidden"
        assert f"coins {coins}   stands left {state.wooden_stands[seat]}" in rendered
        assert "hand  " + " ".join(GOODS[g] for g in state.hands[seat]) in rendered
    assert f"▶ #{state.current_player} {NAMES[state.current_player]} to move" in rendered
    assert f"#{viewer} {NAMES[viewer]} (you)" in rendered
    assert rendered.count("hidden") == state.players - 1


def test_public_money_shows_every_total() -> None:
    state = played(money="public")
    rendered = text(render_match(match_state(state, seat=1)))
    assert "hidden" not in rendered
    for seat in range(state.players):
        assert f"coins {state.coins[seat]}   stands left" in rendered


def test_supply_and_status() -> None:
    state = played(players=2, steps=0)
    message = match_state(state, seat=0)
    rendered = text(render_match(message), 80)
    view = message.view.mercado
    offer = " ".join(GOODS[g] for g in state.offer)
    assert " ".join(("offer", offer, f"bag {view.bag_size}")).split() == [
        word for line in rendered.splitlines() if line.startswith("offer") for word in line.split()
    ]
    for level in view.customers:
        line = next(line for line in rendered.splitlines() if line.startswith(f"L{level.level} "))
        assert line.split()[-2:] == ["deck", str(level.deck_size)]
        for tile in level.display:
            assert "+".join(good_name(g) for g in tile.goods) in line
    assert rendered.startswith("match m1 · playing · to move")


def test_final_round_and_result() -> None:
    state = played(players=2, steps=400, seed=2)
    assert state.is_terminal and state.result is not None
    rendered = text(render_match(match_state(state, seat=0)))
    assert "finished" in rendered.splitlines()[0]
    assert "final scores" in rendered
    rows = [line.split() for line in rendered.split("final scores")[1].splitlines()]
    for seat in range(2):
        row = next(r for r in rows if r[1:3] == [f"#{seat}", NAMES[seat]])
        assert row == [
            str(state.result.ranks[seat]),
            f"#{seat}",
            NAMES[seat],
            str(state.result.scores[seat]),
            str(state.result.stands_on_market[seat]),
        ]
    final_round = next(
        position
        for steps in range(400)
        if (position := played(players=2, steps=steps, seed=2)).final_turns_left is not None
    )
    turns = final_round.final_turns_left
    assert f"final round: {turns} turns left" in text(render_match(match_state(final_round, seat=0)))


def test_menu_numbers_every_legal_action_once() -> None:
    state = played()
    message = match_state(state, seat=state.current_player)
    choices = menu_choices(message)
    assert sorted(c.action.SerializeToString() for c in choices) == sorted(
        a.SerializeToString() for a in message.legal_actions
    )
    rendered = text(render_menu(choices), 80)
    numbers = [int(word) for line in rendered.splitlines() for word in line.split() if word.isdigit()]
    assert numbers == list(range(1, len(choices) + 1))
    coin = next(n for n, c in enumerate(choices, 1) if c.kind == "take_coin")
    assert f"{coin} take a coin" in rendered
    assert choices[0].kind in ("open_stand", "take_offer")


def test_menu_hints_agree_with_the_engine() -> None:
    for seed in range(6):
        state = played(seed=seed, steps=30 + seed * 5)
        market = Market(match_state(state, seat=state.current_player).view.mercado)
        for action in legal_actions(state):
            if action.type == "open_stand":
                square = SQUARE_NAMES[action.square]
                assert market.cost(square) == stand_cost(state, action.square)
                assert market.stand_income(GOODS[action.good], square) == stand_income(
                    state, action.good, action.square
                )
            elif action.type == "bring_customer":
                goods = [GOODS[g] for g in CUSTOMER_GOODS[action.customer]]
                paid = market.customer_income(
                    CUSTOMER_LEVEL[action.customer], goods, ENTRANCE_NAMES[action.entrance]
                )
                expected = customer_income(state, action.customer, action.entrance)
                assert [paid.get(p, 0) for p in range(state.players)] == expected


def test_the_log_narrates_an_action_as_the_viewer_may_see_it() -> None:
    state = played(players=2, steps=0, seed=1)
    before = match_state(state, seat=1)
    action = next(a for a in legal_actions(state) if a.type == "open_stand")
    actor = state.current_player
    events = apply(state, action)
    viewer = 1 - actor
    update = api.MatchUpdate(version=1, seat=actor, state=match_state(state, seat=viewer))
    update.action.CopyFrom(action_message(action.to_json()))
    update.events.extend(events_message(events, state.options, viewer))
    lines = [line.plain for line in update_lines(update, NAMES, before)]
    square = SQUARE_NAMES[action.square]
    assert lines[0].startswith(
        f"#{actor} {NAMES[actor]} opened a {GOODS[action.good]} stand on {square} (cost 1)"
    )

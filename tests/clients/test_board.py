"""The terminal client's rendering: board, players, clock, supply, result and log, from engine positions."""

from __future__ import annotations

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client.wire import action_message, entrance_name, good_name, square_name
from mercado_terminal.board import RESTAURANTS, clock_time, render_match
from mercado_terminal.narrate import seat_changes, update_lines
from screens import MATCH_ID, NAMES, match_state, played, squeezed, text

from server.games.mercado import GameState, apply, legal_actions
from server.games.mercado.components import GOODS
from server.games.mercado.geometry import ENTRANCE_NAMES, SQUARE_NAMES
from server.rpc.wires.mercado import events_message


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
            assert cell == f"{good} {NAMES[owner]}"  # the owner's name, on its seat's colour
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
        shown = f"{NAMES[seat]} (seat {seat + 1}"
        assert shown in rendered
        coins = str(state.coins[seat]) if seat == viewer else "hidden"
        assert f"coins {coins}   stands left {state.wooden_stands[seat]}" in rendered
        assert "hand  " + " ".join(GOODS[g] for g in state.hands[seat]) in rendered
    mover = state.current_player
    assert f"▶ {NAMES[mover]} (seat {mover + 1}) to move" in rendered
    assert f"{NAMES[viewer]} (seat {viewer + 1}, you)" in rendered
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


def result_rows(rendered: str) -> dict[str, list[str]]:
    """The final table's rows by player label: rank, score, restaurants in hand, stands, note."""
    rows = {}
    for line in squeezed(rendered.split("final scores")[1]):
        for name in NAMES:
            if f" {name} (seat " in line:
                rank, rest = line.split(f" {name} (seat ")
                seat, *cells = rest.split()
                rows[f"{name} (seat {seat}"] = [rank, *cells]
    return rows


def test_final_round_and_result() -> None:
    state = played(players=2, steps=400, seed=2)
    assert state.is_terminal and state.result is not None
    rendered = text(render_match(match_state(state, seat=0)))
    assert "finished" in rendered.splitlines()[0]
    assert "final scores" in rendered
    rows = result_rows(rendered)
    for seat in range(2):
        in_hand = len(state.restaurant_hands[seat])
        assert rows[f"{NAMES[seat]} (seat {seat + 1})"] == [
            str(state.result.ranks[seat]),
            str(state.result.scores[seat]),
            *([str(in_hand), f"(-{in_hand})"] if in_hand else ["0"]),
            str(state.result.stands_on_market[seat]),
        ]
    note = " ".join(rendered.split("final scores")[1].split())
    assert "less 1 for each restaurant left in hand (already deducted)" in note
    assert "ties are broken by the most stands on the market" in note
    assert "a seat that forfeited ranks last" in note
    final_round = next(
        position
        for steps in range(400)
        if (position := played(players=2, steps=steps, seed=2)).final_turns_left is not None
    )
    turns = final_round.final_turns_left
    left = f"{turns} turn{'' if turns == 1 else 's'} left"  # "1 turn left", not "1 turns left"
    assert f"final round: {left}" in text(render_match(match_state(final_round, seat=0)))


def test_the_log_narrates_an_action_as_the_viewer_may_see_it() -> None:
    state = played(players=2, steps=0, seed=1)
    action = next(a for a in legal_actions(state) if a.type == "open_stand")
    actor = state.current_player
    events = apply(state, action)
    viewer = 1 - actor
    update = api.MatchUpdate(version=1, seat=actor, state=match_state(state, seat=viewer))
    update.action.CopyFrom(action_message(action.to_json()))
    update.events.extend(events_message(events, state.options, viewer))
    lines = [line.plain for line in update_lines(update, NAMES)]
    square = SQUARE_NAMES[action.square]
    assert lines[0].startswith(
        f"{NAMES[actor]} (seat {actor + 1}) opened a {GOODS[action.good]} stand on {square} (cost 1)"
    )


def test_the_header_shows_the_whole_match_id_and_the_movers_clock() -> None:
    state = played(players=3, steps=10)
    message = match_state(state, seat=0, match_id=MATCH_ID)
    message.match.time_control.turn_seconds = 60
    message.match.time_control.reserve_seconds = 180
    now = 1_700_000_000_000
    message.match.deadline_unix_ms = now + 95_500
    reserves = [180_000, 42_000, 0]
    for info, reserve in zip(message.match.seats, reserves, strict=True):
        info.reserve_ms = reserve
    rendered = text(render_match(message, now_ms=now))
    mover = state.current_player
    header = rendered.splitlines()[0]
    assert header.startswith(
        f"match {MATCH_ID} · playing · to move {NAMES[mover]} (seat {mover + 1}) · 1:36 left"
    )
    lines = squeezed(rendered)
    for seat, reserve in enumerate(reserves):
        shown = f"reserve {clock_time(reserve)}"
        if seat == mover:
            shown = f"1:36 left {shown}"
        assert any(f"clock {shown}" in line for line in lines), shown
    # Without a clock, no time is shown.
    rendered = text(render_match(match_state(state, seat=0, match_id=MATCH_ID), now_ms=now))
    assert " left" not in rendered.splitlines()[0] and "reserve" not in rendered


@pytest.mark.parametrize(
    ("ms", "shown"), [(0, "0:00"), (1, "0:01"), (59_001, "1:00"), (180_000, "3:00"), (3_725_000, "1:02:05")]
)
def test_clock_times(ms: int, shown: str) -> None:
    assert clock_time(ms) == shown


def test_seats_played_by_the_ai_and_bots_are_marked() -> None:
    state = played(players=4, steps=10)
    message = match_state(state, seat=0)
    seats = message.match.seats
    seats[1].played_by_ai = True
    seats[2].played_by_ai = seats[2].left = True
    seats[3].played_by_ai = seats[3].forfeited = True
    rendered = text(render_match(message), 160)
    assert "timed out: the AI plays it" in rendered
    assert "left: the AI plays it" in rendered
    assert "forfeited: the AI plays it" in rendered
    seats[1].played_by_ai = False
    seats[1].bot, seats[1].bot_level = True, api.BOT_LEVEL_HARD
    rendered = text(render_match(message), 160)
    assert "bot, hard" in rendered and "timed out" not in rendered


def test_the_final_ranks_are_the_summarys_with_forfeited_seats_last() -> None:
    state = played(players=2, steps=400, seed=2)
    assert state.result is not None
    winner = state.result.ranks.index(1)
    loser = 1 - winner
    message = match_state(state, seat=0)
    message.match.seats[winner].forfeited = True
    message.match.ranks[:] = [2 if seat == winner else 1 for seat in range(2)]
    rendered = text(render_match(message))
    rows = result_rows(rendered)
    assert rows[f"{NAMES[loser]} (seat {loser + 1})"][0] == "1"
    assert rows[f"{NAMES[winner]} (seat {winner + 1})"][0] == "2"
    assert rows[f"{NAMES[winner]} (seat {winner + 1})"][-1] == "forfeited"
    table = squeezed(rendered.split("final scores")[1])
    assert table.index(next(line for line in table if NAMES[loser] in line)) < table.index(
        next(line for line in table if NAMES[winner] in line)
    )


def test_names_show_whole_on_the_market_and_long_ones_keep_their_seat_number() -> None:
    state = played(players=2, steps=30)
    message = match_state(state, seat=0)
    message.match.seats[0].display_name = "Bartholomew the Third"
    message.match.seats[1].display_name = "mercado-ai"
    cells = market_cells(text(render_match(message)))
    owned = [cell for cell in cells.values() if "Bart" in cell]
    assert owned and all(cell.split(" ", 1)[1] == "Barthol… 1" for cell in owned)
    theirs = [cell for cell in cells.values() if "mercado" in cell]
    assert theirs and all(cell.split(" ", 1)[1] == "mercado-ai" for cell in theirs)  # not "mercad… 2"


def with_seats(state: GameState, **flags: dict[int, bool]) -> api.MatchState:
    message = match_state(state, seat=0)
    for flag, seats in flags.items():
        for seat, value in seats.items():
            setattr(message.match.seats[seat], flag, value)
    return message


def test_the_log_tells_seat_changes() -> None:
    state = played(players=2, steps=4)
    before = with_seats(state, taken={1: False})
    joined = with_seats(state)
    assert [t.plain for t in seat_changes(joined, NAMES, before)] == ["bob (seat 2) took their seat"]
    timed_out = with_seats(state, played_by_ai={0: True})
    assert [t.plain for t in seat_changes(timed_out, NAMES, joined)] == [
        "ada (seat 1) ran out of time: the AI plays their turns"
    ]
    assert [t.plain for t in seat_changes(joined, NAMES, timed_out)] == [
        "ada (seat 1) is back and plays their own turns"
    ]
    left = with_seats(state, played_by_ai={1: True}, left={1: True})
    assert [t.plain for t in seat_changes(left, NAMES, joined)] == [
        "bob (seat 2) left the match: the AI plays their turns"
    ]
    forfeited = with_seats(state, played_by_ai={1: True}, forfeited={1: True})
    assert [t.plain for t in seat_changes(forfeited, NAMES, joined)] == [
        "bob (seat 2) forfeited: ranked last; the AI plays their turns"
    ]
    assert seat_changes(joined, NAMES, joined) == []

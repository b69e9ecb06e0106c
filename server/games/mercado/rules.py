"""The rules of RULES.md: legal actions, their effects, the end of the game.

Two paths apply an action (as in python-chess): :func:`apply` checks it,
refuses an illegal one with a reason and leaves the state untouched, and
records events; :func:`apply_unchecked` trusts the caller (search code that
took the action from :func:`legal_actions`) and records events only if asked.
"""

from __future__ import annotations

from typing import Any, Final

from server.games.rng import insert_randomly

from .actions import (
    BRING_CUSTOMER,
    BRING_CUSTOMER_ACTIONS,
    OPEN_RESTAURANT,
    OPEN_RESTAURANT_ACTIONS,
    OPEN_STAND,
    OPEN_STAND_ACTIONS,
    REDRAW_HAND,
    REDRAW_HAND_ACTION,
    REFRESH_OFFER,
    REFRESH_OFFER_ACTION,
    TAKE_COIN,
    TAKE_COIN_ACTION,
    TAKE_OFFER,
    TAKE_OFFER_ACTIONS,
    Action,
)
from .components import GOODS, HAND_SIZE, RESTAURANTS, SIZE
from .errors import IllegalAction
from .geometry import (
    CUSTOMER_GOODS,
    CUSTOMER_LEVEL,
    CUSTOMER_MASK,
    ENTRANCE_LINE,
    ENTRANCE_NAMES,
    LINE_SQUARES,
    N_ENTRANCES,
    N_GOODS,
    N_LEVELS,
    N_SQUARES,
    NEIGHBOURS,
    RESTAURANT_MASK,
    SQUARE_COLUMN,
    SQUARE_ENTRANCES,
    SQUARE_NAMES,
    SQUARE_ROW,
)
from .scoring import final_result
from .state import FINAL_ROUND, FINISHED, MAIN, PLAYING, TAKE_OFFER_PHASE, GameState

Event = dict[str, Any]

# An available square has no stand, so neither of its lines holds more than SIZE - 1.
MAX_STAND_COST: Final = SIZE
# The game ends when this few squares or entrances remain.
END_THRESHOLD: Final = 4
_SQUARES: Final = range(N_SQUARES)
_ENTRANCES: Final = range(N_ENTRANCES)


def coin_run_to_end(players: int) -> int:
    """Consecutive coin actions that end the game at once."""
    return 4 if players == 2 else players


# --- money -------------------------------------------------------------------


def stand_value(state: GameState, good: int, square: int) -> int:
    """1 + face-up orthogonal neighbours that improve this good."""
    value = 1
    restaurant = state.restaurant
    for n in NEIGHBOURS[square]:
        kind = restaurant[n]
        if kind >= 0 and RESTAURANT_MASK[kind] >> good & 1:
            value += 1
    return value


def stand_cost(state: GameState, square: int) -> int:
    """1 + the larger count of stands in the square's row or column."""
    lines = state.line_stands
    return 1 + max(lines[SQUARE_ROW[square]], lines[SQUARE_COLUMN[square]])


def stand_income(state: GameState, good: int, square: int) -> int:
    """What opening a stand of this good here earns from customers already waiting."""
    entrances = state.entrances
    customers = 0
    for e in SQUARE_ENTRANCES[square]:
        kind = entrances[e]
        if kind >= 0 and CUSTOMER_MASK[kind] >> good & 1:
            customers += CUSTOMER_LEVEL[kind]
    return customers * stand_value(state, good, square) if customers else 0


def customer_income(state: GameState, kind: int, entrance: int) -> list[int]:
    """What placing this customer tile at this entrance earns each player."""
    income = [0] * state.players
    level, mask = CUSTOMER_LEVEL[kind], CUSTOMER_MASK[kind]
    goods, owners = state.stand_good, state.stand_owner
    for square in LINE_SQUARES[ENTRANCE_LINE[entrance]]:
        good = goods[square]
        if good >= 0 and mask >> good & 1:
            income[owners[square]] += level * stand_value(state, good, square)
    return income


def payments(state: GameState, action: Action) -> tuple[int, list[int]]:
    """What ``action`` costs the player to move, and what it pays each player at once."""
    income = [0] * state.players
    cost = 0
    if action.kind == OPEN_STAND:
        cost = stand_cost(state, action.square)
        income[state.current] = stand_income(state, action.good, action.square)
    elif action.kind == BRING_CUSTOMER:
        income = customer_income(state, action.customer, action.entrance)
    elif action.kind in (TAKE_COIN, OPEN_RESTAURANT):
        income[state.current] = 1
    return cost, income


def payments_of(state: GameState, actions: list[Action]) -> list[tuple[int, tuple[int, ...]]]:
    """``payments`` of each of ``actions`` in turn, each income a tuple (what a preview shows)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for action in actions:
        cost, income = payments(state, action)
        out.append((cost, tuple(income)))
    return out


# --- counting ----------------------------------------------------------------


def available_squares(state: GameState) -> int:
    """Squares that count as available for end trigger 1: no stand, no face-up restaurant and,
    unless the option counts them, no face-down one. Counted per kind (run after every placement):
    a square holds at most one of the three, since placing a stand or restaurant takes the
    face-down tile there."""
    stands = N_SQUARES - state.stand_good.count(-1)
    face_up = N_SQUARES - state.restaurant.count(-1)
    available = N_SQUARES - stands - face_up
    if not state.options.face_down_counts_as_available:
        available -= N_SQUARES - state.face_down.count(-1)
    return available


def empty_entrances(state: GameState) -> int:
    return state.entrances.count(-1)


def _three_identical(tiles: list[int]) -> bool:
    return len(tiles) == HAND_SIZE and tiles[0] == tiles[1] == tiles[2]


# --- legal actions -----------------------------------------------------------


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action of the current player, each once, in a fixed order."""
    if state.status == FINISHED:
        return []
    if state.phase == TAKE_OFFER_PHASE:
        return _offer_actions(state)
    p = state.current
    out: list[Action] = []
    hand = state.hands[p]
    if not state.redrawn and _three_identical(hand) and len(state.bag) >= HAND_SIZE:
        out.append(REDRAW_HAND_ACTION)
    goods, restaurant = state.stand_good, state.restaurant
    open_squares = [q for q in _SQUARES if goods[q] < 0 and restaurant[q] < 0]
    if hand and state.wooden_stands[p]:
        _add_stand_actions(state, p, hand, open_squares, out)
    _add_customer_actions(state, p, out)
    restaurant_hand = state.restaurant_hands[p]
    if restaurant_hand:
        for kind in sorted(set(restaurant_hand)):
            row = OPEN_RESTAURANT_ACTIONS[kind]
            out += [row[q] for q in open_squares]
    out.append(TAKE_COIN_ACTION)
    return out


def _offer_actions(state: GameState) -> list[Action]:
    out: list[Action] = []
    offer = state.offer
    if not state.refreshed and _three_identical(offer) and len(state.bag) >= HAND_SIZE:
        out.append(REFRESH_OFFER_ACTION)
    out += [TAKE_OFFER_ACTIONS[g] for g in range(N_GOODS) if g in offer]
    return out


def _add_stand_actions(
    state: GameState, p: int, hand: list[int], open_squares: list[int], out: list[Action]
) -> None:
    coins = state.coins[p]
    if coins >= MAX_STAND_COST:  # every open square is affordable
        for good in sorted(set(hand)):
            row = OPEN_STAND_ACTIONS[good]
            out += [row[q] for q in open_squares]
        return
    # A square's cost is the same for every good: only squares beyond the coins need the good's income.
    costs = [stand_cost(state, q) for q in open_squares]
    for good in sorted(set(hand)):
        row = OPEN_STAND_ACTIONS[good]
        out += [
            row[q]
            for q, cost in zip(open_squares, costs, strict=True)
            if cost <= coins or cost <= coins + stand_income(state, good, q)
        ]


def _add_customer_actions(state: GameState, p: int, out: list[Action]) -> None:
    entrances, lines = state.entrances, state.line_stands
    owned = state.owned_goods[p]
    # Each empty entrance with its line's stand count and the goods the player owns on that line.
    empty = [(e, lines[ENTRANCE_LINE[e]], owned[ENTRANCE_LINE[e]]) for e in _ENTRANCES if entrances[e] < 0]
    if not empty:
        return
    for level_index in range(N_LEVELS):
        display = state.display[level_index]
        if not display:
            continue
        reachable = [(e, goods) for e, stands, goods in empty if stands > level_index]
        if not reachable:
            continue
        for kind in sorted(set(display)):
            mask = CUSTOMER_MASK[kind]
            row = BRING_CUSTOMER_ACTIONS[kind]
            out += [row[e] for e, goods in reachable if goods & mask]


# --- checking ----------------------------------------------------------------


def _line_name(line: int) -> str:
    return f"row {line + 1}" if line < SIZE else f"column {'abcde'[line - SIZE]}"


def why_illegal(state: GameState, action: Action) -> str | None:
    """The one-line reason this action is illegal now, or None if it is legal."""
    if state.status == FINISHED:
        return "the game is over"
    kind = action.kind
    if state.phase == TAKE_OFFER_PHASE:
        if kind not in (TAKE_OFFER, REFRESH_OFFER):
            return "you must first take a tile from the stand offer"
    elif kind in (TAKE_OFFER, REFRESH_OFFER):
        return "the stand offer is taken from only after opening a stand"
    p = state.current
    if kind == REDRAW_HAND:
        return _why_not_redraw(state, p)
    if kind == OPEN_STAND:
        return _why_not_stand(state, p, action.good, action.square)
    if kind == REFRESH_OFFER:
        if state.refreshed:
            return "you have already refreshed the stand offer this turn: take a tile from it"
        if not _three_identical(state.offer):
            return "the stand offer is not three identical tiles"
        if len(state.bag) < HAND_SIZE:
            return "the bag holds fewer than 3 tiles"
        return None
    if kind == TAKE_OFFER:
        if action.good not in state.offer:
            return f"the stand offer has no {GOODS[action.good]}"
        return None
    if kind == BRING_CUSTOMER:
        return _why_not_customer(state, p, action.customer, action.entrance)
    if kind == OPEN_RESTAURANT:
        if action.restaurant not in state.restaurant_hands[p]:
            return f"you have no {RESTAURANTS[action.restaurant]} in your restaurant hand"
        return _why_not_open(state, action.square)
    return None  # take_coin is always legal


def _why_not_redraw(state: GameState, p: int) -> str | None:
    if state.redrawn:
        return "you have already redrawn your hand this turn"
    if not _three_identical(state.hands[p]):
        return "your hand is not three identical tiles"
    if len(state.bag) < HAND_SIZE:
        return "the bag holds fewer than 3 tiles"
    return None


def _why_not_open(state: GameState, square: int) -> str | None:
    if state.stand_good[square] >= 0:
        return f"{SQUARE_NAMES[square]} already holds a stand"
    if state.restaurant[square] >= 0:
        return f"{SQUARE_NAMES[square]} already holds a face-up restaurant"
    return None


def _why_not_stand(state: GameState, p: int, good: int, square: int) -> str | None:
    if not state.wooden_stands[p]:
        return "you have no wooden stand left"
    if good not in state.hands[p]:
        return f"you have no {GOODS[good]} tile in your hand"
    reason = _why_not_open(state, square)
    if reason:
        return reason
    cost = stand_cost(state, square)
    income = stand_income(state, good, square)
    coins = state.coins[p]
    if coins + income < cost:
        return f"opening on {SQUARE_NAMES[square]} costs {cost}; you have {coins} and would earn {income}"
    return None


def _why_not_customer(state: GameState, p: int, kind: int, entrance: int) -> str | None:
    level = CUSTOMER_LEVEL[kind]
    if kind not in state.display[level - 1]:
        goods = "+".join(GOODS[g] for g in CUSTOMER_GOODS[kind])
        return f"the display has no level {level} {goods} customer tile"
    if state.entrances[entrance] >= 0:
        return f"entrance {ENTRANCE_NAMES[entrance]} already has customers"
    line = ENTRANCE_LINE[entrance]
    if state.line_stands[line] < level:
        return f"{_line_name(line)} has {state.line_stands[line]} stands, fewer than {level} customers"
    if not state.owned_goods[p][line] & CUSTOMER_MASK[kind]:
        goods = " or ".join(GOODS[g] for g in CUSTOMER_GOODS[kind])
        return f"you own no {goods} stand in {_line_name(line)}"
    return None


# --- applying ----------------------------------------------------------------


def apply(state: GameState, action: Action) -> list[Event]:
    """Apply a legal action and return its events; raise IllegalAction and change nothing otherwise."""
    reason = why_illegal(state, action)
    if reason is not None:
        raise IllegalAction(reason)
    events: list[Event] = []
    apply_unchecked(state, action, events)
    return events


def apply_unchecked(state: GameState, action: Action, events: list[Event] | None = None) -> None:
    """Apply an action known to be legal; append events to ``events`` if given."""
    kind = action.kind
    if kind == OPEN_STAND:
        _open_stand(state, action.good, action.square, events)
    elif kind == TAKE_OFFER:
        _take_offer(state, action.good, events)
    elif kind == BRING_CUSTOMER:
        _bring_customer(state, action.customer, action.entrance, events)
    elif kind == TAKE_COIN:
        _take_coin(state, events)
    elif kind == OPEN_RESTAURANT:
        _open_restaurant(state, action.restaurant, action.square, events)
    elif kind == REDRAW_HAND:
        _redraw_hand(state, events)
    else:
        _refresh_offer(state, events)


def _names(tiles: list[int]) -> list[str]:
    return [GOODS[g] for g in tiles]


def _redraw_hand(state: GameState, events: list[Event] | None) -> None:
    p = state.current
    old, bag = state.hands[p], state.bag
    new = bag[:HAND_SIZE]
    del bag[:HAND_SIZE]
    state.rng = insert_randomly(state.rng, bag, old)
    state.hands[p] = new
    state.redrawn = True
    if events is not None:
        events.append({"type": "hand_redrawn", "player": p, "returned": _names(old), "drawn": _names(new)})


def _take_face_down(state: GameState, p: int, square: int, events: list[Event] | None) -> None:
    kind = state.face_down[square]
    if kind < 0:
        return
    state.face_down[square] = -1
    state.restaurant_hands[p].append(kind)
    if events is not None:
        events.append(
            {
                "type": "restaurant_taken",
                "player": p,
                "square": SQUARE_NAMES[square],
                "restaurant": RESTAURANTS[kind],
            }
        )


def _open_stand(state: GameState, good: int, square: int, events: list[Event] | None) -> None:
    p = state.current
    cost = stand_cost(state, square)
    income = stand_income(state, good, square)
    state.hands[p].remove(good)
    state.wooden_stands[p] -= 1
    state.coins[p] += income - cost
    state.place_stand(square, good, p)
    state.consecutive_coins = 0
    if events is not None:
        events.append(
            {
                "type": "stand_opened",
                "player": p,
                "good": GOODS[good],
                "square": SQUARE_NAMES[square],
                "cost": cost,
            }
        )
        if income:
            events.append({"type": "income", "player": p, "amount": income})
    _take_face_down(state, p, square, events)
    if state.offer:
        state.phase = TAKE_OFFER_PHASE
    else:
        _end_turn(state, events, placed=True)


def _refresh_offer(state: GameState, events: list[Event] | None) -> None:
    old, bag = state.offer, state.bag
    new = bag[:HAND_SIZE]
    del bag[:HAND_SIZE]
    state.rng = insert_randomly(state.rng, bag, old)
    state.offer = new
    state.refreshed = True
    if events is not None:
        events.append({"type": "offer_refreshed", "returned": _names(old), "drawn": _names(new)})


def _take_offer(state: GameState, good: int, events: list[Event] | None) -> None:
    p = state.current
    state.offer.remove(good)
    state.hands[p].append(good)
    if events is not None:
        events.append({"type": "offer_taken", "player": p, "good": GOODS[good]})
    if state.bag:
        drawn = state.bag.pop(0)
        state.offer.append(drawn)
        if events is not None:
            events.append({"type": "offer_refilled", "good": GOODS[drawn]})
    state.phase = MAIN
    _end_turn(state, events, placed=True)


def _bring_customer(state: GameState, kind: int, entrance: int, events: list[Event] | None) -> None:
    p = state.current
    level = CUSTOMER_LEVEL[kind]
    display, deck = state.display[level - 1], state.decks[level - 1]
    display.remove(kind)
    state.entrances[entrance] = kind
    income = customer_income(state, kind, entrance)
    for player, amount in enumerate(income):
        state.coins[player] += amount
    state.consecutive_coins = 0
    if events is not None:
        events.append(
            {
                "type": "customer_brought",
                "player": p,
                "level": level,
                "goods": [GOODS[g] for g in CUSTOMER_GOODS[kind]],
                "entrance": ENTRANCE_NAMES[entrance],
            }
        )
        events += [{"type": "income", "player": q, "amount": a} for q, a in enumerate(income) if a]
    while len(display) < 3 and deck:
        drawn = deck.pop(0)
        display.append(drawn)
        if events is not None:
            events.append(
                {
                    "type": "display_refilled",
                    "level": level,
                    "goods": [GOODS[g] for g in CUSTOMER_GOODS[drawn]],
                }
            )
    _end_turn(state, events, customer=True)


def _open_restaurant(state: GameState, kind: int, square: int, events: list[Event] | None) -> None:
    p = state.current
    state.restaurant_hands[p].remove(kind)
    state.restaurant[square] = kind
    state.coins[p] += 1
    state.consecutive_coins = 0
    if events is not None:
        events.append(
            {
                "type": "restaurant_opened",
                "player": p,
                "restaurant": RESTAURANTS[kind],
                "square": SQUARE_NAMES[square],
            }
        )
    _take_face_down(state, p, square, events)
    _end_turn(state, events, placed=True)


def _take_coin(state: GameState, events: list[Event] | None) -> None:
    p = state.current
    state.coins[p] += 1
    state.consecutive_coins += 1
    if events is not None:
        events.append({"type": "coin_taken", "player": p})
    if state.consecutive_coins >= coin_run_to_end(state.players):
        _finish(state, events, "consecutive_coins")
    else:
        _end_turn(state, events)


def _end_turn(
    state: GameState, events: list[Event] | None, placed: bool = False, customer: bool = False
) -> None:
    if state.status == PLAYING:
        if (placed and available_squares(state) <= END_THRESHOLD) or (
            customer and empty_entrances(state) <= END_THRESHOLD
        ):
            state.status = FINAL_ROUND
            state.final_turns_left = state.players - 1
            if events is not None:
                reason = "squares" if placed else "entrances"
                events.append({"type": "end_triggered", "reason": reason, "final_turns": state.players - 1})
    elif state.final_turns_left is not None:
        state.final_turns_left -= 1
        if state.final_turns_left <= 0:
            _finish(state, events, "final_round")
            return
    state.current = (state.current + 1) % state.players
    state.phase = MAIN
    state.redrawn = False
    state.refreshed = False


def _finish(state: GameState, events: list[Event] | None, reason: str) -> None:
    state.status = FINISHED
    state.phase = MAIN
    state.redrawn = False
    state.refreshed = False
    state.final_turns_left = None
    state.result = final_result(state)
    if events is not None:
        events.append({"type": "game_ended", "reason": reason, "result": state.result.to_json()})

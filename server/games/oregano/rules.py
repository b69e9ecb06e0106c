"""The rules of RULES.md: set-up, legal actions, their effects, the end of the game.

Every function takes the state and mutates it only when the action is legal.
Chance comes only from ``state.rng`` (SplitMix64, :mod:`server.games.rng`).

Events (``apply``'s list, hidden parts included; :func:`views.events_for` filters them)::

    start_shop {seat, shop, cell, id}       strategy_drawn {seat, cards}      (cards: private)
    strategy_kept {seat, card, returned}    (returned: private; card: private unless open)
    deck_shuffled {size}                    turn {seat, round}      income {seat, gold}
    declared {seat, first, second}          built {seat, shop, cell, id, paid}
    levelled_up {seat, shop, id, from, to, paid}
    took_resources {seat, owner, cell, resource, count, fee}
    sold {seat, shop, id, cell, level, gold}
    acquired {seat, shop, id, level, seller, cell, gold}
    skipped {seat, kind}                    strategy_achieved {seat, card, gold}
    bonus_taken {seat, bonus}               casino {seat, go}       die {seat, roll}
    casino_lost {seat, gold}                casino_won {seat, took}  (took: per seat)
    end_triggered {seat, round}             game_over {result}
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

import server.games.rng as chance

from . import actions as A
from .actions import OPERATIONS, OreganoAction
from .components import (
    ACQUIRE_DISCOUNT,
    ACTION_KINDS,
    ACTIONS_PER_TURN,
    BONUSES,
    CASINO_LOSS,
    CASINO_MIN_GOLD,
    CASINO_TAKE,
    CASINO_WIN_FROM,
    CELLS,
    COLUMN_LINES,
    DIAGONALS,
    DIE_FACES,
    FOUNTAIN_DIVIDEND,
    GENERAL_GROUP,
    JEWELER_BONUS,
    LEVEL_UP_GOLD,
    MAX_LEVEL,
    MERCHANTS,
    OTHERS_SHOP_FEE,
    RESOURCES,
    ROW_LINES,
    SHOP_IDS,
    SHOPS,
    STARTING_GOLD,
    STRATEGIES,
    STRATEGY_COPIES,
    STRATEGY_GOAL,
    STRATEGY_REWARD,
    SUPPLY_PER_RESOURCE,
    is_special,
    sale_price,
    stock_of,
)
from .errors import IllegalAction, InvalidAction
from .scoring import level_of, outcome
from .state import (
    ACTION,
    CASINO,
    DECLARE,
    FINAL_ROUND,
    FINISHED,
    KEEP_STRATEGY,
    OVER,
    START_SHOP,
    BoulevardEntry,
    Options,
    OreganoState,
    Shop,
    empty_record,
)

Event = dict[str, Any]

# The action types each phase takes.
PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    START_SHOP: (A.CHOOSE_START_SHOP,),
    KEEP_STRATEGY: (A.KEEP_STRATEGY,),
    DECLARE: (A.DECLARE,),
    ACTION: (A.BUILD, A.LEVEL_UP, A.TAKE_RESOURCES, A.SELL, A.ACQUIRE, A.SKIP),
    CASINO: (A.CASINO,),
    OVER: (),
}


@functools.cache
def cells_of_level(level: int) -> tuple[str, ...]:
    return tuple(cell for cell in CELLS if level_of(cell) == level)


# --- set-up --------------------------------------------------------------------


def new_game(options: Options, seed: int) -> OreganoState:
    """Set-up steps 1 and 3's first shuffle; the players then choose their start shops."""
    state = OreganoState.empty(options)
    state.rng = seed & chance.MASK64
    n = options.players
    state.gold = [STARTING_GOLD] * n
    state.stock = {kind: stock_of(kind, n) for kind in SHOP_IDS}
    state.supply = dict.fromkeys(RESOURCES, SUPPLY_PER_RESOURCE)
    state.rng, state.first_player = chance.below(state.rng, n)
    state.current = state.first_player
    state.strategy_deck = [card for card in STRATEGIES for _ in range(STRATEGY_COPIES)]
    state.rng = chance.shuffle(state.rng, state.strategy_deck)
    state.phase = START_SHOP
    return state


# --- small queries ---------------------------------------------------------------


def has_kind(state: OreganoState, seat: int, kind: str) -> bool:
    return any(shop.kind == kind for shop in state.areas[seat].values())


def may_take_special(state: OreganoState, seat: int, kind: str) -> bool:
    """The special limit (option special_limit), for build and acquire."""
    if not is_special(kind):
        return True
    held = [shop.kind for shop in state.areas[seat].values() if is_special(shop.kind)]
    if state.options.special_limit == "one_total":
        return not held
    return kind not in held


def income_of(state: OreganoState, seat: int) -> int:
    """Decision: each general shop pays base + (level - 1) + 1 if its owner has a fountain."""
    fountain = FOUNTAIN_DIVIDEND if has_kind(state, seat, "fountain") else 0
    return sum(
        SHOPS[shop.kind].dividend + level_of(cell) - 1 + fountain
        for cell, shop in state.areas[seat].items()
        if SHOPS[shop.kind].group == GENERAL_GROUP
    )


def cost_of(kind: str, extra_gold: int = 0) -> dict[str, int]:
    """The build cost of ``kind`` plus ``extra_gold``, as {"gold"/resource: amount}."""
    cost = dict(SHOPS[kind].cost)
    if extra_gold:
        cost["gold"] = cost.get("gold", 0) + extra_gold
    return cost


def can_pay(state: OreganoState, seat: int, cost: dict[str, int]) -> bool:
    return all(
        (state.gold[seat] if item == "gold" else state.resources[seat][item]) >= amount
        for item, amount in cost.items()
    )


def pay(state: OreganoState, seat: int, cost: dict[str, int]) -> None:
    """Cards go back to the supply, gold to the (unlimited) bank."""
    for item, amount in cost.items():
        if item == "gold":
            state.gold[seat] -= amount
        else:
            state.resources[seat][item] -= amount
            state.supply[item] += amount


def strategy_progress(card: str, record: dict[str, Any]) -> int:
    """How far ``record`` (what the holder did since taking ``card``) goes towards its goal."""
    if card == "chain_store":
        built: list[str] = record["built"]
        return max((built.count(kind) for kind in set(built)), default=0)
    if card == "strategic_retreat":
        return int(record["sold"])
    if card == "aggressive_merger":
        return int(record["acquired"])
    if card == "step_by_step":
        return len(set(record["levelled"]))
    return len(set(record["taken"]))  # savvy_shopper


def goal_met(card: str, record: dict[str, Any]) -> bool:
    return strategy_progress(card, record) >= STRATEGY_GOAL


def bonus_condition(area: Mapping[str, Shop], bonus: str, achieved: bool) -> bool:
    """Whether a player with ``area`` meets ``bonus`` (``achieved``: it has just achieved its card)."""
    if bonus == "first_level4":
        return any(level_of(cell) == MAX_LEVEL for cell in area)
    if bonus == "first_strategy":
        return achieved
    lines = {"first_diagonal": DIAGONALS, "first_column": COLUMN_LINES, "first_row": ROW_LINES}[bonus]
    return any(all(cell in area for cell in line) for line in lines)


def casino_open(state: OreganoState, seat: int) -> bool:
    """Decision: only a casino's owner with at least 5 gold may go."""
    return has_kind(state, seat, "casino") and state.gold[seat] >= CASINO_MIN_GOLD


def find_entry(state: OreganoState, kind: str, level: int, seller: int) -> BoulevardEntry | None:
    """The boulevard entry (kind, level, seller) with the smallest shop id: equal entries are
    interchangeable."""
    matches = [e for e in state.boulevard if (e.kind, e.level, e.seller) == (kind, level, seller)]
    return min(matches, key=lambda e: e.id) if matches else None


def acquire_price(kind: str, level: int) -> int:
    return sale_price(kind, level) - ACQUIRE_DISCOUNT


def sale_income(state: OreganoState, seat: int, kind: str, level: int) -> int:
    """Table price, plus 3 while the seller has a jeweler (Decision: not for the jeweler itself)."""
    bonus = JEWELER_BONUS if kind != "jeweler" and has_kind(state, seat, "jeweler") else 0
    return sale_price(kind, level) + bonus


# --- legality ------------------------------------------------------------------


def to_move(state: OreganoState) -> frozenset[int]:
    return frozenset() if state.phase == OVER else frozenset({state.current})


def _why_start_shop(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    assert action.shop is not None and action.cell is not None
    if action.shop not in MERCHANTS:
        return f"{action.shop} is not a resource shop"
    if state.stock[action.shop] < 1:
        return f"no {action.shop} left in stock"
    if level_of(action.cell) != 1:
        return "the start shop goes in column 1"
    if action.cell in state.areas[seat]:
        return f"cell {action.cell} is taken"
    return None


def _why_keep(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    if action.card not in state.drawn[seat]:
        return f"{action.card} is not among the cards you drew"
    return None


def _why_declare(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    if action.first == action.second and not state.options.same_action_twice:
        return "the two declared actions must differ"
    return None


def _why_build(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    kind, cell = action.shop, action.cell
    assert kind is not None and cell is not None
    if state.stock[kind] < 1:
        return f"no {kind} left in stock"
    if level_of(cell) != 1:
        return "a new shop goes in column 1"
    if cell in state.areas[seat]:
        return f"cell {cell} is taken"
    if not may_take_special(state, seat, kind):
        return "the special limit forbids another special shop"
    if not can_pay(state, seat, cost_of(kind)):
        return f"you cannot pay for a {kind}"
    return None


def _why_level_up(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    source, target = action.source, action.target
    assert source is not None and target is not None
    area = state.areas[seat]
    if not has_kind(state, seat, "builder"):
        return "levelling up needs a builder in your area"
    shop = area.get(source)
    if shop is None:
        return f"no shop of yours at {source}"
    if is_special(shop.kind):
        return "special shops never level up"
    level = level_of(source)
    if level >= MAX_LEVEL:
        return "the shop is already at level 4"
    if level_of(target) != level + 1:
        return f"a level-{level} shop moves to column {level + 1}"
    if target in area:
        return f"cell {target} is taken"
    if not can_pay(state, seat, cost_of(shop.kind, LEVEL_UP_GOLD[level])):
        return "you cannot pay for the level-up"
    return None


def _why_take(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    owner, cell = action.owner, action.cell
    assert owner is not None and cell is not None
    if owner >= state.players:
        return f"there is no seat {owner}"
    shop = state.areas[owner].get(cell)
    if shop is None or shop.kind not in MERCHANTS:
        return f"no resource shop at seat {owner}'s {cell}"
    resource = SHOPS[shop.kind].produces
    assert resource is not None
    if state.supply[resource] < 1:
        return f"the {resource} supply is empty"
    if owner != seat and state.gold[seat] < OTHERS_SHOP_FEE:
        return "using another player's shop costs 2 gold"
    return None


def _why_sell(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    if action.cell not in state.areas[seat]:
        return f"no shop of yours at {action.cell}"
    return None


def _why_acquire(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    kind, level, seller, cell = action.shop, action.level, action.seller, action.cell
    assert kind is not None and level is not None and seller is not None and cell is not None
    if seller == seat:
        return "you may not acquire a shop you sold"
    if find_entry(state, kind, level, seller) is None:
        return f"no level-{level} {kind} sold by seat {seller} on the boulevard"
    if level_of(cell) != level:
        return f"a level-{level} shop goes in column {level}"
    if cell in state.areas[seat]:
        return f"cell {cell} is taken"
    if not may_take_special(state, seat, kind):
        return "the special limit forbids another special shop"
    if state.gold[seat] < acquire_price(kind, level):
        return "you cannot pay the price"
    return None


def _why_casino(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    return None


_CHECKS = {
    A.CHOOSE_START_SHOP: _why_start_shop,
    A.KEEP_STRATEGY: _why_keep,
    A.DECLARE: _why_declare,
    A.BUILD: _why_build,
    A.LEVEL_UP: _why_level_up,
    A.TAKE_RESOURCES: _why_take,
    A.SELL: _why_sell,
    A.ACQUIRE: _why_acquire,
    A.CASINO: _why_casino,
}


def why_illegal(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    """Why ``seat`` may not play ``action`` now (one line), or None if it may; an action that is
    not well formed (built by hand with a missing or unknown field) is illegal too."""
    if not isinstance(action, OreganoAction) or action.type not in A.FIELDS:
        return "not an action of this game"
    try:
        if A.action_from_json(action.to_json()) != action:
            return f"{action.type} has fields it does not take"
    except InvalidAction as error:
        return str(error)
    return _why(state, seat, action)


def _why(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    """why_illegal for a well-formed action."""
    if state.phase == OVER:
        return "the game is over"
    if seat != state.current:
        return f"it is seat {state.current}'s turn, not seat {seat}'s"
    if action.type not in PHASE_ACTIONS[state.phase]:
        return f"{action.type} is not possible now (phase {state.phase})"
    if state.phase == ACTION:
        assert state.declared is not None
        declared = state.declared[state.step]
        if action.type != A.SKIP and action.type not in OPERATIONS[declared]:
            return f"the declared action is {declared}, not {action.type}"
    return _why_this(state, seat, action)


def _why_this(state: OreganoState, seat: int, action: OreganoAction) -> str | None:
    """Why the action of the seat to move, of a type the phase (and the declaration) takes, is illegal."""
    check = _CHECKS.get(action.type)
    return check(state, seat, action) if check else None


def _candidates(state: OreganoState, seat: int) -> list[OreganoAction]:
    phase = state.phase
    col1 = cells_of_level(1)
    if phase == START_SHOP:
        return [A.choose_start_shop(kind, cell) for kind in MERCHANTS for cell in col1]
    if phase == KEEP_STRATEGY:
        return [A.keep_strategy(card) for card in STRATEGIES if card in state.drawn[seat]]
    if phase == DECLARE:
        return [A.declare(first, second) for first in ACTION_KINDS for second in ACTION_KINDS]
    if phase == CASINO:
        return [A.casino(True), A.casino(False)]
    if phase != ACTION:
        return []
    assert state.declared is not None
    declared = state.declared[state.step]
    out: list[OreganoAction] = []
    area = state.areas[seat]
    if declared == "attract":
        free = [cell for cell in col1 if cell not in area]
        if free:  # the kinds this seat may build at all (legal_actions checks each build in full)
            kinds = [kind for kind in SHOP_IDS if state.stock[kind] and may_take_special(state, seat, kind)]
            out += [
                A.build(kind, cell) for kind in kinds if can_pay(state, seat, cost_of(kind)) for cell in free
            ]
        if has_kind(state, seat, "builder"):
            for source in CELLS:
                if source in area and level_of(source) < MAX_LEVEL:
                    out += [
                        A.level_up(source, t) for t in cells_of_level(level_of(source) + 1) if t not in area
                    ]
    elif declared == "resource":
        for owner in range(state.players):
            out += [A.take_resources(owner, cell) for cell in CELLS if cell in state.areas[owner]]
    elif declared == "sell":
        out += [A.sell(cell) for cell in CELLS if cell in area]
    else:
        entries = sorted({(e.kind, e.level, e.seller) for e in state.boulevard if e.seller != seat})
        entries.sort(key=lambda e: (SHOP_IDS.index(e[0]), e[1], e[2]))
        for kind, level, seller in entries:
            out += [A.acquire(kind, level, seller, cell) for cell in cells_of_level(level)]
    out.append(A.skip())
    return out


def legal_actions(state: OreganoState, seat: int) -> list[OreganoAction]:
    """What ``seat`` may do now, in a stable order; empty if it is not to move."""
    if state.phase == OVER or seat != state.current:
        return []
    return [
        a for a in _candidates(state, seat) if _why_this(state, seat, a) is None
    ]  # each of the phase's type


def declared_now(state: OreganoState, kind: str) -> OreganoState:
    """``state`` as if its seat had declared ``kind`` and were about to perform it first (sharing its
    parts: only to be read)."""
    now = state.shallow_copy()
    now.phase, now.declared, now.step = ACTION, [kind, kind], 0
    return now


def operations(state: OreganoState, seat: int) -> Iterator[OreganoAction]:
    """The operations (skip aside) ``seat`` may perform now, in the order of ``legal_actions``, found
    one at a time: the search only asks whether there is one."""
    return (
        action
        for action in _candidates(state, seat)
        if action.type != A.SKIP and _why_this(state, seat, action) is None
    )


# --- effects -------------------------------------------------------------------


def apply(state: OreganoState, seat: int, action: OreganoAction) -> list[Event]:
    """Play ``action``, checked (``IllegalAction``, state unchanged); the events, hidden parts
    included."""
    reason = why_illegal(state, seat, action)
    if reason is not None:
        raise IllegalAction(reason)
    events: list[Event] = []
    _EFFECTS[action.type](state, seat, action, events)
    return events


def apply_unchecked(state: OreganoState, seat: int, action: OreganoAction) -> None:
    _EFFECTS[action.type](state, seat, action, [])


def _next_seat(state: OreganoState, seat: int) -> int:
    return (seat + 1) % state.players


def _shuffle_deck(state: OreganoState, events: list[Event]) -> None:
    state.rng = chance.shuffle(state.rng, state.strategy_deck)
    events.append({"type": "deck_shuffled", "size": len(state.strategy_deck)})


def _draw(state: OreganoState, seat: int, events: list[Event]) -> None:
    """The engine draws strategy_draw cards for ``seat``, who must then keep one."""
    count = state.options.strategy_draw
    state.drawn[seat] = state.strategy_deck[:count]
    del state.strategy_deck[:count]
    state.current = seat
    state.phase = KEEP_STRATEGY
    events.append({"type": "strategy_drawn", "seat": seat, "cards": state.drawn[seat][:]})


def _do_start_shop(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.shop is not None and action.cell is not None
    shop = _new_shop(state, action.shop)
    state.areas[seat][action.cell] = shop
    events.append(
        {"type": "start_shop", "seat": seat, "shop": action.shop, "cell": action.cell, "id": shop.id}
    )
    nxt = _next_seat(state, seat)
    if nxt == state.first_player:
        _draw(state, nxt, events)
    else:
        state.current = nxt


def _do_keep(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.card is not None
    returned = state.drawn[seat][:]
    returned.remove(action.card)
    state.strategies[seat] = action.card
    state.records[seat] = empty_record()
    state.drawn[seat] = []
    state.strategy_deck += returned
    events.append({"type": "strategy_kept", "seat": seat, "card": action.card, "returned": returned})
    _shuffle_deck(state, events)
    if state.round == 0:  # set-up: the next seat draws, or round 1 starts
        nxt = _next_seat(state, seat)
        if nxt == state.first_player:
            state.round = 1
            _start_turn(state, nxt, events)
        else:
            _draw(state, nxt, events)
    else:
        _continue_turn(state, seat, events)


def _start_turn(state: OreganoState, seat: int, events: list[Event]) -> None:
    state.current = seat
    state.phase = DECLARE
    state.declared = None
    state.step = 0
    events.append({"type": "turn", "seat": seat, "round": state.round})
    income = income_of(state, seat)
    state.gold[seat] += income
    events.append({"type": "income", "seat": seat, "gold": income})


def _do_declare(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.first is not None and action.second is not None
    state.declared = [action.first, action.second]
    state.step = 0
    state.phase = ACTION
    events.append({"type": "declared", "seat": seat, "first": action.first, "second": action.second})


def _new_shop(state: OreganoState, kind: str) -> Shop:
    state.stock[kind] -= 1
    shop = Shop(state.next_shop_id, kind)
    state.next_shop_id += 1
    return shop


def _do_build(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.shop is not None and action.cell is not None
    cost = cost_of(action.shop)
    pay(state, seat, cost)
    shop = _new_shop(state, action.shop)
    state.areas[seat][action.cell] = shop
    state.records[seat]["built"].append(action.shop)
    events.append(
        {
            "type": "built",
            "seat": seat,
            "shop": action.shop,
            "cell": action.cell,
            "id": shop.id,
            "paid": cost,
        }
    )
    _after_operation(state, seat, events)


def _do_level_up(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.source is not None and action.target is not None
    area = state.areas[seat]
    shop = area.pop(action.source)
    cost = cost_of(shop.kind, LEVEL_UP_GOLD[level_of(action.source)])
    pay(state, seat, cost)
    area[action.target] = shop
    state.records[seat]["levelled"].append(shop.id)
    events.append(
        {
            "type": "levelled_up",
            "seat": seat,
            "shop": shop.kind,
            "id": shop.id,
            "from": action.source,
            "to": action.target,
            "paid": cost,
        }
    )
    _after_operation(state, seat, events)


def _do_take(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.owner is not None and action.cell is not None
    owner = action.owner
    shop = state.areas[owner][action.cell]
    resource = SHOPS[shop.kind].produces
    assert resource is not None
    fee = 0
    if owner != seat:
        fee = OTHERS_SHOP_FEE
        state.gold[seat] -= fee
        state.gold[owner] += fee
        state.records[seat]["taken"].append(resource)
    count = min(level_of(action.cell), state.supply[resource])
    state.supply[resource] -= count
    state.resources[seat][resource] += count
    events.append(
        {
            "type": "took_resources",
            "seat": seat,
            "owner": owner,
            "cell": action.cell,
            "resource": resource,
            "count": count,
            "fee": fee,
        }
    )
    _after_operation(state, seat, events)


def _do_sell(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert action.cell is not None
    level = level_of(action.cell)
    kind = state.areas[seat][action.cell].kind
    gold = sale_income(state, seat, kind, level)
    shop = state.areas[seat].pop(action.cell)
    state.boulevard.append(BoulevardEntry(shop.id, kind, level, seat))
    state.gold[seat] += gold
    state.records[seat]["sold"] += 1
    events.append(
        {
            "type": "sold",
            "seat": seat,
            "shop": kind,
            "id": shop.id,
            "cell": action.cell,
            "level": level,
            "gold": gold,
        }
    )
    _after_operation(state, seat, events)


def _do_acquire(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    kind, level, seller, cell = action.shop, action.level, action.seller, action.cell
    assert kind is not None and level is not None and seller is not None and cell is not None
    entry = find_entry(state, kind, level, seller)
    assert entry is not None
    price = acquire_price(kind, level)
    state.boulevard.remove(entry)
    state.gold[seat] -= price
    state.areas[seat][cell] = Shop(entry.id, kind)
    state.records[seat]["acquired"] += 1
    events.append(
        {
            "type": "acquired",
            "seat": seat,
            "shop": kind,
            "id": entry.id,
            "level": level,
            "seller": seller,
            "cell": cell,
            "gold": price,
        }
    )
    _after_operation(state, seat, events)


def _do_skip(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    assert state.declared is not None
    events.append({"type": "skipped", "seat": seat, "kind": state.declared[state.step]})
    state.step += 1
    _continue_turn(state, seat, events)


def _after_operation(state: OreganoState, seat: int, events: list[Event]) -> None:
    """Goals, then bonus cards, are checked after every operation."""
    state.step += 1
    card = state.strategies[seat]
    achieved = card is not None and goal_met(card, state.records[seat])
    if achieved:
        assert card is not None
        state.gold[seat] += STRATEGY_REWARD
        state.strategies[seat] = None
        events.append({"type": "strategy_achieved", "seat": seat, "card": card, "gold": STRATEGY_REWARD})
    for bonus in BONUSES:
        if bonus in state.bonus_available and bonus_condition(state.areas[seat], bonus, achieved):
            state.bonus_available.remove(bonus)
            state.bonuses[seat].append(bonus)
            events.append({"type": "bonus_taken", "seat": seat, "bonus": bonus})
    if achieved:
        assert card is not None
        state.strategy_deck.append(card)
        _shuffle_deck(state, events)
        _draw(state, seat, events)
        return
    _continue_turn(state, seat, events)


def _continue_turn(state: OreganoState, seat: int, events: list[Event]) -> None:
    if state.step < ACTIONS_PER_TURN:
        state.phase = ACTION
    elif casino_open(state, seat):
        state.phase = CASINO
    else:
        _end_turn(state, seat, events)


def _do_casino(state: OreganoState, seat: int, action: OreganoAction, events: list[Event]) -> None:
    events.append({"type": "casino", "seat": seat, "go": bool(action.go)})
    if action.go:
        state.rng, roll = chance.below(state.rng, DIE_FACES)
        roll += 1
        events.append({"type": "die", "seat": seat, "roll": roll})
        if roll < CASINO_WIN_FROM:
            state.gold[seat] -= CASINO_LOSS
            events.append({"type": "casino_lost", "seat": seat, "gold": CASINO_LOSS})
        else:
            took = [0] * state.players
            for other in range(state.players):
                if other != seat:
                    took[other] = min(CASINO_TAKE, state.gold[other])
                    state.gold[other] -= took[other]
            state.gold[seat] += sum(took)
            events.append({"type": "casino_won", "seat": seat, "took": took})
    _end_turn(state, seat, events)


def _end_turn(state: OreganoState, seat: int, events: list[Event]) -> None:
    """The end check (RULES.md "End of the game"), then the next turn."""
    options = state.options
    if (
        not state.end_triggered
        and state.round >= options.stock_end_from_round
        and sum(count == 0 for count in state.stock.values()) >= 2
    ):
        state.end_triggered = True
        state.status = FINAL_ROUND
        events.append({"type": "end_triggered", "seat": seat, "round": state.round})
        if options.end_timing == "turn":
            _finish(state, events)
            return
    nxt = _next_seat(state, seat)
    if nxt == state.first_player:
        if state.end_triggered or state.round >= options.round_limit:
            _finish(state, events)
            return
        state.round += 1
    _start_turn(state, nxt, events)


def _finish(state: OreganoState, events: list[Event]) -> None:
    state.phase = OVER
    state.status = FINISHED
    state.declared = None
    state.step = 0
    state.result = outcome(state)
    events.append({"type": "game_over", "result": state.result.to_json()})


_EFFECTS = {
    A.CHOOSE_START_SHOP: _do_start_shop,
    A.KEEP_STRATEGY: _do_keep,
    A.DECLARE: _do_declare,
    A.BUILD: _do_build,
    A.LEVEL_UP: _do_level_up,
    A.TAKE_RESOURCES: _do_take,
    A.SELL: _do_sell,
    A.ACQUIRE: _do_acquire,
    A.SKIP: _do_skip,
    A.CASINO: _do_casino,
}

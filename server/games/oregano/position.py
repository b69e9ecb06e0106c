"""Positions as JSON (docs/positions.md's conventions, format ``oregano-position/1``).

A position holds everything, hidden parts included, with RULES.md's names::

    {"format": "oregano-position/1",
     "options": {"players": 2, "special_limit": "one_total", ...every option...},
     "status": "playing",            # playing | final_round (end triggered) | finished
     "phase": "action",              # start_shop | keep_strategy | declare | action | casino | over
     "first_player": 0, "current_player": 0,
     "round": 7,                     # 0 during set-up
     "gold": [8, 6],
     "resources": [{"wood": 1, "stone": 1, "metal": 0}, ...],
     "areas": [{"1a": {"shop": "lumber_merchant", "id": 0}, ...}, ...],   # occupied cells only
     "boulevard": [{"shop": "restaurant", "level": 1, "seller": 0, "id": 8}],
     "stock": {"lumber_merchant": 2, ...every kind...},
     "supply": {"wood": 17, "stone": 15, "metal": 18},
     "strategy_deck": ["chain_store", ...],      # the first element is drawn next
     "strategies": ["step_by_step", "aggressive_merger"],   # null while choosing
     "drawn": [[], []],              # the cards the seat keeping a card chooses from
     "records": [{"built": [], "sold": 0, "acquired": 0, "levelled": [3], "taken": []}, ...],
     "bonus_available": ["first_level4", ...], "bonuses": [[], []],
     "declared": ["resource", "attract"],        # null outside a turn's actions
     "step": 1,                      # declared actions done
     "next_shop_id": 9, "end_triggered": false, "rng": 12345,
     "result": null}                 # {"scores", "ranks", "tie_breaks"} once finished

- Shop ids: each placed shop token has an identity that it keeps when moved,
  sold or acquired (``step_by_step`` counts different shops); ``next_shop_id``
  is the id of the next shop taken from the stock.
- ``records``: what each seat did since it took its strategy card (all public
  facts); a card's progress is computed from it. ``built``: kinds built by
  attract; ``sold``/``acquired``: counts; ``levelled``: shop ids levelled up;
  ``taken``: resources taken from other players' shops.
- ``rng``: SplitMix64 state (server/games/rng.py); shuffles and die rolls are
  drawn from it and the next state written back, so ``apply`` is deterministic.

Loading validates the structure and raises ``InvalidPosition`` naming the first
bad field. As in docs/positions.md, a position need not account for every
component (a fixture may hold fewer cards), but it must be structurally valid.
"""

from __future__ import annotations

from typing import Any

import server.games.rng as chance

from .components import (
    ACTION_KINDS,
    BONUSES,
    CELLS,
    RESOURCES,
    SHOP_IDS,
    STRATEGIES,
    is_special,
)
from .errors import InvalidOptions, InvalidPosition
from .rules import casino_open, goal_met
from .scoring import level_of, outcome
from .state import (
    ACTION,
    CASINO,
    DECLARE,
    FINAL_ROUND,
    FINISHED,
    KEEP_STRATEGY,
    OVER,
    PHASES,
    PLAYING,
    START_SHOP,
    STATUSES,
    BoulevardEntry,
    Options,
    OreganoState,
    Shop,
)

POSITION_FORMAT = "oregano-position/1"


def area_json(area: dict[str, Shop]) -> dict[str, dict[str, Any]]:
    return {cell: {"shop": area[cell].kind, "id": area[cell].id} for cell in CELLS if cell in area}


def boulevard_json(state: OreganoState) -> list[dict[str, Any]]:
    return [{"shop": e.kind, "level": e.level, "seller": e.seller, "id": e.id} for e in state.boulevard]


def record_json(record: dict[str, Any]) -> dict[str, Any]:
    return {k: (v[:] if isinstance(v, list) else v) for k, v in record.items()}


def public_json(state: OreganoState) -> dict[str, Any]:
    """What every seat sees alike, in a position and in every view."""
    return {
        "options": state.options.to_json(),
        "status": state.status,
        "phase": state.phase,
        "first_player": state.first_player,
        "current_player": state.current,
        "round": state.round,
        "gold": state.gold[:],
        "resources": [dict(r) for r in state.resources],
        "areas": [area_json(area) for area in state.areas],
        "boulevard": boulevard_json(state),
        "stock": dict(state.stock),
        "supply": dict(state.supply),
    }


def to_json(state: OreganoState) -> dict[str, Any]:
    return {
        "format": POSITION_FORMAT,
        **public_json(state),
        "strategy_deck": state.strategy_deck[:],
        "strategies": state.strategies[:],
        "drawn": [d[:] for d in state.drawn],
        "records": [record_json(r) for r in state.records],
        "bonus_available": state.bonus_available[:],
        "bonuses": [b[:] for b in state.bonuses],
        "declared": state.declared[:] if state.declared is not None else None,
        "step": state.step,
        "next_shop_id": state.next_shop_id,
        "end_triggered": state.end_triggered,
        "rng": state.rng,
        "result": state.result.to_json() if state.result is not None else None,
    }


# --- loading -------------------------------------------------------------------


def _fail(message: str) -> InvalidPosition:
    return InvalidPosition(message)


def _int(value: Any, name: str, low: int = 0, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(f"{name} must be an integer")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise _fail(f"{name} must be {bound}")
    return value


def _list(value: Any, name: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(f"{name} must be a list")
    if length is not None and len(value) != length:
        raise _fail(f"{name} must have {length} entries")
    return value


def _dict(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(f"{name} must be an object")
    return value


def _name(value: Any, name: str, known: tuple[str, ...]) -> str:
    if value not in known:
        raise _fail(f"{name}: unknown {value!r}")
    return str(value)


def _counts(value: Any, name: str, keys: tuple[str, ...]) -> dict[str, int]:
    data = _dict(value, name)
    if set(data) != set(keys):
        raise _fail(f"{name} must have exactly the keys {', '.join(keys)}")
    return {key: _int(data[key], f"{name}.{key}") for key in keys}


KEYS = (
    "format",
    "options",
    "status",
    "phase",
    "first_player",
    "current_player",
    "round",
    "gold",
    "resources",
    "areas",
    "boulevard",
    "stock",
    "supply",
    "strategy_deck",
    "strategies",
    "drawn",
    "records",
    "bonus_available",
    "bonuses",
    "declared",
    "step",
    "next_shop_id",
    "end_triggered",
    "rng",
    "result",
)


def from_json(data: Any) -> OreganoState:
    """A position from JSON, validated (``InvalidPosition`` with the first problem)."""
    data = _dict(data, "position")
    for key in KEYS:
        if key not in data:
            raise _fail(f"{key} is missing")
    extra = sorted(set(data) - set(KEYS))
    if extra:
        raise _fail(f"unknown field {extra[0]!r}")
    if data["format"] != POSITION_FORMAT:
        raise _fail(f"format must be {POSITION_FORMAT!r}")
    try:
        options = Options.from_json(data["options"])
    except InvalidOptions as error:
        raise _fail(str(error)) from None
    n = options.players
    state = OreganoState.empty(options)
    state.status = _name(data["status"], "status", STATUSES)
    state.phase = _name(data["phase"], "phase", PHASES)
    state.first_player = _int(data["first_player"], "first_player", 0, n - 1)
    state.current = _int(data["current_player"], "current_player", 0, n - 1)
    state.round = _int(data["round"], "round", 0, options.round_limit)
    state.gold = [_int(g, f"gold[{i}]") for i, g in enumerate(_list(data["gold"], "gold", n))]
    state.resources = [
        _counts(r, f"resources[{i}]", RESOURCES)
        for i, r in enumerate(_list(data["resources"], "resources", n))
    ]
    state.stock = _counts(data["stock"], "stock", SHOP_IDS)
    state.supply = _counts(data["supply"], "supply", RESOURCES)
    state.next_shop_id = _int(data["next_shop_id"], "next_shop_id")
    seen_ids: set[int] = set()

    def shop_id(value: Any, name: str) -> int:
        ident = _int(value, name, 0, state.next_shop_id - 1)
        if ident in seen_ids:
            raise _fail(f"{name}: shop id {ident} is used twice")
        seen_ids.add(ident)
        return ident

    for seat, area in enumerate(_list(data["areas"], "areas", n)):
        for cell, shop in _dict(area, f"areas[{seat}]").items():
            where = f"areas[{seat}].{cell}"
            _name(cell, f"areas[{seat}]", CELLS)
            shop = _dict(shop, where)
            if set(shop) != {"shop", "id"}:
                raise _fail(f"{where} must have exactly shop and id")
            kind = _name(shop["shop"], f"{where}.shop", SHOP_IDS)
            if is_special(kind) and level_of(cell) != 1:
                raise _fail(f"{where}: a special shop stands in column 1")
            state.areas[seat][cell] = Shop(shop_id(shop["id"], f"{where}.id"), kind)
    for i, entry in enumerate(_list(data["boulevard"], "boulevard")):
        where = f"boulevard[{i}]"
        entry = _dict(entry, where)
        if set(entry) != {"shop", "level", "seller", "id"}:
            raise _fail(f"{where} must have exactly shop, level, seller and id")
        kind = _name(entry["shop"], f"{where}.shop", SHOP_IDS)
        level = _int(entry["level"], f"{where}.level", 1, 1 if is_special(kind) else 4)
        seller = _int(entry["seller"], f"{where}.seller", 0, n - 1)
        state.boulevard.append(BoulevardEntry(shop_id(entry["id"], f"{where}.id"), kind, level, seller))
    state.strategy_deck = [
        _name(c, f"strategy_deck[{i}]", STRATEGIES)
        for i, c in enumerate(_list(data["strategy_deck"], "strategy_deck"))
    ]
    state.strategies = [
        None if c is None else _name(c, f"strategies[{i}]", STRATEGIES)
        for i, c in enumerate(_list(data["strategies"], "strategies", n))
    ]
    state.drawn = [
        [_name(c, f"drawn[{i}]", STRATEGIES) for c in _list(d, f"drawn[{i}]")]
        for i, d in enumerate(_list(data["drawn"], "drawn", n))
    ]
    state.records = [_record(r, f"records[{i}]") for i, r in enumerate(_list(data["records"], "records", n))]
    state.bonus_available = [
        _name(b, f"bonus_available[{i}]", BONUSES)
        for i, b in enumerate(_list(data["bonus_available"], "bonus_available"))
    ]
    state.bonuses = [
        [_name(b, f"bonuses[{i}]", BONUSES) for b in _list(held, f"bonuses[{i}]")]
        for i, held in enumerate(_list(data["bonuses"], "bonuses", n))
    ]
    every_bonus = state.bonus_available + [b for held in state.bonuses for b in held]
    if len(every_bonus) != len(set(every_bonus)):
        raise _fail("bonuses: a bonus card is in two places")
    if data["declared"] is None:
        state.declared = None
    else:
        state.declared = [
            _name(k, f"declared[{i}]", ACTION_KINDS)
            for i, k in enumerate(_list(data["declared"], "declared", 2))
        ]
    state.step = _int(data["step"], "step", 0, 2)
    if not isinstance(data["end_triggered"], bool):
        raise _fail("end_triggered must be true or false")
    state.end_triggered = data["end_triggered"]
    state.rng = _int(data["rng"], "rng", 0, chance.MASK64)
    _check_phase(state)
    result = data["result"]
    if state.status == FINISHED:
        state.result = outcome(state)
        if result != state.result.to_json():
            raise _fail("result does not match the final scores")
    elif result is not None:
        raise _fail("result must be null before the game is over")
    return state


def _record(value: Any, name: str) -> dict[str, Any]:
    data = _dict(value, name)
    if set(data) != {"built", "sold", "acquired", "levelled", "taken"}:
        raise _fail(f"{name} must have exactly built, sold, acquired, levelled and taken")
    record: dict[str, Any] = {
        "built": [_name(k, f"{name}.built", SHOP_IDS) for k in _list(data["built"], f"{name}.built")],
        "sold": _int(data["sold"], f"{name}.sold"),
        "acquired": _int(data["acquired"], f"{name}.acquired"),
        "levelled": [_int(i, f"{name}.levelled") for i in _list(data["levelled"], f"{name}.levelled")],
        "taken": [_name(r, f"{name}.taken", RESOURCES) for r in _list(data["taken"], f"{name}.taken")],
    }
    return record


def _check_phase(state: OreganoState) -> None:
    """The fields that depend on the phase agree with it."""
    phase, seat = state.phase, state.current
    if (phase == OVER) != (state.status == FINISHED):
        raise _fail("status must be 'finished' exactly when phase is 'over'")
    if state.status == FINAL_ROUND and not state.end_triggered:
        raise _fail("status 'final_round' needs end_triggered")
    if state.status == PLAYING and state.end_triggered:
        raise _fail("end_triggered needs status 'final_round' or 'finished'")
    setup = phase == START_SHOP or (phase == KEEP_STRATEGY and state.round == 0)
    if setup != (state.round == 0):
        raise _fail("round must be 0 exactly during set-up")
    in_turn = phase in (ACTION, CASINO) or (phase == KEEP_STRATEGY and state.round > 0)
    if in_turn != (state.declared is not None):
        raise _fail("declared must be set exactly between a declaration and the end of its turn")
    if phase == ACTION and state.step >= 2:
        raise _fail("step must be 0 or 1 in phase action")
    if phase in (START_SHOP, DECLARE) and state.step != 0:
        raise _fail(f"step must be 0 in phase {phase}")
    if phase == CASINO and (state.step != 2 or not casino_open(state, seat)):
        raise _fail("phase casino needs step 2 and a casino owner with 5 gold")
    for other, drawn in enumerate(state.drawn):
        if drawn and (phase != KEEP_STRATEGY or other != seat):
            raise _fail(f"drawn[{other}] must be empty: only the seat keeping a card has drawn")
    if phase == KEEP_STRATEGY:
        if not state.drawn[seat]:
            raise _fail(f"drawn[{seat}] must hold the cards to choose from")
        if state.strategies[seat] is not None:
            raise _fail(f"strategies[{seat}] must be null while choosing a card")
    for other, card in enumerate(state.strategies):
        if card is None and phase not in (START_SHOP, KEEP_STRATEGY) and phase != OVER:
            raise _fail(f"strategies[{other}] must be set: every player holds a card")
        if card is not None and goal_met(card, state.records[other]):
            raise _fail(f"strategies[{other}]: its goal is already met")

"""Positions as JSON (POSITION.md): writing, and loading with validation.

Loading names the first bad field in its error. A position need not account
for every component, but it must be structurally valid.
"""

from __future__ import annotations

from typing import Any

from server.games.rng import MASK64

from .components import DISPLAY_PER_LEVEL, GOODS, HAND_SIZE, OFFER_SIZE, RESTAURANTS, WOODEN_STANDS_PER_PLAYER
from .errors import InvalidPosition
from .geometry import (
    CUSTOMER_GOODS,
    CUSTOMER_LEVEL,
    ENTRANCE_INDEX,
    ENTRANCE_NAMES,
    GOOD_INDEX,
    N_LEVELS,
    N_SQUARES,
    RESTAURANT_INDEX,
    SQUARE_INDEX,
    SQUARE_NAMES,
    customer_kind,
)
from .options import Options
from .scoring import final_result
from .state import (
    FINAL_ROUND,
    FINISHED,
    PHASE_NAMES,
    STATUS_NAMES,
    TAKE_OFFER_PHASE,
    GameState,
    Result,
)

FORMAT = "mercado-position/1"
_LEVEL_KEYS = tuple(str(level) for level in range(1, N_LEVELS + 1))
_REQUIRED = (
    "options",
    "status",
    "current_player",
    "phase",
    "coins",
    "wooden_stands",
    "stand_hands",
    "restaurant_hands",
    "market",
    "entrances",
    "offer",
    "bag",
    "display",
    "decks",
)
_OPTIONAL = (
    "format",
    "redrawn_this_turn",
    "refreshed_this_turn",
    "consecutive_coins",
    "final_turns_left",
    "rng",
    "result",
)
# Every field a position may have.
FIELDS: frozenset[str] = frozenset(_REQUIRED + _OPTIONAL)


# --- writing -----------------------------------------------------------------


def customer_json(kind: int) -> dict[str, Any]:
    return {"level": CUSTOMER_LEVEL[kind], "goods": [GOODS[g] for g in CUSTOMER_GOODS[kind]]}


def market_json(state: GameState, hide_face_down: bool = False) -> dict[str, dict[str, Any]]:
    """Occupied squares only; face-down identities replaced by ``true`` when hidden."""
    market: dict[str, dict[str, Any]] = {}
    for q in range(N_SQUARES):
        if state.stand_good[q] >= 0:
            market[SQUARE_NAMES[q]] = {"stand": GOODS[state.stand_good[q]], "owner": state.stand_owner[q]}
        elif state.restaurant[q] >= 0:
            market[SQUARE_NAMES[q]] = {"restaurant": RESTAURANTS[state.restaurant[q]]}
        elif state.face_down[q] >= 0:
            market[SQUARE_NAMES[q]] = {
                "face_down": True if hide_face_down else RESTAURANTS[state.face_down[q]]
            }
    return market


def entrances_json(state: GameState) -> dict[str, dict[str, Any]]:
    return {ENTRANCE_NAMES[e]: customer_json(k) for e, k in enumerate(state.entrances) if k >= 0}


def tiles_by_level(piles: list[list[int]]) -> dict[str, list[list[str]]]:
    return {
        key: [customer_json(k)["goods"] for k in pile] for key, pile in zip(_LEVEL_KEYS, piles, strict=True)
    }


def to_json(state: GameState) -> dict[str, Any]:
    """The complete position, hidden parts included."""
    position: dict[str, Any] = {
        "format": FORMAT,
        "options": state.options.to_json(),
        "status": STATUS_NAMES[state.status],
        "current_player": state.current,
        "phase": PHASE_NAMES[state.phase],
        "redrawn_this_turn": state.redrawn,
        "coins": list(state.coins),
        "wooden_stands": list(state.wooden_stands),
        "stand_hands": [[GOODS[g] for g in hand] for hand in state.hands],
        "restaurant_hands": [[RESTAURANTS[k] for k in hand] for hand in state.restaurant_hands],
        "market": market_json(state),
        "entrances": entrances_json(state),
        "offer": [GOODS[g] for g in state.offer],
        "bag": [GOODS[g] for g in state.bag],
        "display": tiles_by_level(state.display),
        "decks": tiles_by_level(state.decks),
        "consecutive_coins": state.consecutive_coins,
        "final_turns_left": state.final_turns_left,
        "rng": state.rng,
        "result": state.result.to_json() if state.result else None,
    }
    if state.refreshed:  # written only when true: positions without it mean false
        position["refreshed_this_turn"] = True
    return position


# --- loading -----------------------------------------------------------------


def _int(value: Any, field: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPosition(f"{field} must be an integer")
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise InvalidPosition(f"{field} must be {bounds}, not {value}")
    return int(value)


def _list(value: Any, field: str, length: int | None = None, most: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidPosition(f"{field} must be a list")
    if length is not None and len(value) != length:
        raise InvalidPosition(f"{field} must have {length} entries, one per player")
    if most is not None and len(value) > most:
        raise InvalidPosition(f"{field} holds {len(value)} tiles, more than {most}")
    return value


def _dict(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidPosition(f"{field} must be an object")
    return value


def _name(value: Any, table: dict[str, int], field: str, what: str) -> int:
    if not isinstance(value, str) or value not in table:
        raise InvalidPosition(f"{field}: unknown {what} {value!r}")
    return table[value]


def _goods(value: Any, field: str, most: int | None = None) -> list[int]:
    return [
        _name(g, GOOD_INDEX, f"{field}[{i}]", "good") for i, g in enumerate(_list(value, field, most=most))
    ]


def _customer(goods: Any, level: int, field: str) -> int:
    pair = _goods(goods, field)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise InvalidPosition(f"{field} must be two different goods")
    return customer_kind(level, (pair[0], pair[1]))


def _piles(value: Any, field: str, most: int | None) -> list[list[int]]:
    data = _dict(value, field)
    unknown = set(data) - set(_LEVEL_KEYS)
    if unknown:
        raise InvalidPosition(f"{field}: unknown level {sorted(unknown)[0]!r}")
    piles: list[list[int]] = []
    for level, key in enumerate(_LEVEL_KEYS, start=1):
        pile = _list(data.get(key, []), f"{field}.{key}", most=most)
        piles.append([_customer(goods, level, f"{field}.{key}[{i}]") for i, goods in enumerate(pile)])
    return piles


def options_from_json(value: Any) -> Options:
    """Match options from JSON: the known ones only, each checked."""
    data = _dict(value, "options")
    unknown = set(data) - {"players", "money", "face_down_counts_as_available"}
    if unknown:
        raise InvalidPosition(f"options: unknown option {sorted(unknown)[0]!r}")
    return Options(**data)


def _load_market(state: GameState, value: Any) -> None:
    for name, content in _dict(value, "market").items():
        field = f"market.{name}"
        q = _name(name, SQUARE_INDEX, "market", "square")
        content = _dict(content, field)
        if set(content) == {"stand", "owner"}:
            good = _name(content["stand"], GOOD_INDEX, f"{field}.stand", "good")
            state.place_stand(q, good, _int(content["owner"], f"{field}.owner", 0, state.players - 1))
        elif set(content) == {"restaurant"}:
            state.restaurant[q] = _name(
                content["restaurant"], RESTAURANT_INDEX, f"{field}.restaurant", "restaurant"
            )
        elif set(content) == {"face_down"}:
            state.face_down[q] = _name(
                content["face_down"], RESTAURANT_INDEX, f"{field}.face_down", "restaurant"
            )
        else:
            raise InvalidPosition(
                f"{field} must hold exactly one stand (with owner), restaurant or face_down"
            )


def _load_entrances(state: GameState, value: Any) -> None:
    for name, content in _dict(value, "entrances").items():
        field = f"entrances.{name}"
        e = _name(name, ENTRANCE_INDEX, "entrances", "entrance")
        content = _dict(content, field)
        if set(content) != {"level", "goods"}:
            raise InvalidPosition(f"{field} must have exactly 'level' and 'goods'")
        level = _int(content["level"], f"{field}.level", 1, N_LEVELS)
        state.entrances[e] = _customer(content["goods"], level, f"{field}.goods")


def _load_result(value: Any, players: int) -> Result:
    data = _dict(value, "result")
    if set(data) != {"scores", "stands_on_market", "ranks"}:
        raise InvalidPosition("result must have exactly 'scores', 'stands_on_market' and 'ranks'")
    scores = tuple(
        _int(s, f"result.scores[{i}]", -(10**9))
        for i, s in enumerate(_list(data["scores"], "result.scores", players))
    )
    stands = tuple(
        _int(s, f"result.stands_on_market[{i}]", 0, WOODEN_STANDS_PER_PLAYER)
        for i, s in enumerate(_list(data["stands_on_market"], "result.stands_on_market", players))
    )
    ranks = tuple(
        _int(r, f"result.ranks[{i}]", 1, players)
        for i, r in enumerate(_list(data["ranks"], "result.ranks", players))
    )
    return Result(scores, stands, ranks)


def from_json(data: Any) -> GameState:
    """Load and validate a position; raise InvalidPosition naming the bad field."""
    data = _dict(data, "position")
    unknown = set(data) - FIELDS
    if unknown:
        raise InvalidPosition(f"unknown field {sorted(unknown)[0]!r}")
    for key in _REQUIRED:
        if key not in data:
            raise InvalidPosition(f"missing field {key!r}")
    if data.get("format", FORMAT) != FORMAT:
        raise InvalidPosition(f"format must be {FORMAT!r}")
    state = GameState(options_from_json(data["options"]))
    n = state.players

    state.status = _name(data["status"], {s: i for i, s in enumerate(STATUS_NAMES)}, "status", "status")
    state.current = _int(data["current_player"], "current_player", 0, n - 1)
    state.phase = _name(data["phase"], {s: i for i, s in enumerate(PHASE_NAMES)}, "phase", "phase")
    redrawn = data.get("redrawn_this_turn", False)
    if not isinstance(redrawn, bool):
        raise InvalidPosition("redrawn_this_turn must be true or false")
    state.redrawn = redrawn
    refreshed = data.get("refreshed_this_turn", False)
    if not isinstance(refreshed, bool):
        raise InvalidPosition("refreshed_this_turn must be true or false")
    state.refreshed = refreshed
    state.coins = [_int(c, f"coins[{p}]") for p, c in enumerate(_list(data["coins"], "coins", n))]
    state.wooden_stands = [
        _int(w, f"wooden_stands[{p}]", 0, WOODEN_STANDS_PER_PLAYER)
        for p, w in enumerate(_list(data["wooden_stands"], "wooden_stands", n))
    ]
    state.hands = [
        _goods(hand, f"stand_hands[{p}]", most=HAND_SIZE)
        for p, hand in enumerate(_list(data["stand_hands"], "stand_hands", n))
    ]
    state.restaurant_hands = [
        [
            _name(k, RESTAURANT_INDEX, f"restaurant_hands[{p}][{i}]", "restaurant")
            for i, k in enumerate(_list(hand, f"restaurant_hands[{p}]"))
        ]
        for p, hand in enumerate(_list(data["restaurant_hands"], "restaurant_hands", n))
    ]
    _load_market(state, data["market"])
    _load_entrances(state, data["entrances"])
    state.offer = _goods(data["offer"], "offer", most=OFFER_SIZE)
    state.bag = _goods(data["bag"], "bag")
    state.display = _piles(data["display"], "display", most=DISPLAY_PER_LEVEL)
    state.decks = _piles(data["decks"], "decks", most=None)
    state.consecutive_coins = _int(data.get("consecutive_coins", 0), "consecutive_coins")
    state.rng = _int(data.get("rng", 0), "rng", 0, MASK64)
    _load_progress(state, data)
    return state


def _load_progress(state: GameState, data: dict[str, Any]) -> None:
    """The fields that depend on status: phase, final_turns_left and result."""
    final_turns = data.get("final_turns_left")
    if state.status == FINAL_ROUND:
        state.final_turns_left = _int(final_turns, "final_turns_left", 1, state.players - 1)
    elif final_turns is not None:
        raise InvalidPosition("final_turns_left must be null unless status is final_round")
    if state.phase == TAKE_OFFER_PHASE and not state.offer:
        raise InvalidPosition("phase take_offer needs a non-empty offer")
    if state.refreshed and state.phase != TAKE_OFFER_PHASE:
        raise InvalidPosition("refreshed_this_turn can be true only in phase take_offer")
    result = data.get("result")
    if state.status == FINISHED:
        if state.phase == TAKE_OFFER_PHASE or state.redrawn:
            raise InvalidPosition("a finished position has phase main and redrawn_this_turn false")
        state.result = final_result(state) if result is None else _load_result(result, state.players)
    elif result is not None:
        raise InvalidPosition("result must be null unless status is finished")

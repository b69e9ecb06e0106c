"""The games this service hosts, by name: the one place that knows them all."""

from __future__ import annotations

from typing import Any

from .interface import GameRules
from .leilao import RULES as LEILAO
from .mercado import RULES as MERCADO
from .oregano import RULES as OREGANO

AnyGame = GameRules[Any, Any]

GAMES: dict[str, AnyGame] = {rules.name: rules for rules in (MERCADO, OREGANO, LEILAO)}
POSITION_FORMAT = "{}-position/1"  # every game's positions say which game they are of


def game_named(name: str) -> AnyGame:
    """The game called ``name``; ValueError naming the games there are if there is none."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (one of {', '.join(GAMES)})") from None


def game_of_position(data: Any) -> AnyGame:
    """The game a JSON position is of, by its ``format``."""
    fmt = data.get("format") if isinstance(data, dict) else None
    for rules in GAMES.values():
        if fmt == POSITION_FORMAT.format(rules.name):
            return rules
    raise ValueError(f"format must be one of {', '.join(POSITION_FORMAT.format(name) for name in GAMES)}")

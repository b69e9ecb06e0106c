"""Mercado de Lisboa for OpenSpiel (``pip install mercado[openspiel]``): importing this package
registers the game, then ``pyspiel.load_game("mercado", {"players": 3})``. See docs/openspiel.md."""

import pyspiel

from .game import GAME_TYPE, MercadoGame, MercadoState

pyspiel.register_game(GAME_TYPE, MercadoGame)

__all__ = ["MercadoGame", "MercadoState"]

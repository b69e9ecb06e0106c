"""The project's games for OpenSpiel (``pip install mercado[openspiel]``): importing this package
registers Mercado de Lisboa, Oregano and Leilão, then ``pyspiel.load_game("leilao", {"players": 3})``.
See docs/openspiel.md."""

import pyspiel

from . import leilao, oregano
from .game import GAME_TYPE, MercadoGame, MercadoState

pyspiel.register_game(GAME_TYPE, MercadoGame)
pyspiel.register_game(oregano.GAME_TYPE, oregano.OreganoGame)
pyspiel.register_game(leilao.GAME_TYPE, leilao.LeilaoGame)

__all__ = ["MercadoGame", "MercadoState"]

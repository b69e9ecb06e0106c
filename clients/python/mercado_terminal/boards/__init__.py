"""Each game's screen in the terminal: ``board_for(state)`` is the board of the match's game.

Mercado de Lisboa has its own typed view (``mercado.py`` wraps its board, menu and narration); Oregano
and Leilão are drawn from the rules' JSON view (``base.py``, ``oregano.py``, ``leilao.py``) and chosen
from with a menu of their legal actions (``menu.py``).
"""

from __future__ import annotations

from mercado.v1 import match_pb2 as api
from mercado_client.games import game_name

from .base import GameBoard, movers
from .leilao import LeilaoBoard
from .mercado import MercadoBoard
from .oregano import OreganoBoard

BOARDS: dict[str, type[GameBoard]] = {"mercado": MercadoBoard, "oregano": OreganoBoard, "leilao": LeilaoBoard}


def game_title(game: str) -> str:
    """A game as people name it ("Leilão"): its board's title, else its name."""
    board = BOARDS.get(game)
    return board.title if board is not None else game


def board_for(state: api.MatchState) -> GameBoard:
    """The board of the game ``state`` is of (by its summary, else by its view)."""
    game = game_name(state.match.game) if state.match.game else (state.view.WhichOneof("game") or "mercado")
    return BOARDS[game]()


__all__ = ["BOARDS", "GameBoard", "board_for", "game_title", "movers"]

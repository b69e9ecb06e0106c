"""A small typed asyncio client for the mercado match service (``pip install mercado-client``).

It depends on grpcio and protobuf alone; the messages are ``mercado.v1``'s, generated from the
API's proto files and shipped in this package.
"""

from ._version import __version__
from .client import Endpoint, MercadoClient, Seat, retry_after
from .fairness import seed_commitment
from .games import GAMES
from .state import (
    LegalMove,
    MatchResult,
    bid_action,
    bid_options,
    game_view,
    is_my_turn,
    is_over,
    legal_moves,
    match_result,
    preview_of,
)
from .wire import action_json, action_message, describe

__all__ = [
    "GAMES",
    "Endpoint",
    "LegalMove",
    "MatchResult",
    "MercadoClient",
    "Seat",
    "__version__",
    "action_json",
    "action_message",
    "bid_action",
    "bid_options",
    "describe",
    "game_view",
    "is_my_turn",
    "is_over",
    "legal_moves",
    "match_result",
    "preview_of",
    "retry_after",
    "seed_commitment",
]

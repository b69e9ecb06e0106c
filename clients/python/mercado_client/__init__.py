"""A small typed asyncio client for the mercado match service (``pip install mercado-client``).

It depends on grpcio and protobuf alone; the messages are ``mercado.v1``'s, generated from the
API's proto files and shipped in this package.
"""

from ._version import __version__
from .client import Endpoint, MercadoClient, Seat, retry_after
from .fairness import seed_commitment
from .wire import action_json, action_message, describe

__all__ = [
    "Endpoint",
    "MercadoClient",
    "Seat",
    "__version__",
    "action_json",
    "action_message",
    "describe",
    "retry_after",
    "seed_commitment",
]

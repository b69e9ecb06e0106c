"""A small typed asyncio client for the mercado match service."""

from .client import Endpoint, MercadoClient, Seat, retry_after
from .fairness import seed_commitment
from .verify import Verdict, verify_replay
from .wire import action_json, action_message, describe

__all__ = [
    "Endpoint",
    "MercadoClient",
    "Seat",
    "Verdict",
    "action_json",
    "action_message",
    "describe",
    "retry_after",
    "seed_commitment",
    "verify_replay",
]

"""A small typed asyncio client for the mercado match service."""

from .client import MercadoClient, Seat
from .wire import action_json, action_message, describe

__all__ = ["MercadoClient", "Seat", "action_json", "action_message", "describe"]

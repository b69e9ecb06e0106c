"""Bots and search for Mercado de Lisboa. Uses only the engine's public API."""

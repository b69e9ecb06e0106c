"""Leilão's error types: each a ``ValueError`` carrying a one-line reason."""

from __future__ import annotations


class LeilaoError(ValueError):
    """Base of every error raised for bad input; the state is left untouched."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidOptions(LeilaoError):
    """An unknown option or a bad value."""


class InvalidAction(LeilaoError):
    """An action that is not well formed: unknown type, bad field."""


class IllegalAction(LeilaoError):
    """A well-formed action that the rules do not allow now."""


class InvalidPosition(LeilaoError):
    """A position that is not valid; the reason names the first problem."""

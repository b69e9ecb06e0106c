"""The engine's error types. Each carries a one-line reason."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the engine raises for bad input; the state is left untouched."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidAction(RulesError):
    """An action that is not well formed: unknown type, name or missing field."""


class IllegalAction(RulesError):
    """A well-formed action that the rules do not allow in this position."""


class InvalidPosition(RulesError):
    """A position that is not structurally valid; the reason names the bad field."""

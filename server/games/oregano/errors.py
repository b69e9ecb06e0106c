"""Oregano Market's errors; each carries a one-line reason, and the state is left untouched."""

from __future__ import annotations


class OreganoError(ValueError):
    """Base of every error the rules raise for bad input."""


class InvalidOptions(OreganoError):
    """An unknown option or a bad value."""


class InvalidAction(OreganoError):
    """An action that is not well formed: unknown type, name or missing field."""


class IllegalAction(OreganoError):
    """A well-formed action that the rules do not allow now."""


class InvalidPosition(OreganoError):
    """A position that is not structurally valid; the reason names the bad field."""

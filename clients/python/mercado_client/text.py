"""Text from other players (display names) as a screen may show it."""

from __future__ import annotations

import unicodedata

# Control, format (bidi overrides, zero-width), surrogate, private-use, unassigned, line and
# paragraph separator characters: none of them belongs in a name another player's screen shows.
# The server refuses names with them; clients replace them, whatever a server sends.
UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
REPLACEMENT = "\ufffd"


def printable(text: str, limit: int = 40) -> str:
    """``text`` without unprintable characters (each becomes U+FFFD), cut to ``limit`` characters."""
    return "".join(
        REPLACEMENT if unicodedata.category(char) in UNPRINTABLE_CATEGORIES else char for char in text[:limit]
    )

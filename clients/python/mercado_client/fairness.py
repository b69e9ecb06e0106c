"""The seed commitment that makes a match's set-up checkable: SHA-256 over a secret salt and the seed.

The server publishes the commitment in every MatchSummary from the match's
creation on, and reveals salt and seed with the replay once the match has
finished. Anyone can then recompute the commitment (``seed_commitment``) and
replay the match through the rules (``mercado_terminal.verify.verify_replay``).
"""

from __future__ import annotations

import hashlib

SALT_BYTES = 32


def seed_commitment(seed: int, salt: bytes) -> str:
    """Lowercase hex SHA-256 of the salt followed by the seed as 8 big-endian bytes."""
    return hashlib.sha256(salt + seed.to_bytes(8, "big")).hexdigest()

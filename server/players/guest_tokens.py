"""Revoking guest tokens: each guest player's token generation, which RotatePlayerToken moves on.

A guest token does not expire; what revokes it is a newer one. The store keeps each player's
current generation, and a token of an earlier one is refused, on every server and after any
restart. A server remembers the generations it has read (``KEPT`` players at most): with a store
no other server writes to, for as long as it keeps them (every change is its own); with a shared
store (PostgreSQL), for ``SHARED_SECONDS``, so that a rotation made through another server is
honoured here within that time.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from server.match.errors import Unauthenticated
from server.store import Conflict, Store

from .identity import Authenticator, Identity

KEPT = 10_000  # players whose token generation is remembered
SHARED_SECONDS = 5.0  # how long a generation read from a shared store is trusted
REPLACED = "the player credential was refused: it has been replaced by a newer one (RotatePlayerToken)"


class GuestTokens:
    """Checks that a guest token is of its player's current generation, and issues the next one."""

    def __init__(self, store: Store, auth: Authenticator) -> None:
        self.store = store
        self.auth = auth
        # player id -> (its token generation, when it was read)
        self.generations: OrderedDict[str, tuple[int, float]] = OrderedDict()

    async def check(self, identity: Identity) -> None:
        """Unauthenticated when the guest token ``identity`` comes from has been replaced, or names
        a player this server does not have."""
        current = await self._current(identity.player_id)
        if current is not None and identity.generation > current:
            current = await self._current(identity.player_id, again=True)  # rotated elsewhere since
        if current is None:
            raise Unauthenticated("the player credential was refused: this server has no such player")
        if identity.generation < current:
            raise Unauthenticated(REPLACED)

    async def rotate(self, identity: Identity) -> str:
        """A token of the next generation for the guest ``identity`` names (its token a current
        one); every token of an earlier generation is revoked from now on."""
        await self.check(identity)
        try:
            await self.store.rotate_token(identity.player_id, identity.generation)
        except Conflict:
            # The same token was rotated at the same moment, here or through another server.
            self.generations.pop(identity.player_id, None)
            raise Unauthenticated(REPLACED) from None
        self._remember(identity.player_id, identity.generation + 1)
        return self.auth.guest_token(identity.player_id, identity.generation + 1)

    async def _current(self, player_id: str, again: bool = False) -> int | None:
        known = self.generations.get(player_id)
        if known is not None and not again:
            generation, read_at = known
            if not self.store.shared or time.monotonic() - read_at < SHARED_SECONDS:
                self.generations.move_to_end(player_id)
                return generation
        stored = await self.store.token_generation(player_id)
        if stored is not None:
            self._remember(player_id, stored)
        return stored

    def _remember(self, player_id: str, generation: int) -> None:
        # Generations only grow: a read that began before a rotation here must not undo it.
        known = self.generations.get(player_id)
        self.generations[player_id] = (max(generation, known[0] if known else 0), time.monotonic())
        self.generations.move_to_end(player_id)
        if len(self.generations) > KEPT:
            self.generations.popitem(last=False)

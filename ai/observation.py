"""What one seat knows: its view, plus every seat's coins reconstructed from the public history.

With hidden money a seat sees only its own coins, yet every payment follows
from public information: a stand's cost and income depend only on the
visible board, customers pay stands everyone can see. Replaying each public
action's payments from version 0 therefore gives every seat's coins exactly.
"""

from __future__ import annotations

from typing import Any

from server.games.mercado import Action, View, customer_income, stand_cost, stand_income, visible_state
from server.games.mercado.components import STARTING_COINS


def coin_changes(view_after: View, actor: int, action: Action) -> list[int]:
    """Every seat's coin change made by ``action``, computed from the view after it."""
    players = view_after["options"]["players"]
    changes = [0] * players
    kind = action.type
    if kind in ("take_coin", "open_restaurant"):
        changes[actor] = 1
    elif kind in ("open_stand", "bring_customer"):
        # Neither action changes what its payments depend on, except the new stand's own lines.
        after = visible_state(view_after, [0] * players)
        if kind == "open_stand":
            cost_before = stand_cost(after, action.square) - 1
            changes[actor] = stand_income(after, action.good, action.square) - cost_before
        else:
            changes = customer_income(after, action.customer, action.entrance)
    return changes


class CoinTracker:
    """Every seat's coins, kept current by observing each accepted action from version 0."""

    def __init__(self, players: int) -> None:
        self.coins = [STARTING_COINS] * players

    def observe(self, view_after: View, actor: int, action: Action) -> None:
        self.add(coin_changes(view_after, actor, action), view_after)

    def add(self, changes: list[int], view_after: View) -> None:
        """Apply an action's coin changes (:func:`coin_changes`), then what ``view_after`` shows."""
        for seat, change in enumerate(changes):
            self.coins[seat] += change
        self._trust_visible(view_after)

    def _trust_visible(self, view: View) -> None:
        """Coins the view shows are authoritative (one's own, or everyone's with public money)."""
        for seat, coins in enumerate(view["coins"]):
            if coins is not None:
                self.coins[seat] = coins

    def completed(self, view: View) -> dict[str, Any]:
        """The view with every seat's coins filled in."""
        self._trust_visible(view)
        return {**view, "coins": list(self.coins)}

"""The moves the AI's search weighs: every legal one but the idle ones.

Skipping a declared action is always legal, and declaring an action that cannot be performed is
legal too, but neither is ever what a strong player does when there is something to do: a
search of a few hundred iterations that weighs them idles whenever its statistics cannot tell
its choices apart (a comfortable lead makes every choice look winning), and loses for it
(``docs/ai.md``, "Oregano's idle turns"). So the search weighs a declared action's operations
without the skip when it has any, and declarations whose two kinds can be performed as things
stand (or resource then attract, the resources paying for the building); when no declaration
qualifies, all of them.
"""

from __future__ import annotations

from .actions import SKIP, OreganoAction
from .components import ACTION_KINDS
from .rules import declared_now, legal_actions, operations
from .state import ACTION, DECLARE, OreganoState


def search_actions(state: OreganoState, seat: int) -> list[OreganoAction]:
    """``seat``'s legal actions worth searching (never empty while it is to move)."""
    actions = legal_actions(state, seat)
    if state.phase == ACTION and len(actions) > 1:
        return [action for action in actions if action.type != SKIP]
    if state.phase == DECLARE:
        doable = {kind for kind in ACTION_KINDS if next(operations(declared_now(state, kind), seat), None)}
        busy = [
            action
            for action in actions
            if action.first in doable
            and (action.second in doable or (action.first, action.second) == ("resource", "attract"))
        ]
        return busy or actions
    return actions

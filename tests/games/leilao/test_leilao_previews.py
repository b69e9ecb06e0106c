"""Each legal action's preview (server/games/leilao/previews.py) is what it does to its player's score
once revealed: checked against the rules in random games, each option's way."""

from __future__ import annotations

import random

import pytest

from server.games.leilao import RULES, Pick
from server.games.leilao.previews import preview
from server.games.leilao.scoring import score


@pytest.mark.parametrize(
    "options",
    [{}, {"card_penalty": "one"}, {"set_bonus": "once"}, {"leftover_stalls": "discard"}],
)
@pytest.mark.parametrize("players", [2, 3])
def test_a_preview_is_the_score_change_its_action_makes(players: int, options: dict[str, str]) -> None:
    """A pick scores at once; a sealed choice when the step's last one reveals it: every legal action
    of the step's last seat is played on a copy."""
    rng = random.Random(players)
    kinds = set()
    state = RULES.new_game(RULES.options({"players": players, **options}), players)
    while not RULES.is_over(state):
        movers = sorted(RULES.to_move(state))
        seat = rng.choice(movers)
        actions = RULES.legal_actions(state, seat)
        if len(movers) == 1:
            for action in actions:
                after = RULES.clone(state)
                RULES.apply(after, seat, action)
                assert score(after, seat) - score(state, seat) == preview(state, seat, action).score_change
                kinds.add("pick" if isinstance(action, Pick) else type(action).__name__)
        RULES.apply(state, seat, rng.choice(actions))
    assert kinds >= {"pick", "Bid"}

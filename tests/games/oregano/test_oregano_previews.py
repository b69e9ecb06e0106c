"""Each legal action's preview (server/games/oregano/previews.py) is what playing it does: checked
against the rules' own effects in random games."""

from __future__ import annotations

import random

import pytest
from test_oregano_support import of_type, play, position

from server.games.oregano import RULES, OreganoState
from server.games.oregano import actions as A
from server.games.oregano.components import RESOURCES
from server.games.oregano.previews import Preview, declare_outlook, preview
from server.games.oregano.scoring import score


def check(state: OreganoState, seat: int, action: A.OreganoAction) -> Preview:
    """The preview of ``action``, checked against its effects on a copy of ``state``."""
    shown = preview(state, seat, action)
    after = RULES.clone(state)
    events = play(after, seat, action)
    # The next turn's income, paid once this turn is over, is not the action's.
    income = [0] * state.players
    for event in of_type(events, "income"):
        income[event["seat"]] += event["gold"]
    cost, earnings = shown.cost, shown.earnings
    assert after.gold[seat] - state.gold[seat] == earnings[seat] - cost[0]
    for other in range(state.players):
        if other != seat:
            assert after.gold[other] - state.gold[other] - income[other] == earnings[other]
    for resource, paid, taken in zip(RESOURCES, cost[1:], shown.resources, strict=True):
        assert after.resources[seat][resource] - state.resources[seat][resource] == taken - paid
    assert score(after, seat) - score(state, seat) == shown.score_change
    assert shown.achieves_strategy == bool(of_type(events, "strategy_achieved"))
    assert shown.bonuses == tuple(e["bonus"] for e in of_type(events, "bonus_taken"))
    return shown


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_previewed_action_does_what_its_preview_says(players: int) -> None:
    checked: set[str] = set()
    achieved = bonuses = 0
    for seed in range(3):
        state = RULES.new_game(RULES.options({"players": players}), seed)
        rng = random.Random(seed)
        while not RULES.is_over(state):
            (seat,) = RULES.to_move(state)
            actions = RULES.legal_actions(state, seat)
            for action in actions:
                if action.type == A.CASINO and action.go:
                    continue  # the die decides: test_going_to_the_casino_previews_what_the_die_decides
                shown = check(state, seat, action)
                checked.add(action.type)
                achieved += shown.achieves_strategy
                bonuses += len(shown.bonuses)
            play(state, seat, rng.choice(actions))
    assert checked >= {A.CHOOSE_START_SHOP, A.DECLARE, A.BUILD, A.TAKE_RESOURCES, A.SELL, A.SKIP}
    assert achieved and bonuses


def test_going_to_the_casino_previews_what_the_die_decides() -> None:
    state = position(
        3,
        phase="casino",
        declared=["sell", "attract"],
        step=2,
        areas=[{"1a": "casino"}, {}, {}],
        gold=[12, 10, 4],
    )
    shown = preview(state, 0, A.casino(True))
    assert shown.casino is not None
    assert shown.casino.loss == 5 and shown.casino.win_takes == (0, 7, 4)
    assert shown.cost == (0, 0, 0, 0) and shown.score_change == 0
    assert preview(state, 0, A.casino(False)).casino is None


@pytest.mark.parametrize("players", [2, 4])
def test_the_declare_outlook_says_what_each_kind_could_do_now(players: int) -> None:
    seen: set[str] = set()
    for seed in range(2):
        state = RULES.new_game(RULES.options({"players": players}), seed)
        rng = random.Random(seed)
        while not RULES.is_over(state):
            (seat,) = RULES.to_move(state)
            actions = RULES.legal_actions(state, seat)
            if state.phase == "declare":
                for outlook in declare_outlook(state, seat):
                    # What the kind offers once declared first: its operations, and the best of them.
                    first = next(a for a in actions if a.type == A.DECLARE and a.first == outlook.kind)
                    declared = RULES.clone(state)
                    play(declared, seat, first)
                    operations = [a for a in RULES.legal_actions(declared, seat) if a.type != A.SKIP]
                    assert outlook.operations == len(operations)
                    if not operations:
                        assert outlook.best is None and outlook.preview is None
                        continue
                    shown = {a: check(declared, seat, a) for a in operations}
                    assert outlook.best in shown and outlook.preview == shown[outlook.best]
                    best = max((p.score_change, sum(p.resources)) for p in shown.values())
                    assert (outlook.preview.score_change, sum(outlook.preview.resources)) == best
                    seen.add(outlook.kind)
            play(state, seat, rng.choice(actions))
    assert seen == {"attract", "resource", "sell", "acquire"}

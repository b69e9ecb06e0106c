"""The moves the AI's search weighs in Oregano (server/games/oregano/search_actions.py): every legal
one but the idle ones."""

from __future__ import annotations

import dataclasses
import random

from test_oregano_support import acting, position

from ai.ismcts import Search, SearchConfig
from server.games.oregano import RULES
from server.games.oregano import actions as A


def declarations(state: object) -> set[tuple[str, str]]:
    return {(a.first, a.second) for a in RULES.search_actions(state, 0)}  # type: ignore[misc]


def test_a_declared_action_that_can_be_performed_is_never_skipped() -> None:
    state = acting("attract", resources=[{"wood": 1}, {}])
    legal = RULES.legal_actions(state, 0)
    assert A.skip() in legal and A.build("cafe", "1b") in legal
    assert RULES.search_actions(state, 0) == [action for action in legal if action != A.skip()]


def test_a_declared_action_with_nothing_to_do_is_skipped() -> None:
    state = acting("acquire")  # the boulevard is empty
    assert RULES.search_actions(state, 0) == RULES.legal_actions(state, 0) == [A.skip()]


def test_only_kinds_that_can_be_performed_are_declared_or_resource_then_attract() -> None:
    # A lumber merchant and nothing to build with: resource and sell can be done, attract and acquire not.
    state = position(areas=[{"1a": "lumber_merchant"}, {}], gold=[0, 0])
    assert declarations(state) == {("resource", "sell"), ("sell", "resource"), ("resource", "attract")}
    assert {(a.first, a.second) for a in RULES.legal_actions(state, 0)} > declarations(state)


def test_the_search_never_idles_but_its_yardstick_weighs_every_legal_move() -> None:
    state = acting("attract", resources=[{"wood": 1}, {}])
    view = RULES.view(state, 0)
    config = SearchConfig(iterations=60, playout_steps=6)
    weighed = Search(RULES, view, config, random.Random(1))
    weighed.run()
    assert A.skip() not in weighed.root_tallies()
    every = Search(RULES, view, dataclasses.replace(config, every_action=True), random.Random(1))
    every.run()
    assert set(every.root_tallies()) == set(RULES.legal_actions(state, 0))

"""Oregano Market as an OpenSpiel game (``pyspiel.load_game("oregano", {...})``), turn-based:
docs/openspiel.md, "Oregano"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel

from server.games.oregano import RULES, actions
from server.games.oregano.components import (
    ACTION_KINDS,
    BONUSES,
    CELLS,
    LEVELS,
    MAX_LEVEL,
    MAX_PLAYERS,
    MERCHANTS,
    MIN_PLAYERS,
    RESOURCES,
    SHOP_IDS,
    STRATEGIES,
)
from server.games.oregano.rules import cells_of_level
from server.games.oregano.scoring import level_of
from server.games.oregano.state import OPTION_DEFAULTS, PHASES, STATUSES

from .rules_game import Catalogue, Layout, Pieces, RulesGame, game_type, one_hot

NAME = "oregano"
DEFAULTS: dict[str, Any] = {**OPTION_DEFAULTS, "rng_seed": 0}
# A turn is at most six decisions: the declaration, two operations, a strategy card kept after each
# (when it achieved the card held), the casino.
TURN_DECISIONS = 6
RECORD_SIZE = len(SHOP_IDS) + 3 + len(RESOURCES)  # built by kind, sold, acquired, levelled, taken

GAME_TYPE = game_type(
    NAME,
    "Oregano Market",
    pyspiel.GameType.Dynamics.SEQUENTIAL,
    pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    (MIN_PLAYERS, MAX_PLAYERS),
    DEFAULTS,
)


def catalogue() -> Catalogue:
    """Every action any position can allow, in the order of the rules' action types."""
    first_column = cells_of_level(1)
    return Catalogue(
        [
            *(actions.choose_start_shop(kind, cell) for kind in MERCHANTS for cell in first_column),
            *(actions.keep_strategy(card) for card in STRATEGIES),
            *(actions.declare(first, second) for first in ACTION_KINDS for second in ACTION_KINDS),
            *(actions.build(kind, cell) for kind in SHOP_IDS for cell in first_column),
            *(
                actions.level_up(source, target)
                for source in CELLS
                if level_of(source) < MAX_LEVEL
                for target in cells_of_level(level_of(source) + 1)
            ),
            *(actions.take_resources(owner, cell) for owner in range(MAX_PLAYERS) for cell in CELLS),
            *(actions.sell(cell) for cell in CELLS),
            *(
                actions.acquire(kind, level, seller, cell)
                for kind in SHOP_IDS
                for level in LEVELS
                for seller in range(MAX_PLAYERS)
                for cell in cells_of_level(level)
            ),
            actions.skip(),
            actions.casino(True),
            actions.casino(False),
        ]
    )


CATALOGUE = catalogue()


class OreganoGame(RulesGame):
    rules = RULES

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        values = {**DEFAULTS, **(params or {})}
        options = RULES.options({key: values[key] for key in OPTION_DEFAULTS})
        n = options["players"]
        longest = 2 * n + TURN_DECISIONS * n * options["round_limit"]  # set-up: a shop, a card each
        super().__init__(GAME_TYPE, values, options, CATALOGUE, longest)

    def view_layout(self) -> Layout:
        n = self.players
        return [
            ("seat", (n,)),
            ("current_player", (n,)),
            ("first_player", (n,)),
            ("status", (len(STATUSES),)),
            ("phase", (len(PHASES),)),
            ("round", (1,)),
            ("step", (1,)),
            ("declared", (2, len(ACTION_KINDS))),
            ("end_triggered", (1,)),
            ("gold", (n,)),
            ("resources", (n, len(RESOURCES))),
            ("areas", (n, len(CELLS), len(SHOP_IDS))),
            ("boulevard", (len(SHOP_IDS), len(LEVELS), n)),
            ("stock", (len(SHOP_IDS),)),
            ("supply", (len(RESOURCES),)),
            ("strategy_deck_count", (1,)),
            ("strategy_held", (n,)),
            ("strategies", (n, len(STRATEGIES))),
            ("progress", (n,)),
            ("drawn", (len(STRATEGIES),)),
            ("drawn_counts", (n,)),
            ("records", (n, RECORD_SIZE)),
            ("bonus_available", (len(BONUSES),)),
            ("bonuses", (n, len(BONUSES))),
            ("scores", (n,)),
        ]

    def fill(self, pieces: Pieces, view: Mapping[str, Any]) -> None:
        d = pieces
        one_hot(d["seat"], view["seat"])
        if view["status"] != "finished":
            one_hot(d["current_player"], view["current_player"])
        one_hot(d["first_player"], view["first_player"])
        one_hot(d["status"], STATUSES.index(view["status"]))
        one_hot(d["phase"], PHASES.index(view["phase"]))
        d["round"][0] = view["round"]
        d["step"][0] = view["step"]
        for i, kind in enumerate(view["declared"] or []):
            d["declared"][i, ACTION_KINDS.index(kind)] = 1
        d["end_triggered"][0] = view["end_triggered"]
        d["gold"][:] = view["gold"]
        for seat, held in enumerate(view["resources"]):
            d["resources"][seat] = [held[resource] for resource in RESOURCES]
        for seat, area in enumerate(view["areas"]):
            for cell, shop in area.items():
                d["areas"][seat, CELLS.index(cell), SHOP_IDS.index(shop["shop"])] = 1
        for entry in view["boulevard"]:
            d["boulevard"][SHOP_IDS.index(entry["shop"]), entry["level"] - 1, entry["seller"]] += 1
        d["stock"][:] = [view["stock"][kind] for kind in SHOP_IDS]
        d["supply"][:] = [view["supply"][resource] for resource in RESOURCES]
        d["strategy_deck_count"][0] = view["strategy_deck_count"]
        for seat, held in enumerate(view["strategies"]):
            d["strategy_held"][seat] = held.get("count", 1)
            if "card" in held:  # the seat's own, or every card when they are open
                d["strategies"][seat, STRATEGIES.index(held["card"])] = 1
                d["progress"][seat] = held["progress"]
        for seat, drawn in enumerate(view["drawn"]):
            for card in drawn.get("cards", []):
                d["drawn"][STRATEGIES.index(card)] += 1
            d["drawn_counts"][seat] = len(drawn["cards"]) if "cards" in drawn else drawn["count"]
        for seat, record in enumerate(view["records"]):
            row = d["records"][seat]
            for kind in record["built"]:
                row[SHOP_IDS.index(kind)] += 1
            row[len(SHOP_IDS) :] = [
                record["sold"],
                record["acquired"],
                len(set(record["levelled"])),
                *(record["taken"].count(resource) for resource in RESOURCES),
            ]
        for bonus in view["bonus_available"]:
            d["bonus_available"][BONUSES.index(bonus)] = 1
        for seat, taken in enumerate(view["bonuses"]):
            for bonus in taken:
                d["bonuses"][seat, BONUSES.index(bonus)] = 1
        if view["result"] is not None:
            d["scores"][:] = view["result"]["scores"]

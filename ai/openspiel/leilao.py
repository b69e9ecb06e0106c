"""Leilão das Bancas as an OpenSpiel game (``pyspiel.load_game("leilao", {...})``), its sealed steps
simultaneous nodes: docs/openspiel.md, "Leilão".

Beyond the rules' options, a research variant can be made small enough to solve: ``hand`` (the rules'
research option: bid cards 1..hand), ``rounds`` (a deck of that many rounds' stalls, so the rules end
the game after them) and ``deal`` (every game set up from this one seed, so the game has no chance).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel

from server.games.leilao import RULES, Options, components, new_game, start_game
from server.games.leilao.actions import BIDS, PICKS, REBIDS
from server.games.leilao.state import PHASES, LeilaoState

from .rules_game import Catalogue, Layout, Pieces, RulesGame, game_type, one_hot, utility

NAME = "leilao"
DEFAULTS: dict[str, Any] = {
    "players": 2,
    "card_penalty": "face",
    "set_bonus": "per_set",
    "leftover_stalls": "cycle",
    "hand": components.HAND_SIZE,
    "rounds": 0,  # 0: as many as the deck holds
    "deal": -1,  # -1: each game set up from the next seed of rng_seed's stream
    "reward": "ranks",
    "rng_seed": 0,
}
_RULES_OPTIONS = ("players", "card_penalty", "set_bonus", "leftover_stalls", "hand")
N_CARDS = len(components.CARD_NAMES)
ROLES = ("main", "extra", "rebid")


# Bounds on a score: every stall and a colour set per four of them; every bid card and extra fee paid.
MOST_POINTS = sum(components.CARD_NUMBER) + components.SET_BONUS * (N_CARDS // components.N_COLOURS)
LEAST_POINTS = -sum(components.BID_CARDS) - components.EXTRA_BID_FEE * components.HAND_SIZE


def leilao_type(
    chance_mode: pyspiel.GameType.ChanceMode,
    utility: pyspiel.GameType.Utility = pyspiel.GameType.Utility.ZERO_SUM,
) -> pyspiel.GameType:
    return game_type(
        NAME,
        "Leilão das Bancas",
        pyspiel.GameType.Dynamics.SIMULTANEOUS,
        chance_mode,
        (components.MIN_PLAYERS, components.MAX_PLAYERS),
        DEFAULTS,
        utility,
    )


GAME_TYPE = leilao_type(pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC)


def catalogue(hand: int) -> Catalogue:
    """Bids (card, then card with each extra), re-bids, picks: the rules' own action objects."""
    cards = range(1, hand + 1)
    bids = [BIDS[card, extra] for card in cards for extra in (None, *cards) if extra != card]
    return Catalogue([*bids, *(REBIDS[card] for card in cards), *PICKS])


class LeilaoGame(RulesGame):
    rules = RULES

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        values = {**DEFAULTS, **(params or {})}
        options = Options.from_json({key: values[key] for key in _RULES_OPTIONS}, research=True)
        if values["rounds"] < 0:
            raise ValueError("rounds must be 0 (as many as the deck holds) or more")
        deck_rounds = components.N_MARKET_CARDS // options.display_size
        self.rounds = min(values["rounds"] or deck_rounds, deck_rounds)
        self.deal = values["deal"]
        chance = pyspiel.GameType.ChanceMode
        kind = leilao_type(
            chance.DETERMINISTIC if self.deal >= 0 else chance.SAMPLED_STOCHASTIC,
            utility(values["reward"], options.players),
        )
        # Every card played is one action of one seat; every stall picked another.
        rounds = min(self.rounds, options.hand)  # each round takes a card from every hand
        longest = options.players * options.hand + rounds * options.display_size
        super().__init__(
            kind,
            values,
            options.to_json(),
            catalogue(options.hand),
            longest,
            (LEAST_POINTS, MOST_POINTS),
        )
        self.rules_options = options
        self.hand = options.hand

    def set_up(self, seed: int) -> LeilaoState:
        # The rules' set-up, with the research options (which a match may not have).
        state = new_game(self.rules_options, seed)
        if self.rounds * len(state.display) >= components.N_MARKET_CARDS:
            return state
        # A short deck: the same shuffle and start player, the deck cut after ``rounds`` rounds.
        cards = (state.display + state.deck)[: self.rounds * len(state.display)]
        return start_game(state.options, cards, state.start_player)

    def next_seed(self) -> int:
        return self.deal if self.deal >= 0 else super().next_seed()

    def view_layout(self) -> Layout:
        n, h = self.players, self.hand
        return [
            ("seat", (n,)),
            ("to_move", (n,)),
            ("phase", (len(PHASES),)),
            ("round", (1,)),
            ("start_player", (n,)),
            ("deck_count", (1,)),
            ("display", (N_CARDS,)),
            ("removed", (N_CARDS,)),
            ("stalls", (n, N_CARDS)),
            ("hands", (n, h)),
            ("played", (n, h, len(ROLES))),
            ("void", (n, h)),
            ("played_round", (n, h)),
            ("fees", (n,)),
            ("tie_group", (n,)),
            ("pick_sequence", (2 * n, n)),
            ("picks_made", (1,)),
            ("scores", (n,)),
        ]

    def fill(self, pieces: Pieces, view: Mapping[str, Any]) -> None:
        d, index = pieces, components.CARD_INDEX
        one_hot(d["seat"], view["seat"])
        for seat in view["to_move"]:
            d["to_move"][seat] = 1
        one_hot(d["phase"], PHASES.index(view["phase"]))
        d["round"][0] = view["round"]
        one_hot(d["start_player"], view["start_player"])
        d["deck_count"][0] = view["deck_count"]
        for card in view["display"]:
            d["display"][index[card]] = 1
        for card in view["removed"]:
            d["removed"][index[card]] = 1
        for seat, stalls in enumerate(view["stalls"]):
            for card in stalls:
                d["stalls"][seat, index[card]] = 1
        for seat, hand in enumerate(view["hands"]):
            for card in hand:
                d["hands"][seat, card - 1] = 1
        for seat, pile in enumerate(view["played"]):
            for played in pile:
                d["played"][seat, played["card"] - 1, ROLES.index(played["role"])] = 1
                d["void"][seat, played["card"] - 1] = played["void"]
                d["played_round"][seat, played["card"] - 1] = played["round"]
        d["fees"][:] = view["fees"]
        for slot in view["tie_group"] or []:
            d["tie_group"][slot["seat"]] = 1
        for position, seat in enumerate(view["pick_sequence"] or []):
            d["pick_sequence"][position, seat] = 1
        d["picks_made"][0] = view["picks_made"]
        d["scores"][:] = view["scores"]

"""Shared helpers of the Leilão tests: fixtures built by hand, and random play."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from server.games.leilao import RULES, Bid, LeilaoAction, LeilaoState, Options, Pick, Rebid, start_game
from server.games.leilao.components import BID_CARDS, CARD_INDEX, N_MARKET_CARDS
from server.games.leilao.rules import Event
from server.games.leilao.state import MAIN, Played


def card(name: str) -> int:
    return CARD_INDEX[name]


def deck_with(top: Iterable[str]) -> list[int]:
    """The 80 market cards with ``top`` first (in that order), the rest in index order."""
    first = [card(name) for name in top]
    return first + [c for c in range(N_MARKET_CARDS) if c not in first]


def game(players: int = 2, top: Iterable[str] = (), start: int = 0, **options: Any) -> LeilaoState:
    """A game with a chosen deck top and start player, round 1 dealt."""
    return start_game(Options(players=players, **options), deck_with(top), start)


def set_hand(state: LeilaoState, seat: int, cards: Iterable[int]) -> None:
    """Leave ``seat`` only ``cards`` in hand; the rest were played (as main bids) in earlier rounds."""
    hand = sorted(cards)
    if state.round == 1:
        state.round = 2
    state.hands[seat] = hand
    state.played[seat] = [Played(c, MAIN, False, 1) for c in BID_CARDS if c not in hand]


def bid(state: LeilaoState, seat: int, main: int, extra: int | None = None) -> list[Event]:
    return RULES.apply(state, seat, Bid(main, extra))


def rebid(state: LeilaoState, seat: int, number: int) -> list[Event]:
    return RULES.apply(state, seat, Rebid(number))


def pick(state: LeilaoState, seat: int, name: str) -> list[Event]:
    return RULES.apply(state, seat, Pick(card(name)))


def names(cards: Iterable[int]) -> list[str]:
    from server.games.leilao.components import CARD_NAMES

    return [CARD_NAMES[c] for c in cards]


def random_move(state: LeilaoState, rng: random.Random) -> tuple[int, LeilaoAction]:
    seat = rng.choice(sorted(RULES.to_move(state)))
    return seat, rng.choice(RULES.legal_actions(state, seat))


def play_to_end(state: LeilaoState, rng: random.Random, limit: int = 2000) -> list[tuple[int, LeilaoAction]]:
    """Random legal moves (checked) until the game is over; the moves made."""
    moves: list[tuple[int, LeilaoAction]] = []
    while not RULES.is_over(state):
        assert len(moves) < limit, "the game does not end"
        seat, action = random_move(state, rng)
        RULES.apply(state, seat, action)
        moves.append((seat, action))
    return moves

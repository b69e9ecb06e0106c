"""Setting up a game from a seed (the only randomness), and replaying a game."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.games.rng import MASK64, below, shuffle

from .actions import LeilaoAction
from .components import N_MARKET_CARDS
from .rules import Event, apply, deal
from .state import LeilaoState, Options


def start_game(
    options: Options, deck: Sequence[int], start_player: int, events: list[Event] | None = None
) -> LeilaoState:
    """The game with this deck order (top first) and start player, round 1 dealt."""
    state = LeilaoState(options)
    state.deck = list(deck)
    state.start_player = start_player
    state.hands = [list(options.bid_cards) for _ in range(options.players)]
    deal(state, events)
    return state


def new_game(options: Options | None = None, seed: int = 0) -> LeilaoState:
    """A freshly set-up game: the deck shuffled and the start player drawn from ``seed``."""
    options = options or Options()
    rng = seed & MASK64
    deck = list(range(N_MARKET_CARDS))
    rng = shuffle(rng, deck)
    rng, start_player = below(rng, options.players)
    return start_game(options, deck, start_player)


def replay(options: Options, seed: int, moves: Iterable[tuple[int, LeilaoAction]]) -> LeilaoState:
    """The state reached by applying ``moves`` (seat, action), checked, to the game of ``seed``."""
    state = new_game(options, seed)
    for seat, action in moves:
        apply(state, seat, action)
    return state

"""Setting up a new game from a seed, and replaying a game from its seed and actions."""

from __future__ import annotations

from collections.abc import Iterable

from server.games.rng import MASK64, below, insert_randomly, shuffle

from .actions import Action
from .components import (
    BOARD_RESTAURANTS,
    DISPLAY_PER_LEVEL,
    GOODS,
    HAND_SIZE,
    OFFER_SIZE,
    RESTAURANT_SQUARES,
    SET_ASIDE_RESTAURANT,
    SET_ASIDE_USED_WITH_PLAYERS,
    STAND_TILES_PER_GOOD,
    STARTING_COINS,
    WOODEN_STANDS_PER_PLAYER,
)
from .geometry import CUSTOMER_DECKS, GOOD_INDEX, RESTAURANT_INDEX, SQUARE_INDEX
from .options import Options
from .rules import apply
from .state import GameState


def new_game(options: Options | None = None, seed: int = 0) -> GameState:
    """A freshly set-up game; the same options and seed always give the same game."""
    options = options or Options()
    state = GameState(options)
    rng = seed & MASK64

    restaurants = [RESTAURANT_INDEX[name] for name in BOARD_RESTAURANTS]
    rng = shuffle(rng, restaurants)
    for name, kind in zip(RESTAURANT_SQUARES, restaurants, strict=True):
        state.face_down[SQUARE_INDEX[name]] = kind

    bag = [GOOD_INDEX[good] for good in GOODS for _ in range(STAND_TILES_PER_GOOD)]
    rng = shuffle(rng, bag)
    state.offer = bag[:OFFER_SIZE]
    del bag[:OFFER_SIZE]
    for p in range(options.players):
        state.coins[p] = STARTING_COINS
        state.wooden_stands[p] = WOODEN_STANDS_PER_PLAYER
        hand = bag[:HAND_SIZE]
        del bag[:HAND_SIZE]
        while hand[0] == hand[1] == hand[2]:
            rng = insert_randomly(rng, bag, hand)
            hand = bag[:HAND_SIZE]
            del bag[:HAND_SIZE]
        state.hands[p] = hand
    state.bag = bag

    for level in range(1, 5):
        deck = list(CUSTOMER_DECKS[level - 1])
        rng = shuffle(rng, deck)
        state.display[level - 1] = deck[:DISPLAY_PER_LEVEL]
        state.decks[level - 1] = deck[DISPLAY_PER_LEVEL:]

    rng, first = below(rng, options.players)
    state.current = first
    if options.players == SET_ASIDE_USED_WITH_PLAYERS:
        fourth = (first + 3) % options.players
        state.restaurant_hands[fourth].append(RESTAURANT_INDEX[SET_ASIDE_RESTAURANT])
    state.rng = rng
    return state


def replay(options: Options, seed: int, actions: Iterable[Action]) -> GameState:
    """The state reached by applying ``actions`` (checked) to the game set up from ``seed``."""
    state = new_game(options, seed)
    for action in actions:
        apply(state, action)
    return state

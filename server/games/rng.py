"""The games' only source of chance: SplitMix64 over an explicit integer state.

The state is part of the position (``rng``), so applying an action is a
function of the position alone, and any language can reproduce it.
"""

from __future__ import annotations

from typing import TypeVar

MASK64 = (1 << 64) - 1
T = TypeVar("T")


def next_u64(state: int) -> tuple[int, int]:
    """Advance the state; return (new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """Return (new state, a number in range(n))."""
    state, z = next_u64(state)
    return state, z % n


def shuffle(state: int, items: list[T]) -> int:
    """Fisher-Yates shuffle in place; return the new state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def insert_randomly(state: int, items: list[T], new: list[T]) -> int:
    """Insert each of ``new`` at a random position of ``items``; return the new state."""
    for item in new:
        state, position = below(state, len(items) + 1)
        items.insert(position, item)
    return state

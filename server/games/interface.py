"""What every game's rules give the rest of the service: one small, pure interface.

A game lives in its own package (``server/games/<name>/``) and exposes one object
that satisfies :class:`GameRules`; nothing outside that package knows its rules.
Everything here is pure and deterministic: no I/O, no clock, no global random
state (the randomness of set-up comes from ``seed``; the sampler is handed its
own ``random.Random``).

Positions, views, actions and events cross the interface as JSON-shaped values
(``dict``/``list``/``str``/``int``/``bool``/``None``), with the conventions of
``docs/positions.md``: a position holds everything, hidden parts included; a view
holds what one seat (``None``: a spectator) may see.

Several seats may be to move at once (sealed, simultaneous choices). A seat's
action is then applied on its own: the state keeps it sealed, its events say only
that the seat has acted, and the action of the last seat of the step reveals
every sealed choice of that step together, in its events. A view never shows
another seat's sealed choice before that reveal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

Json = Any  # a JSON-shaped value
Event = dict[str, Any]  # {"type": ..., ...}: what an action did, for streams and logs

State = TypeVar("State")
Action = TypeVar("Action")


@dataclass(frozen=True)
class Outcome:
    """A finished game's result: each seat's score and 1-based rank (equal ranks share a place)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    tie_breaks: tuple[tuple[int, ...], ...] = ()  # per seat, what broke score ties, in order

    def to_json(self) -> dict[str, Json]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "tie_breaks": [list(values) for values in self.tie_breaks],
        }


class ScorePart(NamedTuple):
    """A named part of a seat's score: ``name`` is stable (clients translate from it), ``label`` its
    English text; ``counted`` is how many things it counts (shops, cards), None for a part that
    counts none (the ``count`` of its message)."""

    name: str
    label: str
    points: int
    counted: int | None = None


class TieBreak(NamedTuple):
    """A value that ranks seats of equal score, the higher first."""

    name: str
    label: str
    value: int


class ScoreParts(NamedTuple):
    """One seat's score as named parts that add up to it, and the tie-breaks, in order, that rank it
    among equal scores (``Outcome.tie_breaks`` once the game is over)."""

    seat: int
    parts: tuple[ScorePart, ...]
    tie_breaks: tuple[TieBreak, ...]

    @property
    def total(self) -> int:
        return sum(part.points for part in self.parts)


class GameRules(Protocol[State, Action]):
    """One game's rules. ``State`` is mutable and owned by the caller; ``Action`` is immutable
    and hashable."""

    name: str  # its identifier: "mercado", "oregano", "leilao"
    min_players: int
    max_players: int
    # The actions of its own that make a seat's opening: its first round of play, and at least
    # three. A match in which a seat gave up before them counts for nobody's rating.
    opening_actions: int

    # --- set-up -----------------------------------------------------------------

    def options(self, data: Mapping[str, Json]) -> Mapping[str, Json]:
        """The full options (defaults filled in) from ``data``, which must include ``players``;
        raises ``ValueError`` with a one-line reason for an unknown option or a bad value."""
        ...

    def new_game(self, options: Mapping[str, Json], seed: int) -> State:
        """The position at the start, every random choice of set-up drawn from ``seed``."""
        ...

    # --- play -------------------------------------------------------------------

    def to_move(self, state: State) -> frozenset[int]:
        """The seats that must act now (more than one when their choices are simultaneous);
        empty once the game is over."""
        ...

    def sealed(self, state: State) -> frozenset[int]:
        """The seats whose choice of the current simultaneous step is made but not yet revealed:
        nobody else may learn what they chose until the step's last choice reveals them all."""
        ...

    def action_shown(self, state: State, seat: int, action: Action, viewer: int | None) -> bool:
        """Whether ``viewer`` (None: a spectator) may see what ``seat`` chose in ``action``, beyond
        that it acted (``state``: the position after it): False for a choice private to ``seat``.
        A sealed choice is hidden until its reveal by ``sealed`` whatever this says."""
        ...

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """What ``seat`` may do now, in a stable order; empty if it is not to move."""
        ...

    def search_actions(self, state: State, seat: int) -> list[Action]:
        """The legal actions the AI's search weighs, in the order of ``legal_actions``: all of them,
        or fewer where some are never a strong player's move (never empty while ``seat`` is to move)."""
        ...

    def why_illegal(self, state: State, seat: int, action: Action) -> str | None:
        """Why ``seat`` may not play ``action`` now (one line), or None if it may."""
        ...

    def apply(self, state: State, seat: int, action: Action) -> list[Event]:
        """Play ``action`` for ``seat``, checked (``ValueError`` with the reason, and ``state``
        unchanged, if illegal); the events it caused, hidden parts included."""
        ...

    def apply_unchecked(self, state: State, seat: int, action: Action) -> None:
        """Play an action known to be legal, recording no events: the search's fast path."""
        ...

    def clone(self, state: State) -> State:
        """An independent copy."""
        ...

    def is_over(self, state: State) -> bool: ...

    def outcome(self, state: State) -> Outcome | None:
        """The result once the game is over; None before."""
        ...

    # --- what each seat may see -----------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Json]:
        """What ``seat`` (None: a spectator) may see, with ``legal_actions`` (as JSON) when it is
        to move and ``to_move`` (the seats to move, and of a simultaneous step, which have acted)."""
        ...

    def events_for(self, state: State, events: Sequence[Event], seat: int | None) -> list[Event]:
        """``events`` as ``seat`` may see them (``state``: the position after them)."""
        ...

    def sample(self, state: State, seat: int, rng: random.Random) -> State:
        """A position consistent with everything ``seat`` may see in ``state``, the parts hidden
        from it (decks, other seats' hidden holdings, others' sealed choices of the current step)
        drawn at random from ``rng``: what the AI searches on."""
        ...

    def determinize(self, view: Mapping[str, Json], rng: random.Random) -> State:
        """A position consistent with a seat's ``view`` (as :meth:`view` gives it, or its JSON
        round trip): the same view for that seat, the parts hidden from it drawn from ``rng``. It
        depends on nothing but ``view`` and ``rng``: what an agent that holds only a view searches."""
        ...

    def score_now(self, state: State) -> tuple[int, ...]:
        """Each seat's score if the game ended now (the final scores once it is over): the cheap
        evaluation of a position that greedy play and cut-off searches use."""
        ...

    def estimated_scores(self, state: State) -> Sequence[float]:
        """Each seat's final score as far as the position tells, for a search that stops short of
        the end (the final scores once it is over); ``score_now`` where the game knows no better."""
        ...

    def score_parts(self, state: State) -> list[ScoreParts]:
        """Each seat's score, in seat order, as named parts that add up to ``score_now``'s (the
        final scores once the game is over, with the tie-breaks of ``outcome``). Every seat gets
        the same parts, in the same order."""
        ...

    def score_shown(self, state: State, seat: int, viewer: int | None) -> bool:
        """Whether ``viewer`` (None: a spectator) may know ``seat``'s score and its parts now."""
        ...

    # --- JSON -------------------------------------------------------------------

    def position_to_json(self, state: State) -> dict[str, Json]: ...

    def position_from_json(self, data: Json) -> State:
        """A position from JSON, validated (``ValueError`` with the first problem)."""
        ...

    def action_to_json(self, action: Action) -> dict[str, Json]: ...

    def action_from_json(self, data: Json) -> Action:
        """An action from JSON (``ValueError`` if it is not one of this game's actions)."""
        ...

    def action_text(self, action: Action) -> str:
        """A short, stable text of ``action`` (what the store keeps); ``parse_action`` reads it."""
        ...

    def parse_action(self, text: str) -> Action: ...

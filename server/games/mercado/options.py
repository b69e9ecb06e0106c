"""The match options of RULES.md.

Kept apart from :mod:`state`, which is compiled (``scripts/compile-engine.py``): a mapping that is a
dataclass stays an ordinary Python class.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from .components import MAX_PLAYERS, MIN_PLAYERS
from .errors import InvalidPosition

Money = Literal["public", "hidden"]


@dataclass(frozen=True)
class Options(Mapping[str, object]):
    """The match options of RULES.md; as a mapping, their JSON form (what every game's options are)."""

    players: int = 2
    money: Money = "hidden"
    face_down_counts_as_available: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise InvalidPosition("options.players must be 2, 3 or 4")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidPosition("options.players must be 2, 3 or 4")
        if self.money not in ("public", "hidden"):
            raise InvalidPosition("options.money must be 'public' or 'hidden'")
        if not isinstance(self.face_down_counts_as_available, bool):
            raise InvalidPosition("options.face_down_counts_as_available must be true or false")

    @property
    def money_hidden(self) -> bool:
        return self.money == "hidden"

    def to_json(self) -> dict[str, object]:
        return {
            "players": self.players,
            "money": self.money,
            "face_down_counts_as_available": self.face_down_counts_as_available,
        }

    def __getitem__(self, key: str) -> object:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_OPTION_NAMES)

    def __len__(self) -> int:
        return len(_OPTION_NAMES)


_OPTION_NAMES: Final = ("players", "money", "face_down_counts_as_available")

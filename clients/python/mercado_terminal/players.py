"""The guest player ``mercado play`` signs in as: one per server, kept in the player file, and more
kept under names of their own (``--as NAME``) for other people playing on the same computer.

A guest player is created on a server (CreatePlayer) the first time the terminal plays there,
and its secret player token is kept so that the terminal is the same player, with the same
rating, the next time. The file holds secrets, so it is kept as the seat file is (``held.py``:
mode 0600, rewritten atomically under a lock), beside it by default:
{"players": [SavedPlayer, ...]}, a player kept ``--as`` a name with that name as "as".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from .held import DataFileError, PrivateFile
from .held import default_path as default_seats_path

FILE_NAME = "players.json"


def default_path(seats_file: Path | None = None) -> Path:
    """Beside the seat file (``seats_file``, else the user's data directory's), e.g.
    ~/.local/share/mercado/players.json."""
    return (seats_file or default_seats_path()).with_name(FILE_NAME)


class PlayerFileError(DataFileError):
    """The player file exists but cannot be read as one."""


@dataclass(frozen=True)
class SavedPlayer:
    server: str  # the server's address, as given to --server
    player_id: str
    token: str  # secret: the player credential
    name: str  # its display name on that server
    kept_as: str = ""  # the name ``--as`` keeps it under; "" for the terminal's own player


class PlayerFile:
    """The guest players of each server: the terminal's own, and those kept ``--as`` a name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = PrivateFile(path, "the player file", PlayerFileError)

    def player(self, server: str, kept_as: str = "") -> SavedPlayer | None:
        """The player kept for ``server`` (``kept_as`` a name); None when there is none."""
        return next((p for p in self._read() if (p.server, p.kept_as) == (server, kept_as)), None)

    def keep(self, player: SavedPlayer, replacing: SavedPlayer | None = None) -> SavedPlayer:
        """Keep ``player`` as its server's (under its ``kept_as``), unless another one is kept there
        already (another terminal was quicker), which is returned instead. ``replacing``: the kept
        player to give up for ``player`` (its server no longer knows it)."""
        place = (player.server, player.kept_as)
        with self.file.locked():
            players = self._read()
            kept = next((p for p in players if (p.server, p.kept_as) == place), None)
            if kept is not None and kept != replacing:
                return kept
            self._write([*(p for p in players if (p.server, p.kept_as) != place), player])
            return player

    def forget(self, player: SavedPlayer) -> None:
        """Drop ``player`` (if still kept)."""
        with self.file.locked():
            players = self._read()
            kept = [p for p in players if p != player]
            if len(kept) != len(players):
                self._write(kept)

    def _read(self) -> list[SavedPlayer]:
        value = self.file.read()
        if value is None:
            return []
        try:
            return [
                SavedPlayer(
                    str(i["server"]),
                    str(i["player_id"]),
                    str(i["token"]),
                    str(i["name"]),
                    str(i.get("as", "")),
                )
                for i in value["players"]
            ]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise self.file.damaged(error) from None

    def _write(self, players: list[SavedPlayer]) -> None:
        self.file.write({"players": [self._entry(p) for p in players]})

    @staticmethod
    def _entry(player: SavedPlayer) -> dict[str, str]:
        entry = asdict(player)
        kept_as = entry.pop("kept_as")
        return {**entry, "as": kept_as} if kept_as else entry

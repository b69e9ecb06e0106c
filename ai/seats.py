"""The seats an agent plays, kept in a file, so that an agent started again resumes them."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class HeldSeat:
    server: str  # the server's address
    match_id: str
    seat: int
    token: str  # secret: the file is readable by its owner only
    level: str


class SeatFile:
    """Held seats in a JSON file, rewritten whole (atomically) at every change."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, server: str) -> list[HeldSeat]:
        """The seats held on ``server``."""
        return [seat for seat in self._all() if seat.server == server]

    def add(self, seat: HeldSeat) -> None:
        self._save([*self._all(), seat])

    def remove(self, seat: HeldSeat) -> None:
        self._save([s for s in self._all() if s != seat])

    def _all(self) -> list[HeldSeat]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return []
        return [HeldSeat(**item) for item in data.get("seats", [])]

    def _save(self, seats: list[HeldSeat]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"seats": [asdict(seat) for seat in seats]}, indent=1)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name)
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

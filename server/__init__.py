"""The server: the games' rules, the match service, storage, the RPC layer and the CLI."""

from pathlib import Path

from .compiled import check_fresh

for _package in (Path(__file__).parent / "games").iterdir():
    if _package.is_dir():
        check_fresh(_package)

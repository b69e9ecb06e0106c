"""The compiled rules engine (``make compile``) plays exactly as its source, and is never stale."""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.compiled import build_of, check_fresh
from server.games.mercado import rules

ROOT = Path(__file__).resolve().parents[3]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

# Seeded random games through every entry point the compiled modules serve; prints one digest.
DIGEST = """
import hashlib, json, random, sys
from server.games.mercado import (
    Determinizer, Options, apply, legal_actions, new_game, payments, player_view, position, rules)
from server.compiled import build_of
digest = hashlib.sha256()
for players, money in ((2, "hidden"), (3, "public"), (4, "hidden")):
    for seed in range(6):
        rng = random.Random(seed)
        state = new_game(Options(players=players, money=money), seed)
        while not state.is_terminal:
            actions = legal_actions(state)
            seat = state.current
            record = [
                [a.to_json() for a in actions],
                [payments(state, a) for a in actions],
                [player_view(state, s) for s in (None, *range(players))],
                position.to_json(Determinizer(player_view(state, seat), list(state.coins)).sample(rng)),
            ]
            record.append(apply(state, actions[rng.randrange(len(actions))]))
            digest.update(json.dumps(record, sort_keys=True, default=list).encode())
        digest.update(json.dumps(position.to_json(state), sort_keys=True).encode())
print(build_of(rules.__file__), digest.hexdigest())
"""


def _digest(root: Path) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", DIGEST], cwd=root, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0], out[1]


@pytest.mark.skipif(build_of(rules.__file__) != "compiled", reason="the engine is not compiled here")
def test_the_compiled_engine_plays_exactly_as_its_source(tmp_path: Path) -> None:
    # The sources alone, without the extension modules beside them: the interpreted engine.
    (tmp_path / "server/games").mkdir(parents=True)
    for module in ("__init__.py", "compiled.py"):
        shutil.copy(ROOT / "server" / module, tmp_path / "server")
    for module in (ROOT / "server/games").glob("*.py"):
        shutil.copy(module, tmp_path / "server/games")
    shutil.copytree(
        ROOT / "server/games/mercado",
        tmp_path / "server/games/mercado",
        ignore=shutil.ignore_patterns("*.so", "__pycache__"),
    )

    compiled, interpreted = _digest(ROOT), _digest(tmp_path)
    assert (compiled[0], interpreted[0]) == ("compiled", "interpreted")
    assert compiled[1] == interpreted[1]


def _touch(path: Path, mtime: float) -> None:
    path.write_bytes(b"")
    os.utime(path, (mtime, mtime))


def test_a_compiled_module_older_than_its_source_is_refused(tmp_path: Path) -> None:
    _touch(tmp_path / "rules.py", 2000)
    _touch(tmp_path / f"rules{SUFFIX}", 1000)
    _touch(tmp_path / f"engine__mypyc{SUFFIX}", 500)  # the modules' shared library: no source of its own
    with pytest.raises(ImportError, match=r"rules\.py changed after it was compiled: run `make compile`"):
        check_fresh(tmp_path)

    os.utime(tmp_path / f"rules{SUFFIX}", (3000, 3000))
    check_fresh(tmp_path)

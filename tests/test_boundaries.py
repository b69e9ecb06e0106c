"""The layering of docs/architecture.md, enforced: the games' rules do no I/O and know no other game's,
the AI sees no server internals, the client library needs nothing but gRPC and protobuf."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from positions import ROOT

# The only absolute imports the pure rules of every game may make, besides the
# games' shared interface and chance (server.games.interface, server.games.rng). ``random`` only
# for the random.Random a sampler is handed: never its global state.
ENGINE_ALLOWED = {
    "__future__",
    "bisect",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "itertools",
    "math",
    "operator",
    "random",
    "typing",
}
GAMES_SHARED = ("server.games.interface", "server.games.rng")
# Server layers the AI must not reach into: it plays through the public API like any client.
AI_FORBIDDEN = ("server.match", "server.store", "server.rpc", "server.cli")


def imported_modules(path: Path) -> list[str]:
    """Absolute module names imported by a source file (relative imports excluded)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def test_rules_import_nothing_that_does_io() -> None:
    sources = sorted((ROOT / "server" / "games").rglob("*.py"))
    assert sources
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources
        for name in imported_modules(path)
        if name.split(".")[0] not in ENGINE_ALLOWED and name not in GAMES_SHARED
    ]
    assert offenders == []


def test_a_game_knows_no_other_games_rules() -> None:
    games = ROOT / "server" / "games"
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for package in sorted(p for p in games.iterdir() if p.is_dir() and p.name != "__pycache__")
        for path in sorted(package.rglob("*.py"))
        for name in imported_modules(path)
        if name.startswith(("server.games.", "server.games.mercado"))
        and name not in GAMES_SHARED
        and not name.startswith(f"server.games.{package.name}")
    ]
    assert offenders == []


def test_ai_does_not_import_server_internals() -> None:
    sources = sorted((ROOT / "ai").rglob("*.py"))
    assert sources
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources
        for name in imported_modules(path)
        if name.startswith(AI_FORBIDDEN)
    ]
    assert offenders == []


def test_ai_uses_only_the_engines_public_api() -> None:
    """The engine's package and its component data, never its internals."""
    allowed = {"server.games.mercado", "server.games.mercado.components"}
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "ai").rglob("*.py"))
        for name in imported_modules(path)
        if name.startswith("server.games.mercado") and name not in allowed
    ]
    assert offenders == []


def test_checker_sees_forbidden_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import grpc\nfrom sqlite3 import connect\nfrom . import rules\n", encoding="utf-8")
    assert imported_modules(sample) == ["grpc", "sqlite3"]


def test_the_client_library_imports_only_grpc_and_protobuf() -> None:
    """``mercado-client`` depends on grpcio and protobuf alone: no server, AI, terminal or other package."""
    allowed = ("grpc", "google.protobuf", "mercado.v1", "mercado_client")
    sources = sorted((ROOT / "clients" / "python" / "mercado_client").rglob("*.py"))
    assert sources
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources
        for name in imported_modules(path)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith(allowed)
    ]
    assert offenders == []

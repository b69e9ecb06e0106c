"""The Python client as a developer installs it: ``python -m build`` makes its sdist and, from it,
its wheel; the wheel, installed into a fresh virtual environment with nothing else, plays a match of
each game against a real server and AI agent by running the client README's example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import time
import venv
from email.parser import HeaderParser
from pathlib import Path
from zipfile import ZipFile

import pytest
from positions import ROOT
from server_process import AgentProcess, ServerProcess

pytestmark = pytest.mark.slow

CLIENT = ROOT / "clients" / "python"
VERSION = (ROOT / "VERSION").read_text(encoding="utf-8").strip()
EXAMPLE_TARGET = "127.0.0.1:50051"
AGENT_START_SECONDS = 30.0


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(CLIENT)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def test_python_m_build_in_the_repository_finds_the_build_package_not_a_folder(tmp_path: Path) -> None:
    """A Python without the build package says so, run from the repository's root: no folder of
    the repository (the compiled engine's build folder was one) stands for the package."""
    bare = tmp_path / "bare"
    venv.create(bare)  # no pip, nor anything else
    ran = subprocess.run(
        [str(bare / "bin" / "python"), "-m", "build", "clients/python"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ran.returncode != 0
    assert "No module named build" in ran.stderr and "is a package" not in ran.stderr, ran.stderr


def only(paths: list[Path]) -> Path:
    assert len(paths) == 1, paths
    return paths[0]


def readme_example() -> str:
    """The first Python block of the client's README."""
    text = (CLIENT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "the client's README has no Python example"
    return match.group(1)


def test_the_wheel_holds_the_library_and_its_typed_messages_and_nothing_else(dist: Path) -> None:
    wheel = ZipFile(only(list(dist.glob("*.whl"))))
    names = wheel.namelist()
    for needed in ("mercado_client/client.py", "mercado_client/py.typed", "mercado/py.typed"):
        assert needed in names
    for proto in ("match", "players", "mercado", "oregano", "leilao"):
        assert f"mercado/v1/{proto}_pb2.py" in names and f"mercado/v1/{proto}_pb2.pyi" in names
    assert not [n for n in names if n.split("/")[0] in ("server", "ai", "mercado_terminal", "tests")]
    metadata = HeaderParser().parsestr(wheel.read(f"mercado_client-{VERSION}.dist-info/METADATA").decode())
    assert metadata["Name"] == "mercado-client" and metadata["Version"] == VERSION
    required = {re.split(r"[<>=!~; ]", r)[0] for r in metadata.get_all("Requires-Dist") or []}
    assert required == {"grpcio", "protobuf"}
    assert f"mercado_client-{VERSION}.dist-info/licenses/LICENSE" in names


def test_the_sdist_has_what_the_wheel_is_built_from(dist: Path) -> None:
    with tarfile.open(only(list(dist.glob("*.tar.gz")))) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for needed in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "mercado_client/client.py",
        "gen/mercado/v1/match_pb2.pyi",
    ):
        assert needed in names
    assert not [n for n in names if n.startswith("mercado_terminal")]


def canonical(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(python: Path) -> set[str]:
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True
    )
    return {canonical(package["name"]) for package in json.loads(listed.stdout)}


def requirements_of(python: Path, *distributions: str) -> set[str]:
    """What ``distributions`` themselves require (no extras), by their installed metadata."""
    script = (
        "import importlib.metadata as m, sys\n"
        "print(*(r for d in sys.argv[1:] for r in m.requires(d) or []), sep='\\n')"
    )
    listed = subprocess.run(
        [str(python), "-c", script, *distributions], capture_output=True, text=True, check=True
    )
    required = [line for line in listed.stdout.splitlines() if line and "extra ==" not in line]
    return {canonical(re.split(r"[<>=!~; \\[]", r)[0]) for r in required}


@pytest.mark.timeout(900)
def test_the_readme_example_plays_a_match_with_the_wheel_alone(
    dist: Path, own_server: ServerProcess, tmp_path: Path
) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    before = installed(python)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(only(list(dist.glob("*.whl"))))], check=True, capture_output=True)
    assert installed(python) - before == {"mercado-client", "grpcio", "protobuf"} | requirements_of(
        python, "grpcio", "protobuf"
    )

    agent = AgentProcess(own_server.target, tmp_path / "agent.log", tmp_path / "seats.json")
    try:
        deadline = time.monotonic() + AGENT_START_SECONDS
        while not agent.started():
            assert agent.process.poll() is None and time.monotonic() < deadline, agent.tail()
            time.sleep(0.05)
        program = tmp_path / "example.py"
        program.write_text(readme_example().replace(EXAMPLE_TARGET, own_server.target), encoding="utf-8")
        # Run away from the repository, so that only the installed packages can be imported.
        played = subprocess.run(
            [str(python), "-I", str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
    finally:
        agent.kill()
    assert played.returncode == 0, played.stderr[-3000:] + agent.tail()
    for game in ("mercado", "oregano", "leilao"):  # each game's result, and the score of seat 1 in parts
        result = rf"^{game} scores: \[-?\d+, -?\d+\] ranks: \[[12], [12]\]\n(  [^:\n]+: -?\d+\n)+"
        assert re.search(result, played.stdout, re.M), played.stdout
    unavailable = subprocess.run(
        [str(python), "-I", "-c", "import server"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "No module named 'server'" in unavailable.stderr

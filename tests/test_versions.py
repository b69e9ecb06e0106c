"""One version for the API and every client: VERSION, which ``make generate`` writes into each
package (scripts/generate-version.sh). Every copy agrees with it."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import mercado_client
import pytest
from positions import ROOT

VERSION = (ROOT / "VERSION").read_text(encoding="utf-8").strip()


def test_the_version_is_major_minor_patch() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)


def test_the_python_distributions_have_it() -> None:
    assert importlib.metadata.version("mercado") == VERSION
    assert importlib.metadata.version("mercado-client") == VERSION
    assert mercado_client.__version__ == VERSION


def test_the_server_depends_on_the_client_of_the_same_version() -> None:
    required = importlib.metadata.requires("mercado") or []
    assert f"mercado-client=={VERSION}" in required


@pytest.mark.parametrize("package", ["typescript", "web"])
def test_the_npm_packages_and_their_lockfiles_have_it(package: str) -> None:
    directory = ROOT / "clients" / package
    manifest = json.loads((directory / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((directory / "package-lock.json").read_text(encoding="utf-8"))
    assert manifest["version"] == lock["version"] == lock["packages"][""]["version"] == VERSION


def test_the_go_and_typescript_constants_have_it() -> None:
    go = (ROOT / "clients" / "go" / "mercado" / "version.go").read_text(encoding="utf-8")
    typescript = (ROOT / "clients" / "typescript" / "src" / "version.ts").read_text(encoding="utf-8")
    assert f'const Version = "{VERSION}"' in go
    assert f'export const VERSION = "{VERSION}";' in typescript


def test_mercado_version_prints_it() -> None:
    printed = subprocess.run([sys.executable, "-m", "server", "--version"], capture_output=True, text=True)
    assert printed.returncode == 0 and VERSION in printed.stdout


def test_the_readmes_name_it_where_they_name_a_version() -> None:
    readmes = [ROOT / "README.md", *sorted((ROOT / "clients").glob("*/README.md"))]
    named = {
        (readme.relative_to(ROOT).as_posix(), version)
        for readme in readmes
        for version in re.findall(r"@v(\d+\.\d+\.\d+)", readme.read_text(encoding="utf-8"))
    }
    assert named, "no README names a version"
    assert {version for _, version in named} == {VERSION}, named

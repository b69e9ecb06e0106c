"""``mercado serve``'s options: each documented in the README with its environment variable, and
inconsistent ones refused before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from positions import ROOT

from server.cli.serve import serve


def test_every_option_is_in_the_readme_with_its_environment_variable() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    options = [p for p in serve.params if isinstance(p, click.Option) and p.name != "help"]
    assert len(options) > 20
    for option in options:
        assert f"`{option.opts[0]}" in readme, option.opts[0]
        assert option.envvar and f"`{option.envvar}`" in readme, option.envvar


@pytest.mark.parametrize(
    ("flags", "complaint"),
    [
        (["--tls-cert", "README.md"], "--tls-cert and --tls-key go together"),
        (["--agent-key", "short"], "at least 16 characters"),
        (["--rate-limit", "Nope=1/1"], "is not 'all' or one of"),
        (["--rate-limit-exempt", "10.0.0.300/8"], "does not appear to be an IPv4 or IPv6 network"),
    ],
)
def test_inconsistent_options_are_usage_errors(tmp_path: Path, flags: list[str], complaint: str) -> None:
    command = [sys.executable, "-m", "server", "serve", "--db", str(tmp_path / "x.db"), *flags]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and complaint in done.stderr, done.stderr
    assert not (tmp_path / "x.db").exists()  # refused before anything was opened

"""Every block of the READMEs (the repository's and each client's) runs as written, in a fresh
directory, against a real server where it needs one.

Each fenced block is preceded by an HTML comment, which a reader of the rendered page does not
see, saying how it runs, or why it does not:

    <!-- readme-test: run [cwd=DIR] [file=NAME with=COMMAND] [server] [before=COMMAND]
         [needs=TOOL] [expect=REGEX] -->
    <!-- readme-test: skip REASON -->

The blocks of one README run in order, in one scratch directory holding a fresh checkout of the
repository in ``mercado/`` (its files as a clone has them: no ``.venv``, no ``node_modules``),
beside which the reader makes a project of their own. A shell block runs with bash, stopping at
the first command that fails, in ``DIR`` (the scratch directory by default); a block with
``file=`` is saved in ``DIR`` as ``NAME``, and ``COMMAND`` runs it there. ``server``: a server and
an AI agent run, as ``make run`` starts them (players may be anonymous; bot seats are played);
``127.0.0.1:50051``, ``make run``'s address in the block, is that server's, and ``MERCADO_SERVER``
names it for the commands that default to it. ``before=``: what the prose around the block has the
reader do first, run in the scratch directory. ``needs=``: a tool this machine may lack (the test
is skipped without it). ``expect=``: what the output must show (a regular expression, searched
line by line). A block without such a comment fails the test: each one runs, or says why not.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from positions import ROOT
from server_process import AgentProcess, ServerProcess

READMES = [ROOT / "README.md", *sorted((ROOT / "clients").glob("*/README.md"))]
ANNOTATION = re.compile(r"^<!--\s*readme-test:\s*(run|skip)\b\s*(.*?)\s*-->$")
FENCE = re.compile(r"^(`{3,})(\S*)\s*$")
MAKE_RUN_ADDRESS = "127.0.0.1:50051"
BLOCK_SECONDS = 600.0  # npm ci, a build, or a match against the AI on a loaded machine
AGENT_START_SECONDS = 30.0
OPTIONS = {"cwd", "file", "with", "before", "needs", "expect"}


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


@dataclass(frozen=True)
class Block:
    """A fenced block of a README and how it runs."""

    readme: Path
    line: int  # of its opening fence, 1-based
    text: str
    run: bool
    reason: str = ""  # why a skipped block is not run
    options: dict[str, str] = field(default_factory=dict)
    server: bool = False

    @property
    def where(self) -> str:
        return f"{shown(self.readme)}:{self.line}"


def blocks(readme: Path) -> list[Block]:
    """The README's fenced blocks with their annotations; ValueError for a block without one (or
    with a malformed one), and for a code block written by indentation."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        fence = FENCE.match(line)
        if fence is None:
            previous = lines[number - 1] if number else ""
            if re.match(r"^ {4}\S", line) and not previous.strip() and not _in_list(lines, number):
                raise ValueError(f"{shown(readme)}:{number + 1}: write the code block fenced (```)")
            number += 1
            continue
        end = next(
            (i for i in range(number + 1, len(lines)) if lines[i].strip() == fence.group(1)), len(lines)
        )
        found.append(_block(readme, number, lines[number - 1] if number else "", lines[number + 1 : end]))
        number = end + 1
    return found


def _in_list(lines: list[str], number: int) -> bool:
    """Whether the indented line continues a list item (its paragraph goes on after a blank line)."""
    for previous in reversed(lines[:number]):
        if previous.strip():
            return bool(re.match(r"^\s*([-*+]|\d+\.)\s", previous)) or previous.startswith("  ")
    return False


def _block(readme: Path, number: int, comment: str, body: list[str]) -> Block:
    where = f"{shown(readme)}:{number + 1}"
    annotation = ANNOTATION.match(comment.strip())
    if annotation is None:
        raise ValueError(
            f"{where}: the block has no <!-- readme-test: run ... --> or <!-- readme-test: skip WHY -->"
        )
    text = "\n".join(body) + "\n"
    if annotation.group(1) == "skip":
        if not annotation.group(2):
            raise ValueError(f"{where}: a skipped block says why")
        return Block(readme, number + 1, text, run=False, reason=annotation.group(2))
    words = shlex.split(annotation.group(2))
    options = dict(word.split("=", 1) for word in words if "=" in word)
    flags = {word for word in words if "=" not in word}
    if set(options) - OPTIONS or flags - {"server"} or ("file" in options) != ("with" in options):
        raise ValueError(f"{where}: unknown or incomplete options {annotation.group(2)!r}")
    return Block(readme, number + 1, text, run=True, options=options, server="server" in flags)


@pytest.mark.parametrize("readme", READMES, ids=shown)
def test_every_block_says_how_it_runs(readme: Path) -> None:
    assert blocks(readme), f"{readme} has no block"


def test_the_annotations_are_read_as_written(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    page.write_text(
        "<!-- readme-test: run cwd=app file=main.py with=\"python main.py\" server expect='^ok$' -->\n"
        "```python\nprint('ok')\n```\n\n<!-- readme-test: skip interactive -->\n```sh\nmake run\n```\n"
        "```sh\nls\n```\n"
    )
    with pytest.raises(ValueError, match=r"README.md:10: the block has no"):
        blocks(page)
    page.write_text(page.read_text().rsplit("```sh\nls", 1)[0])
    ran, skipped = blocks(page)
    assert ran.options == {"cwd": "app", "file": "main.py", "with": "python main.py", "expect": "^ok$"}
    assert ran.server and ran.text == "print('ok')\n" and ran.line == 2
    assert not skipped.run and skipped.reason == "interactive"
    page.write_text("Text.\n\n    make run\n")
    with pytest.raises(ValueError, match="write the code block fenced"):
        blocks(page)


# --- running them -------------------------------------------------------------------------------


def fresh_checkout(into: Path) -> None:
    """The repository's files as a clone of them has them: those git tracks, or would."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@dataclass
class Scratch:
    """A README's scratch directory, with the server its blocks play against once one needs it."""

    path: Path
    server: ServerProcess | None = None
    agent: AgentProcess | None = None

    def target(self) -> str:
        if self.server is None:
            self.server = ServerProcess(self.path / "server.db", web_port=-1).start()
            self.agent = AgentProcess(self.server.target, self.path / "agent.log", self.path / "seats.json")
            deadline = time.monotonic() + AGENT_START_SECONDS
            while not self.agent.started():  # from its first heartbeat on, bot seats are accepted
                assert self.agent.process.poll() is None and time.monotonic() < deadline, self.agent.tail()
                time.sleep(0.05)
        return self.server.target

    def close(self) -> None:
        if self.agent is not None:
            self.agent.kill()
        if self.server is not None:
            self.server.stop()


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Scratch]:
    fresh_checkout(tmp_path / "mercado")
    made = Scratch(tmp_path)
    yield made
    made.close()


def run(block: Block, scratch: Scratch) -> str:
    """Run ``block`` as its annotation says; its output (stdout and stderr)."""
    needs = block.options.get("needs")
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{block.where} runs {needs}, which this machine does not have")
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    text = block.text
    if block.server:
        target = scratch.target()
        environment["MERCADO_SERVER"] = target
        text = text.replace(MAKE_RUN_ADDRESS, target)
    if "before" in block.options:
        shell(block.options["before"], scratch.path, environment, block)
    cwd = scratch.path / block.options.get("cwd", ".")
    if "file" in block.options:
        (cwd / block.options["file"]).write_text(text, encoding="utf-8")
        text = block.options["with"]
    return shell(text, cwd, environment, block)


def shell(script: str, cwd: Path, environment: dict[str, str], block: Block) -> str:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BLOCK_SECONDS,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where} failed (exit {done.returncode}):\n{script}\n{output[-4000:]}"
    return output


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("readme", READMES, ids=shown)
def test_every_block_runs_as_written(readme: Path, scratch: Scratch) -> None:
    for block in blocks(readme):
        if not block.run:
            continue
        output = run(block, scratch)
        expected = block.options.get("expect")
        if expected:
            assert re.search(expected, output, re.M), f"{block.where}: no {expected!r} in:\n{output[-3000:]}"

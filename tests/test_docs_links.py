"""Every relative reference in the documentation leads somewhere: the pages of ``docs/``, the READMEs
and the comments of ``proto/`` (from which ``docs/api.md`` is generated).

A reference is a Markdown link (``[text](path#heading)``: the file, and for a ``.md`` file the
heading or ``<a name>`` its anchor names), or a path written as code: ```docs/players.md``` in a
page, ``docs/players.md`` in a proto comment. A path is read from the page's own folder, then
from the repository's root (a client's README names its own files and the repository's alike).
Placeholders (``<name>``, ``X.Y.Z``, ``*``), what a build or the reader makes (``dist/``,
``.venv``, ``deploy/.env``) and paths of the reader's own project (``../mercado/clients/go``) are
not references.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from positions import ROOT

PAGES = sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md", *(ROOT / "clients").glob("*/README.md")])
PROTOS = sorted((ROOT / "proto" / "mercado").rglob("*.proto"))
# The folders a path written as code must start with to be read as one (besides the page's own).
TOP = ("docs", "proto", "server", "ai", "clients", "scripts", "deploy", "tests", "bench")
# What a build, a test run or the reader makes: named in the docs, never in the repository.
MADE = re.compile(r"(^|/)(dist|node_modules|\.bin|\.venv|build|test-results)(/|$)|\.(db|tgz|whl|log|env)$")
PLACEHOLDER = re.compile(r"[<>*{}…]|X\.Y\.Z|VERSION\b|\bNAME\b|\.\.\.")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
PATH = re.compile(r"^\.{0,2}/?[\w.-]+(/[\w.-]+)*/?$")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
NAMED = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set(NAMED.findall(text))
    counts: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        found.add(base if base not in counts else f"{base}-{counts[base]}")
        counts[base] = counts.get(base, 0) + 1
    return found


def resolve(source: Path, target: str) -> Path | None:
    """The file or folder ``target`` names, from ``source``'s folder or else the root."""
    for base in (source.parent, ROOT):
        candidate = (base / target).resolve()
        if candidate.exists() and candidate.is_relative_to(ROOT):
            return candidate
    return None


def broken_link(source: Path, target: str) -> str | None:
    """Why the Markdown link ``target`` of ``source`` leads nowhere, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
        return None
    path, _, anchor = target.partition("#")
    page = source if not path else resolve(source, path)
    if page is None:
        return f"no file {path}"
    if anchor and page.suffix == ".md" and anchor not in anchors(page):
        return f"no heading #{anchor} in {page.relative_to(ROOT)}"
    return None


def named_path(text: str, source: Path) -> bool:
    """Whether code text is a path in the repository that a reader is sent to."""
    if not PATH.match(text) or PLACEHOLDER.search(text) or MADE.search(text) or text.startswith(".."):
        return False  # a path starting with ".." is one of the reader's own project
    first = text.lstrip("./").split("/")[0]
    if "/" in text.strip("/"):
        return first in TOP or (source.parent / first).is_dir()
    return text.endswith(".md")  # a page named alone: CHANGELOG.md


def references(source: Path) -> list[tuple[str, str | None]]:
    """(reference, why it is broken or None) for every reference of a page or proto file."""
    text = source.read_text(encoding="utf-8")
    found: list[tuple[str, str | None]] = []
    if source.suffix == ".proto":
        comments = "\n".join(line.split("//", 1)[1] for line in text.splitlines() if "//" in line)
        words = (word.strip("`'\"(),.;:") for word in comments.split())
        for word in words:
            if "/" in word and word.split("/")[0] in TOP and named_path(word, source):
                found.append((word, None if resolve(source, word) else f"no file {word}"))
        return found
    prose = FENCE.sub("", text)
    for link in LINK.finditer(CODE.sub("", prose)):
        target = link.group(1) or link.group(2)
        found.append((target, broken_link(source, target)))
    for code in CODE.findall(prose):
        for word in code.split():
            if named_path(word, source):
                found.append((word, None if resolve(source, word.split("#")[0]) else f"no file {word}"))
    return found


@pytest.mark.parametrize("source", PAGES + PROTOS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_reference_leads_somewhere(source: Path) -> None:
    broken = [f"{target}: {why}" for target, why in references(source) if why]
    assert not broken, "\n".join(broken)


def test_the_checker_sees_links_paths_and_headings(tmp_path: Path) -> None:
    assert slug("Revoking a guest's token") == "revoking-a-guests-token"
    assert slug("1. The rules: `server/games/<name>/`") == "1-the-rules-servergamesname"
    assert "fair-use" in anchors(ROOT / "docs" / "operating.md")
    page = ROOT / "docs" / "players.md"
    assert broken_link(page, "operating.md#fair-use") is None
    assert broken_link(page, "operating.md#nowhere") == "no heading #nowhere in docs/operating.md"
    assert broken_link(page, "missing.md") == "no file missing.md"
    assert broken_link(page, "https://example.com/x.md") is None
    assert named_path("docs/players.md", page) and named_path("RULES.md", page)
    assert not named_path("clients/web/dist", page) and not named_path("docs/<name>.md", page)
    assert not named_path("mercado.db", page) and not named_path("a/b", page)

"""The API reference, docs/api.md, generated from the comments of proto/ (scripts/generate-docs.sh):
it reads as Markdown, with the comments' text as written, and documents every field a frontend reads
of every game."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_tools import protoc
from mercado.v1 import match_pb2 as api
from positions import ROOT

API_MD = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_the_reference_has_no_html_escapes() -> None:
    """Quotes and angle brackets stay as written: in Markdown (a code span above all) an escape such as
    &#34; or &lt; shows as it is."""
    escapes = sorted(set(re.findall(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);", API_MD)))
    assert escapes == []
    assert '`{"type": "bid", "card": 4, "extra": 9}`' in API_MD
    assert "`authorization: Bearer <token>`" in API_MD


def _described_fields(tmp_path: Path) -> dict[str, dict[str, str]]:
    """Every message of proto/ by full name: each field's comment (leading and trailing), from the
    source the reference is made from."""
    out = tmp_path / "api.pb"
    include = resources.files("grpc_tools") / "_proto"
    files = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    status = protoc.main(
        ["protoc", f"-I{ROOT / 'proto'}", f"-I{include}", "--include_source_info", f"-o{out}", *files]
    )
    assert status == 0
    descriptors = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    messages: dict[str, dict[str, str]] = {}
    for file in descriptors.file:
        comments = {
            tuple(location.path): (location.leading_comments + location.trailing_comments).strip()
            for location in file.source_code_info.location
        }

        for i, message in enumerate(file.message_type):
            _walk(message, (MESSAGE, i), f".{file.package}", comments, messages)
    return messages


def _walk(
    message: descriptor_pb2.DescriptorProto,
    path: tuple[int, ...],
    scope: str,
    comments: dict[tuple[int, ...], str],
    messages: dict[str, dict[str, str]],
) -> None:
    name = f"{scope}.{message.name}"
    messages[name] = {
        field.name: comments.get((*path, FIELD, i), "") for i, field in enumerate(message.field)
    }
    for j, nested in enumerate(message.nested_type):
        _walk(nested, (*path, NESTED, j), name, comments, messages)


MESSAGE, FIELD, NESTED = 4, 2, 3  # descriptor.proto's field numbers: a path to a comment names them
# Where a frontend finds every game's messages: their every field is documented.
ROOTS = (".mercado.v1.View", ".mercado.v1.Event", ".mercado.v1.ActionPreview", ".mercado.v1.GameResult")


def test_every_field_of_every_games_view_event_options_preview_and_score_is_documented(
    tmp_path: Path,
) -> None:
    messages = _described_fields(tmp_path)
    pool = descriptor_pool.Default()
    options = [
        f".{field.message_type.full_name}"
        for field in api.CreateMatchRequest.DESCRIPTOR.oneofs_by_name["options"].fields
    ]
    seen: set[str] = set()
    undocumented = []
    stack = [*ROOTS, *options]
    while stack:
        name = stack.pop()
        if name in seen or not name.startswith(".mercado.v1."):
            continue
        seen.add(name)
        undocumented += [f"{name[1:]}.{field}" for field, comment in messages[name].items() if not comment]
        descriptor = pool.FindMessageTypeByName(name[1:])
        stack += [f".{f.message_type.full_name}" for f in descriptor.fields if f.message_type is not None]
    assert ".mercado.v1.LeilaoBidOptions" in seen and ".mercado.v1.ScorePart" in seen
    assert undocumented == []
    for name in seen:  # and the reference shows them
        assert f'<a name="{name[1:].replace(".", "-")}"></a>' in API_MD

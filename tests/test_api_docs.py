"""The API reference, docs/api.md, generated from the comments of proto/ (scripts/generate-docs.sh):
it reads as Markdown, with the comments' text as written."""

from __future__ import annotations

import re

from positions import ROOT

API_MD = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_the_reference_has_no_html_escapes() -> None:
    """Quotes and angle brackets stay as written: in Markdown (a code span above all) an escape such as
    &#34; or &lt; shows as it is."""
    escapes = sorted(set(re.findall(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);", API_MD)))
    assert escapes == []
    assert '`{"type": "bid", "card": 4, "extra": 9}`' in API_MD
    assert "`authorization: Bearer <token>`" in API_MD

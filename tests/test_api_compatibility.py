"""The API stays backward compatible within v1: scripts/check-api.sh (``buf breaking`` against the
last release's API in proto/releases/) passes for proto/, and refuses a change that would break
clients of that release."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from positions import ROOT

CHECK = ROOT / "scripts" / "check-api.sh"


def check(proto: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHECK), str(proto)], capture_output=True, text=True, timeout=300)


def test_the_api_is_compatible_with_the_last_release() -> None:
    checked = check(ROOT / "proto")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "backward compatible with v" in checked.stdout


def check_edited(tmp_path: Path, old: str, new: str) -> str:
    """The check's output for a copy of proto/ whose match.proto has ``old`` replaced by ``new``;
    asserts that the check refused it."""
    proto = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", proto, ignore=shutil.ignore_patterns("releases"))
    match = proto / "mercado" / "v1" / "match.proto"
    text = match.read_text(encoding="utf-8")
    assert old in text
    match.write_text(text.replace(old, new), encoding="utf-8")
    checked = check(proto)
    assert checked.returncode != 0
    return checked.stdout + checked.stderr


def test_a_deleted_field_is_refused(tmp_path: Path) -> None:
    output = check_edited(tmp_path, "  uint64 expected_version = 2;", "  reserved 2;")
    assert 'field "2" with name "expected_version"' in output


def test_a_renumbered_enum_value_is_refused(tmp_path: Path) -> None:
    output = check_edited(tmp_path, "MATCH_STATUS_FINISHED = 3;", "MATCH_STATUS_FINISHED = 7;")
    assert 'enum value "3" on enum "MatchStatus"' in output

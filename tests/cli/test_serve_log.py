"""``mercado serve --log-file``: the JSON lines go to the file, and stderr shows a person only the
warnings and errors, one short line each."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.cli.serve import configure_logging


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def test_the_log_goes_to_the_file_and_warnings_to_stderr_in_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], restored_logging: None
) -> None:
    path = tmp_path / "data" / "server.log"
    configure_logging("info", path)
    log = logging.getLogger("mercado.server")
    log.info("listening", extra={"port": 50051})
    log.warning("web port unavailable: serving gRPC only", extra={"web_port": 8080})
    try:
        raise OSError("disk full")
    except OSError:
        log.exception("storage write failed")
    assert capsys.readouterr().err.splitlines() == [
        "mercado serve: warning: web port unavailable: serving gRPC only (web_port=8080)",
        "mercado serve: error: storage write failed (error=OSError: disk full)",
    ]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["levelname"], r["message"]) for r in records] == [
        ("INFO", "listening"),
        ("WARNING", "web port unavailable: serving gRPC only"),
        ("ERROR", "storage write failed"),
    ]
    assert records[0]["port"] == 50051 and "disk full" in records[2]["exc_info"]

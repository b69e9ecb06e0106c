"""The client tests share the end-to-end tests' real-server helper (tests/e2e/server_process.py)."""

from __future__ import annotations

import sys
from pathlib import Path

E2E = str(Path(__file__).resolve().parent.parent / "e2e")
if E2E not in sys.path:
    sys.path.append(E2E)

"""A compiled rules engine (``make compile``) that still matches its source.

Python imports an extension module in preference to the ``.py`` beside it, so after an edit the
old compiled code would run silently. ``server/__init__.py`` checks every game's package with
:func:`check_fresh` before any of them is imported (the rules themselves do no I/O) and raises a
clear error instead.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path


def compiled_modules(package_dir: Path) -> list[tuple[Path, Path]]:
    """Each extension module of the package compiled from one of its sources, with that source (the
    modules' shared library has none)."""
    pairs = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for compiled in package_dir.glob(f"*{suffix}"):
            source = compiled.with_name(compiled.name[: -len(suffix)] + ".py")
            if source.exists():
                pairs.append((compiled, source))
    return pairs


def check_fresh(package_dir: Path) -> None:
    """Raises ImportError when a compiled module is older than its source."""
    for compiled, source in compiled_modules(package_dir):
        if source.stat().st_mtime > compiled.stat().st_mtime:
            raise ImportError(
                f"{source} changed after it was compiled: run `make compile` again,"
                " or `make clean-compiled` for the interpreted engine"
            )


def build_of(module_file: str | None) -> str:
    """Whether a module (its ``__file__``) was loaded from an extension module: "compiled" or
    "interpreted"."""
    extension = module_file is not None and module_file.endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES)
    )
    return "compiled" if extension else "interpreted"

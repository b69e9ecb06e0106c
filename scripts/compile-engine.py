"""Compiles Mercado's rules engine to C extension modules with mypyc (``make compile``).

The source stays the reference: the compiled modules are the same typed Python, about twice as
fast (``mercado bench engine``, docs/performance.md), and they are placed beside their ``.py``
files, which Python then imports instead. ``server/compiled.py`` refuses to import an
extension module older than its source; ``make clean-compiled`` goes back to pure Python.
Run from the repository's root: ``.venv/bin/python scripts/compile-engine.py``.
"""

import importlib.machinery
from pathlib import Path

from mypyc.build import mypycify
from setuptools import setup

PACKAGE = "server/games/mercado"
BUILD = ".build/engine"  # hidden: a build/ folder in the root would shadow the build package
# The modules the search and the server call on every move, the state's class among them (compiled
# code reads a compiled class's fields directly). Positions, set-up and the options are parsed from
# callers' JSON and run once a match: they stay interpreted, as lenient as they are tested.
MODULES = [
    f"{PACKAGE}/{name}.py"
    for name in ("actions", "components", "geometry", "rules", "sampling", "scoring", "state", "views")
]

setup(
    name="mercado-engine",
    # One shared library inside the package (not a top-level module, which the editable install
    # would not find), and one small module per source that loads from it.
    ext_modules=mypycify(MODULES, separate=[(MODULES, "server.games.mercado.engine")], target_dir=BUILD),
    script_args=["build_ext", "--inplace", "--build-temp", BUILD, "--build-lib", BUILD],
)

# The copies keep the build's times; stamped now, they are newer than the sources they came from.
for suffix in importlib.machinery.EXTENSION_SUFFIXES:
    for compiled in Path(PACKAGE).glob(f"*{suffix}"):
        compiled.touch()

"""The hard AI's compiled playouts: which modules a build compiles, and whether to use them.

`setup.py` compiles `COMPILED` with mypyc where a C compiler is at hand and writes `DIGESTS`
next to them: the SHA-256 of each source as it was compiled. `choose()` runs before anything
imports them (first thing in `bot.ai`): a compiled module runs only while every compiled
module's source is the one it was built from (they call each other natively, so they go
together). Otherwise, or with `WIZARD_PURE_PYTHON=1` in the environment, the sources are loaded
instead; the moves are the same, only slower (tests/test_ai_native.py). `STATE` says which ran.
Standard library only: `setup.py` reads this file before anything is installed.
"""

import hashlib
import importlib.util
import json
import os
import sys
from importlib.machinery import ExtensionFileLoader
from pathlib import Path

COMPILED = ("bot.ai.fastsim", "bot.ai.sampler")
"""The modules a build compiles, each importing only those before it (the order of loading)."""

DIGESTS = "native.json"
"""The file, next to the compiled modules, that maps each to the digest of its source."""

PURE_ENV = "WIZARD_PURE_PYTHON"

STATE: dict[str, str] = {}
"""How `choose()` found things: "compiled", "source", or why the sources ran instead."""


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_file(name: str) -> str:
    """The source of the compiled module `name`, from the project's (or site-packages') root."""
    return name.replace(".", "/") + ".py"


def _source_of(name: str) -> Path:
    return Path(__file__).parents[2] / source_file(name)


def _why_not() -> str | None:
    """Why the compiled modules may not run (None: they may), or "source" when there are none."""
    specs = [importlib.util.find_spec(name) for name in COMPILED]
    compiled = [spec is not None and isinstance(spec.loader, ExtensionFileLoader) for spec in specs]
    if not any(compiled):
        return "source"
    if os.environ.get(PURE_ENV):
        return f"source ({PURE_ENV} is set)"
    if not all(compiled):
        return "source (only some modules are compiled)"
    try:
        built = json.loads(Path(__file__).with_name(DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"source ({DIGESTS} is missing or unreadable)"
    for name in COMPILED:
        if not isinstance(built, dict) or built.get(name) != source_digest(_source_of(name)):
            return f"source ({name} changed since it was compiled: reinstall to compile it)"
    return None


def choose() -> None:
    """Load the sources in place of compiled modules that may not run; note which ran."""
    if STATE:
        return
    reason = _why_not()
    for name in COMPILED:
        if reason is None:
            STATE[name] = "compiled"
            continue
        STATE[name] = reason
        if name in sys.modules or reason == "source":
            continue
        spec = importlib.util.spec_from_file_location(name, _source_of(name))
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        package, _, leaf = name.rpartition(".")
        setattr(sys.modules[package], leaf, module)

"""The modules a build compiles to C, and whether to use them: the hard AI's playouts and the
random games of `wizard-bot simulate`.

`setup.py` compiles `COMPILED` with mypyc where a C compiler is at hand and writes `DIGESTS`
next to this file: the CRC-32 and size of each source as it was compiled. `choose(group)` runs
before anything imports a group's modules (first thing in its package: `bot.ai`,
`bot.simulation`): a group runs compiled only while each of its sources is the one it was built
from (modules of a group call each other natively, so they go together). Otherwise, or with
`WIZARD_PURE_PYTHON=1` in the environment, the sources are loaded instead; they do the same,
only slower (tests/test_ai_native.py, tests/test_random_games.py). `STATE` says which ran.
Standard library only, and no import of the groups' packages: `setup.py` reads this file before
anything is installed, and `simulate` must not pay for importing the AI, nor for hashlib or
pathlib (some milliseconds each of a start-up): telling an edited source from the one compiled
needs no cryptography, and `zlib` is small (and loaded anyway by argparse and the bot).
"""

import json
import os
import sys
import zlib
from importlib.machinery import EXTENSION_SUFFIXES

AI = ("bot.ai.fastsim", "bot.ai.sampler")
"""The hard AI's playouts, each importing only those before it (the order of loading)."""

GAMES = ("bot.simulation.randomgames",)
"""The random games `simulate` plays."""

COMPILED = AI + GAMES
"""The modules a build compiles."""

DIGESTS = "native.json"
"""The file, next to this one, that maps each compiled module to the digest of its source."""

PURE_ENV = "WIZARD_PURE_PYTHON"

STATE: dict[str, str] = {}
"""How `choose()` found each module: "compiled", "source", or why the source ran instead."""


def source_digest(path: str) -> str:
    """A source file's digest: the CRC-32 of its bytes, in hex, and their number."""
    with open(path, "rb") as file:
        data = file.read()
    return f"{zlib.crc32(data):08x}:{len(data)}"


def source_file(name: str) -> str:
    """The source of the compiled module `name`, from the project's (or site-packages') root."""
    return name.replace(".", "/") + ".py"


def _source_of(name: str) -> str:
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), source_file(name))


def is_compiled(name: str) -> bool:
    """Whether a compiled module `name` lies beside its source (found without importing it)."""
    stem = _source_of(name).removesuffix(".py")
    return any(os.path.exists(stem + suffix) for suffix in EXTENSION_SUFFIXES)


def _why_not(group: tuple[str, ...]) -> str | None:
    """Why `group`'s compiled modules may not run (None: they may), or "source" when there are
    none."""
    compiled = [is_compiled(name) for name in group]
    if not any(compiled):
        return "source"
    if os.environ.get(PURE_ENV):
        return f"source ({PURE_ENV} is set)"
    if not all(compiled):
        return "source (only some modules are compiled)"
    try:
        with open(os.path.join(os.path.dirname(__file__), DIGESTS), "rb") as file:
            built = json.loads(file.read())
    except (OSError, ValueError):
        return f"source ({DIGESTS} is missing or unreadable)"
    for name in group:
        if not isinstance(built, dict) or built.get(name) != source_digest(_source_of(name)):
            return f"source ({name} changed since it was compiled: reinstall to compile it)"
    return None


def choose(group: tuple[str, ...]) -> None:
    """Load the sources in place of `group`'s compiled modules if these may not run; note which
    ran. Called by the group's package as it is imported, before any of the group is."""
    if group[0] in STATE:
        return
    reason = _why_not(group)
    for name in group:
        if reason is None:
            STATE[name] = "compiled"
            continue
        STATE[name] = reason
        if name in sys.modules or reason == "source":
            continue
        import importlib.util  # only to load a source in place of its compiled module

        spec = importlib.util.spec_from_file_location(name, _source_of(name))
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        package, _, leaf = name.rpartition(".")
        setattr(sys.modules[package], leaf, module)

"""The build's one step beyond pyproject.toml: the hard AI's playouts and `simulate`'s random
games compiled to C.

`bot/native.py` names the modules (`COMPILED`). Where a C compiler is at hand, mypyc (of the
mypy that pyproject.toml's build requirements pin) compiles them and the build writes
`bot/native.json`, the digest of each source as compiled; `bot.native` uses a compiled
module only while its source still has that digest. Without a compiler, or with
`WIZARD_PURE_PYTHON=1` set at build time, the package is plain Python, as fast as before and
otherwise the same (docs/ai.md, "Compiled playouts").
"""

import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
NATIVE = runpy.run_path(str(ROOT / "bot" / "native.py"))  # the package is not built yet
COMPILED: tuple[str, ...] = NATIVE["COMPILED"]


class BuildNative(build_ext):
    """Build the compiled modules if the compiler can (each is optional), then note the digest
    of the source of each one that was built, next to it."""

    def run(self) -> None:
        super().run()
        built = {}
        for name in COMPILED:
            if Path(self.get_ext_fullpath(name)).exists():
                built[name] = NATIVE["source_digest"](str(ROOT / NATIVE["source_file"](name)))
        target = Path(self.get_ext_fullpath("bot.native")).parent / NATIVE["DIGESTS"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def native_extensions() -> list[Any]:
    """The compiled modules' extensions, or none (pure Python build)."""
    if os.environ.get(NATIVE["PURE_ENV"]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    paths = [NATIVE["source_file"](name) for name in COMPILED]
    options = ["--ignore-missing-imports", "--follow-imports=silent"]
    try:
        extensions = mypycify([*options, *paths], opt_level="3", debug_level="0")
    except (Exception, SystemExit) as error:  # mypyc could not translate them: Python it is
        print(f"warning: the modules to compile stay Python: {error}", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # no compiler: a warning, and the pure modules
    return extensions


setup(ext_modules=native_extensions(), cmdclass={"build_ext": BuildNative})

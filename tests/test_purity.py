"""The engine is pure: importing and playing it loads no I/O, event loop or platform library."""

import subprocess
import sys
from pathlib import Path

FORBIDDEN = ("asyncio", "socket", "subprocess", "redis", "telegram", "discord", "bot", "adapters")

SCRIPT = """
import sys
from engine import Options
from engine.randomplay import play_random_game
play_random_game(4, Options(), 1)
print(" ".join(sorted(sys.modules)))
"""


def test_engine_loads_no_forbidden_module():
    out = subprocess.run(
        [sys.executable, "-I", "-c", SCRIPT],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    ).stdout.split()
    loaded = {name.split(".")[0] for name in out}
    assert not loaded & set(FORBIDDEN), loaded & set(FORBIDDEN)

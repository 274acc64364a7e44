"""The engine is pure: importing and playing it loads no I/O, event loop or platform library."""

from conftest import modules_loaded

FORBIDDEN = ("asyncio", "socket", "subprocess", "redis", "telegram", "discord", "bot", "adapters")

SCRIPT = """
from engine import Options
from engine.randomplay import play_random_game
play_random_game(4, Options(), 1)
"""


def test_engine_loads_no_forbidden_module():
    loaded = {name.split(".")[0] for name in modules_loaded(SCRIPT)}
    assert not loaded & set(FORBIDDEN), loaded & set(FORBIDDEN)

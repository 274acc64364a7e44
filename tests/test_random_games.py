"""`simulate`'s fast random games (bot/simulation/randomgames.py) against the engine's random
players: the same records, byte for byte, for every table size and option; compiled where the
install compiled them, and the same games from their source."""

import hashlib
import itertools
from pathlib import Path

import orjson
import pytest
from conftest import fresh_lines

from bot import native
from bot.simulation.randomgames import random_record
from engine import BidMode, Options, RoundsPlan, export_record
from engine.names import NAMES
from engine.options import TOURNAMENT_HANDS
from engine.randomplay import play_random_game

ROOT = Path(__file__).resolve().parents[1]


def every_table() -> list[tuple[int, Options]]:
    """Each table size with each combination of options it allows."""
    tables = []
    for players, bids, rounds, notequal, dmmixed, foresight, wings in itertools.product(
        range(3, 7), BidMode, RoundsPlan, (None, False, True), *[(False, True)] * 3
    ):
        if rounds is RoundsPlan.TOURNAMENT and players not in TOURNAMENT_HANDS:
            continue
        options = Options(notequal, bids, rounds, dmmixed, foresight, wings)
        tables.append((players, options))
    return tables


TABLES = every_table()


def test_the_tables_cover_every_option() -> None:
    assert len(TABLES) == 3 * 3 * 3 * 8 * 4 - 3 * 3 * 8  # no tournament for six
    assert {options.describe() for _, options in TABLES} >= {
        "standard",
        "notequal bids=hidden rounds=tournament dmmixed foresight wings",
        "notequal bids=secret rounds=short",
    }


@pytest.mark.parametrize("players", range(3, 7))
def test_the_fast_games_are_the_engines_random_games_byte_for_byte(players: int) -> None:
    tables = [options for size, options in TABLES if size == players]
    for index, options in enumerate(tables):
        seed = 1000 * players + index
        state, _ = play_random_game(players, options, seed)
        expected = orjson.dumps(export_record(state))
        assert orjson.dumps(random_record(NAMES[:players], options, seed)) == expected, options


def test_many_seeds_of_the_standard_and_notequal_tables_match_the_engine() -> None:
    for seed, options in itertools.product(range(40), (Options(), Options(notequal=True))):
        state, _ = play_random_game(4, options, seed)
        assert random_record(NAMES[:4], options, seed) == export_record(state), (seed, options)


GAMES = """
import hashlib, orjson
import bot.native
from bot.simulation.randomgames import random_record
from engine import BidMode, Options
from engine.names import NAMES
digest = hashlib.sha256()
for seed in range(30):
    options = Options(notequal=seed % 2 == 0, bids=list(BidMode)[seed % 3], dmmixed=seed % 5 == 0)
    digest.update(orjson.dumps(random_record(NAMES[: 3 + seed % 4], options, seed)))
print(bot.native.STATE["bot.simulation.randomgames"])
print(digest.hexdigest())
"""


def games(env: dict[str, str]) -> list[str]:
    """How the module ran, and the digest of 30 games' records, from a fresh interpreter."""
    return fresh_lines(GAMES, env)


def compiled_here() -> bool:
    """Whether this checkout holds the compiled module (an install that had a C compiler)."""
    return native.is_compiled("bot.simulation.randomgames")


def test_an_install_runs_the_compiled_games_while_they_are_current() -> None:
    expected = "compiled" if compiled_here() else "source"
    assert native.STATE["bot.simulation.randomgames"] == expected


def test_compiled_and_source_games_write_the_same_records() -> None:
    compiled = games({})
    source = games({native.PURE_ENV: "1"})
    assert compiled[0] == ("compiled" if compiled_here() else "source")
    assert source[0] == f"source ({native.PURE_ENV} is set)"
    assert compiled[1] == source[1]
    assert len(source[1]) == len(hashlib.sha256().hexdigest())

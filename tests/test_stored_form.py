"""The stored form of a table (`bot.table.pack` / `unpack`): orjson's compact JSON, the same
bytes the standard json wrote before it, compressed; what the standard json stored still reads."""

import json
import math
import random
import zlib

from bot.table import Table, pack, unpack
from engine import step
from engine.options import Options
from engine.randomplay import new_game, random_command


def mid_game() -> Table:
    state = new_game(4, Options(), seed=3)
    rng = random.Random(3)
    while state.round is None or state.round.number < 3:
        step(state, random_command(state, rng))
    table = Table(game_id="abc123", game=state, host="p0", deadline=1_800_000_123.25)
    table.seen["p1"] = "0123456789abcd!@41"
    table.languages["p2"] = "ko"
    table.after = "Zoë 🃏 한"  # any text, as it is (the JSON is UTF-8, not escaped)
    return table


def old_pack(data: object) -> bytes:
    """How the code before orjson stored plain data."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return zlib.compress(text.encode(), 1)


def test_the_bytes_are_those_the_standard_json_wrote() -> None:
    table = mid_game()
    assert pack(table.to_data()) == old_pack(table.to_data())
    assert pack(table.game.results_to_list()) == old_pack(table.game.results_to_list())


def test_a_table_reads_back_as_it_was_written() -> None:
    table = mid_game()
    again = Table.from_bytes(table.to_bytes(), table.results_bytes())
    assert again.to_data() == table.to_data()
    assert again.game.results == table.game.results
    assert Table.from_bytes(old_pack(table.to_data()), old_pack([])).game.seq == table.game.seq


def test_what_only_the_standard_json_writes_still_reads() -> None:
    data = unpack(old_pack({"deadline": math.inf, "name": "Zoë 🃏"}))
    assert data == {"deadline": math.inf, "name": "Zoë 🃏"}


def test_finished_rounds_read_again_are_parsed_once() -> None:
    table = mid_game()
    rounds = table.results_bytes()
    first = Table.from_bytes(table.to_bytes(), rounds)
    step(table.game, random_command(table.game, random.Random(5)))  # the rest changes
    second = Table.from_bytes(table.to_bytes(), rounds)
    assert second.game.results == table.game.results
    assert second.game.results[0] is first.game.results[0]  # frozen: shared
    assert second.game.results is not first.game.results
    assert second.to_data() == table.to_data()

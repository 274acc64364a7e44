"""The stored form of a table (`bot.packing.pack` / `unpack`): orjson's compact JSON, the same
text the standard json wrote before it, compressed with Zstandard and the table dictionary;
what earlier versions stored (zlib, the standard json) still reads, and a dictionary this code
does not have is a newer form, refused."""

import json
import math
import random
import threading
import zlib

import pytest
import zstandard

from bot import packing
from bot.packing import pack, unpack
from bot.table import Table
from bot.upgrades import NewerForm
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


def old_text(data: object) -> bytes:
    """The JSON text the code before orjson wrote."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def old_pack(data: object) -> bytes:
    """How the code before the table dictionary (table form 1) stored plain data."""
    return zlib.compress(old_text(data), 1)


def dictionary_text(blob: bytes) -> bytes:
    """What a blob holds, opened with the table dictionary by Zstandard itself."""
    made = packing.dictionary(packing.WRITING)
    assert made is not None
    return zstandard.ZstdDecompressor(dict_data=made).decompress(blob)


def test_the_text_is_the_standard_jsons_under_the_table_dictionary() -> None:
    table = mid_game()
    for data in (table.to_data(), table.game.results_to_list()):
        blob = pack(data)
        assert blob[:4] == packing.ZSTD_MAGIC
        frame = zstandard.get_frame_parameters(blob)
        assert frame.dict_id == packing.DICTIONARY_BASE + packing.WRITING
        assert dictionary_text(blob) == old_text(data)


def test_the_dictionary_halves_a_table() -> None:
    data = mid_game().to_data()
    assert len(pack(data)) < 0.7 * len(old_pack(data))


def test_a_table_reads_back_as_it_was_written() -> None:
    table = mid_game()
    again = Table.from_bytes(table.to_bytes(), table.results_bytes())
    assert again.to_data() == table.to_data()
    assert again.game.results == table.game.results
    assert Table.from_bytes(old_pack(table.to_data()), old_pack([])).game.seq == table.game.seq


def test_the_rounds_a_stand_in_played_are_kept_and_copied() -> None:
    table = mid_game()
    assert "auto" not in table.to_data()  # nothing written while nobody was away
    table.autopilot = {"tg:1": [2, 3]}
    again = Table.from_bytes(table.to_bytes(), table.results_bytes())
    assert again.autopilot == {"tg:1": [2, 3]}
    copied = again.copy()
    copied.autopilot["tg:1"].append(4)
    assert again.autopilot == {"tg:1": [2, 3]}


def test_a_dropped_wings_mark_is_kept_and_copied() -> None:
    table = mid_game()
    assert "drop" not in table.to_data()  # nothing written while no mark was dropped
    table.dropped = {"tg:1": "R7"}
    again = Table.from_bytes(table.to_bytes(), table.results_bytes())
    assert again.dropped == {"tg:1": "R7"}
    copied = again.copy()
    copied.dropped.clear()
    assert again.dropped == {"tg:1": "R7"}


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


def test_a_table_in_a_dictionary_this_code_lacks_is_newer_and_refused() -> None:
    data = mid_game().to_data()
    text = old_text(data)
    later = zstandard.train_dictionary(
        4096, [text] * 40, dict_id=packing.DICTIONARY_BASE + packing.WRITING + 1
    )
    blob = zstandard.ZstdCompressor(dict_data=later).compress(text)
    with pytest.raises(NewerForm) as refused:
        unpack(blob)
    assert (refused.value.found, refused.value.known) == (packing.WRITING + 1, packing.WRITING)
    with pytest.raises(NewerForm):
        Table.from_bytes(blob)


def test_zstandard_without_a_dictionary_reads_and_damage_is_a_value_error() -> None:
    data = mid_game().to_data()
    assert unpack(zstandard.ZstdCompressor().compress(old_text(data))) == data
    blob = pack(data)
    with pytest.raises(ValueError, match="not a stored table"):
        unpack(blob[: len(blob) // 2])
    public = zstandard.train_dictionary(4096, [old_text(data)] * 40, dict_id=7)
    with pytest.raises(ValueError, match="not a stored table"):
        unpack(zstandard.ZstdCompressor(dict_data=public).compress(old_text(data)))


def test_threads_pack_and_unpack_at_once() -> None:
    tables = [mid_game().to_data() for _ in range(4)]
    for index, data in enumerate(tables):
        data["after"] = f"table {index}"
    failures: list[BaseException] = []

    def work(data: dict[str, object]) -> None:
        try:
            for _ in range(300):
                assert unpack(pack(data)) == data
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=work, args=(data,)) for data in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

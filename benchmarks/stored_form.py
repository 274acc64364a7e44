"""The stored form of a table, compared: JSON (the standard json, orjson) or MessagePack, each
plain and compressed (zlib at level 1, LZ4, Zstandard, Zstandard with the table dictionary of
`bot.packing`), on real mid-game tables: bytes stored, and microseconds to write and to read.

    python benchmarks/stored_form.py [--games N] [--seed S]
    python benchmarks/stored_form.py --train PATH [--games N] [--seed S]

People (3 to 6 a table, with ids and names as chats give them: long numbers, any script) play N
games (20 unless told) of random legal moves (`engine.randomplay`) under random options, each
move followed by what the service does to a table (`bot.chat.changed_hands` keeps its digests
in `Table.seen`, the deadline is set; some tables have an AI seat). Every table of rounds 7 to 9
is a sample, as `Table.to_bytes` stores it: the table without its finished rounds (`table_*`),
which is written with every command, and the finished rounds (`results_*`), written once a
round. Per form, a JSON line: the mean bytes of each, `largest_bytes` (the two together, the
largest of any table of the games), `write_us` (the table's data to bytes), `read_us` (the bytes
back to data) and `write_results_us` / `read_results_us` (the same of the rounds); the engine's
own part of a table's write and read (`GameState.to_dict` / `from_dict` with the rounds, the
same for every form) is the last line's `to_dict_us` / `from_dict_us`. MessagePack (ormsgpack),
LZ4 (lz4) and plain Zstandard are measured where their packages are installed (none is a
dependency but zstandard); a form whose package is missing prints a line saying so.

`--train PATH` makes a table dictionary instead (what `bot/dictionaries/table-<n>.zdict`
holds): from every table of N games (40 unless told) of seed S (99 unless told: not the
measured games), the tables and their rounds as stored, 16 KB, numbered `--number` (the next
after `bot.packing.WRITING`). A dictionary once shipped is never changed (docs/service.md).
"""

import argparse
import gc
import importlib
import json
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import orjson  # noqa: E402
import zstandard  # noqa: E402

from bot import packing  # noqa: E402
from bot.chat import changed_hands  # noqa: E402
from bot.show.look import look_of  # noqa: E402
from bot.show.seating import seating  # noqa: E402
from bot.table import Settings, Table  # noqa: E402
from engine import ROUND_PHASES, GameState, Join, Start, step, table_view  # noqa: E402
from engine.options import BidMode, Options, RoundsPlan  # noqa: E402
from engine.randomplay import random_command  # noqa: E402

MID = range(7, 10)
"""The rounds of a game sampled (the middle of a standard game of four)."""
DICTIONARY_BYTES = 16 * 1024
"""The size of a trained dictionary: 8 KB made tables 8 % larger, 32 KB no smaller."""

NAMES = ("Ann", "Bob", "Zoë", "Jürgen", "Мария", "李雷", "Ola 🃏", "Dee", "Émile", "O'Neil")

Encode = Callable[[Any], bytes]
Decode = Callable[[bytes], Any]


def _json_out(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def forms() -> dict[str, tuple[Encode, Decode] | str]:
    """Each form's writer and reader, or why it is not measured."""
    found: dict[str, tuple[Encode, Decode] | str] = {
        "json+zlib (until 2026-12-01)": (
            lambda data: zlib.compress(_json_out(data), 1),
            lambda b: json.loads(zlib.decompress(b)),
        ),
        "orjson+zlib (until 2026-12-04)": (
            lambda data: zlib.compress(orjson.dumps(data), 1),
            lambda b: orjson.loads(zlib.decompress(b)),
        ),
        "orjson+zstd+dictionary (now)": (packing.pack, packing.unpack),
        "json": (_json_out, json.loads),
        "orjson": (orjson.dumps, orjson.loads),
    }
    zstd = zstandard.ZstdCompressor(level=packing.LEVEL)
    unzstd = zstandard.ZstdDecompressor()
    found["orjson+zstd"] = (
        lambda data: zstd.compress(orjson.dumps(data)),
        lambda b: orjson.loads(unzstd.decompress(b)),
    )
    try:
        lz4 = importlib.import_module("lz4.block")
        found["orjson+lz4"] = (
            lambda data: lz4.compress(orjson.dumps(data)),
            lambda b: orjson.loads(lz4.decompress(b)),
        )
    except ImportError:
        found["orjson+lz4"] = "lz4 is not installed"
    try:
        msgpack = importlib.import_module("ormsgpack")
        found["msgpack"] = (msgpack.packb, msgpack.unpackb)
        found["msgpack+zlib"] = (
            lambda data: zlib.compress(msgpack.packb(data), 1),
            lambda b: msgpack.unpackb(zlib.decompress(b)),
        )
        found["msgpack+zstd"] = (
            lambda data: zstd.compress(msgpack.packb(data)),
            lambda b: msgpack.unpackb(unzstd.decompress(b)),
        )
    except ImportError:
        found["msgpack"] = "ormsgpack is not installed"
    return found


def options(rng: random.Random, players: int) -> Options:
    """Random rule options that a table of `players` may have."""
    plans = [RoundsPlan.STANDARD, RoundsPlan.STANDARD]
    if players < 6:
        plans.append(RoundsPlan.TOURNAMENT)
    return Options(
        notequal=rng.choice((None, True, False)),
        bids=rng.choice(list(BidMode)),
        rounds=rng.choice(plans),
        dmmixed=rng.random() < 0.3,
        foresight=rng.random() < 0.2,
        wings=rng.random() < 0.3,
    )


def samples(games: int, seed: int) -> list[Table]:
    """The table after every move of `games` games."""
    rng = random.Random(seed)
    look = look_of(Settings())
    kept = []
    version = 0
    for _number in range(games):
        players = rng.choice((3, 4, 4, 4, 5, 6))
        platform = rng.choice(("tg", "dc"))
        ids = [f"{platform}:{rng.randrange(10**5, 10**12)}" for _ in range(players)]
        state = GameState()
        for player in ids:
            suffix = "" if rng.random() < 0.5 else f" {rng.randrange(100)}"
            step(state, Join(player, rng.choice(NAMES) + suffix))
        state.options = options(rng, players)
        step(state, Start(seed=rng.getrandbits(63)))
        now = 1_800_000_000.0 + rng.uniform(0, 1e8)
        table = Table(game_id=f"{rng.getrandbits(24):06x}", game=state, host=ids[0], created=now)
        if rng.random() < 0.3:
            table.ai = {ids[-1]: rng.choice(("easy", "normal", "hard"))}
        while state.phase in ROUND_PHASES:
            step(state, random_command(state, rng))
            version += 1
            now += rng.uniform(1.0, 20.0)
            table.updated = table.clock = now
            table.deadline, table.remind = now + 120.0, now + 60.0
            if state.phase in ROUND_PHASES:
                changed_hands(look, table, table_view(state), seating(table), version)
            kept.append(table.copy())
    return kept


def best(run: Callable[[Any], object], values: list[Any], repeat: int = 5) -> float:
    """Microseconds `run` takes per one of `values`, the best of `repeat` runs (the collector
    off: what one command makes is garbage at once, here it would pile up)."""
    times = []
    gc.disable()
    try:
        for _ in range(repeat):
            started = time.perf_counter()
            for value in values:
                run(value)
            times.append(time.perf_counter() - started)
    finally:
        gc.enable()
    return round(min(times) / len(values) * 1e6, 1)


def train(path: Path, games: int, seed: int, number: int) -> None:
    """Write a table dictionary made from the tables of `games` games to `path`."""
    tables = samples(games, seed)
    texts = [orjson.dumps(table.to_data()) for table in tables]
    texts += [orjson.dumps(table.game.results_to_list()) for table in tables]
    made = zstandard.train_dictionary(
        DICTIONARY_BYTES, texts, dict_id=packing.DICTIONARY_BASE + number, threads=1
    )
    path.write_bytes(made.as_bytes())
    print(json.dumps({"dictionary": str(path), "number": number, "samples": len(texts)}))


def measure(games: int, seed: int) -> None:
    tables = samples(games, seed)
    mid = [table for table in tables if table.game.round and table.game.round.number in MID]
    datas = [table.to_data() for table in mid]
    results = [table.game.results_to_list() for table in mid]
    for name, form in forms().items():
        if isinstance(form, str):
            print(json.dumps({"form": name, "skipped": form}))
            continue
        encode, decode = form
        blobs = [encode(data) for data in datas]
        rounds = [encode(rows) for rows in results]
        if [decode(blob) for blob in blobs] != json.loads(json.dumps(datas)):
            raise RuntimeError(f"{name}: a table does not read back as it was written")
        largest = max(
            len(encode(table.to_data())) + len(encode(table.game.results_to_list()))
            for table in tables
        )
        line = {
            "form": name,
            "table_bytes": round(statistics.mean(map(len, blobs))),
            "results_bytes": round(statistics.mean(map(len, rounds))),
            "largest_bytes": largest,
            "write_us": best(encode, datas),
            "read_us": best(decode, blobs),
            "write_results_us": best(encode, results),
            "read_results_us": best(decode, rounds),
        }
        print(json.dumps(line))
    games_data = [orjson.loads(orjson.dumps(data["game"])) for data in datas]
    for game, rows in zip(games_data, results, strict=True):
        game["results"] = rows
    line = {
        "samples": len(mid),
        "games": games,
        "to_dict_us": best(lambda table: table.game.to_dict(results=False), mid),
        "from_dict_us": best(GameState.from_dict, games_data),
        "python": sys.version.split()[0],
    }
    print(json.dumps(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games played (20; 40 with --train)")
    parser.add_argument("--seed", type=int, help="their seed (1; 99 with --train)")
    parser.add_argument("--train", type=Path, metavar="PATH", help="write a dictionary there")
    parser.add_argument("--number", type=int, default=packing.WRITING + 1, help="its number")
    args = parser.parse_args()
    if args.train is not None:
        train(args.train, args.games or 40, 99 if args.seed is None else args.seed, args.number)
    else:
        measure(args.games or 20, 1 if args.seed is None else args.seed)


if __name__ == "__main__":
    main()

"""The stored form of a table, compared: the standard json or orjson, each with and without zlib
(level 1), on real mid-game tables: bytes stored, and microseconds to write and to read.

    python benchmarks/stored_form.py [--games N] [--seed S]

Four people play N games (20 unless told) of random legal moves (`engine.randomplay`), each
move followed by what the service does to a table (`bot.chat.changed_hands` keeps its digests in
`Table.seen`, the deadline is set). Every table of rounds 7 to 9 of 15 is a sample, as
`Table.to_bytes` stores it: the table without its finished rounds (`table_*`), which is written
with every command, and the finished rounds (`results_*`), written once a round. Per form, a
JSON line: the mean bytes of each, `largest_bytes` (the two together, the largest of any table
of the games), `write_us` (the table's data to bytes), `read_us` (the bytes back to data) and
`write_results_us` / `read_results_us` (the same of the rounds); the engine's own part of a
table's write and read (`GameState.to_dict` / `from_dict` with the rounds, the same for every
form) is the last line's `to_dict_us` / `from_dict_us`.
"""

import argparse
import gc
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

from bot.chat import changed_hands  # noqa: E402
from bot.show.look import look_of  # noqa: E402
from bot.show.seating import seating  # noqa: E402
from bot.table import Settings, Table  # noqa: E402
from engine import ROUND_PHASES, GameState, Join, Start, step, table_view  # noqa: E402
from engine.randomplay import random_command  # noqa: E402

MID = range(7, 10)
"""The rounds of a 15-round game sampled (the middle)."""

Encode = Callable[[Any], bytes]
Decode = Callable[[bytes], Any]


def _json_out(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


FORMS: dict[str, tuple[Encode, Decode]] = {
    "json+zlib": (
        lambda data: zlib.compress(_json_out(data), 1),
        lambda b: json.loads(zlib.decompress(b)),
    ),
    "orjson+zlib": (
        lambda data: zlib.compress(orjson.dumps(data), 1),
        lambda b: orjson.loads(zlib.decompress(b)),
    ),
    "json": (_json_out, json.loads),
    "orjson": (orjson.dumps, orjson.loads),
}


def samples(games: int, seed: int) -> list[Table]:
    """The table after every move of `games` games of four people."""
    rng = random.Random(seed)
    look = look_of(Settings())
    kept = []
    version = 0
    for number in range(games):
        state = GameState()
        for seat in range(4):
            step(state, Join(f"tg:{100 + seat}", f"Player {seat + 1}"))
        step(state, Start(seed=rng.getrandbits(63)))
        now = 1_800_000_000.0 + number * 3600
        table = Table(game_id=f"{number:06x}", game=state, host="tg:100", created=now)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tables = samples(args.games, args.seed)
    mid = [table for table in tables if table.game.round and table.game.round.number in MID]
    datas = [table.to_data() for table in mid]
    results = [table.game.results_to_list() for table in mid]
    for name, (encode, decode) in FORMS.items():
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
    games = [orjson.loads(orjson.dumps(data["game"])) for data in datas]
    for game, rows in zip(games, results, strict=True):
        game["results"] = rows
    line = {
        "samples": len(mid),
        "games": args.games,
        "to_dict_us": best(lambda table: table.game.to_dict(results=False), mid),
        "from_dict_us": best(GameState.from_dict, games),
        "python": sys.version.split()[0],
    }
    print(json.dumps(line))


if __name__ == "__main__":
    main()

"""What folding a chat's game summaries into stats and ratings costs. The last line is JSON.

    python benchmarks/stats.py [--games N] [--players P] [--pool K] [--runs R]

- fold_ms: reading N summaries (JSON, as Redis keeps them) and folding them, oldest first, into
  every player's tally and OpenSkill Plackett-Luce rating, in this process alone (the median of
  R runs); fold_us_per_game the same per game. Each game seats P of a pool of K people.
- first_fold_ms: `StatsStore.fold` of a chat that has N summaries and no fold yet (a chat whose
  results predate the stats): read them from a real redis-server, fold, write the fold back.
- carry_ms: the same once the fold is there and one game was added (what every game's end
  costs, and every /stats or /top that finds a game unfolded); read_ms: a read that finds
  nothing to fold (most /stats and /top).
- recent_ms: /top's board of the last 30 days when all N games are in it and its fold is not
  kept (read them all and fold them from new ratings: at most once an hour, when a game ages
  out of the window); recent_carry_ms: the same once it is kept and one game was added.
- fold_bytes: the size of the stored fold (JSON) for the K players.

It starts its own redis-server (a free port on 127.0.0.1, no persistence) in a temporary
directory.
"""

import argparse
import asyncio
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import redis.asyncio as aioredis  # noqa: E402

from bot.stats import fold, read_games  # noqa: E402
from bot.store import keys  # noqa: E402
from bot.store.redis_server import RedisServer, free_port  # noqa: E402
from bot.store.stats import StatsStore  # noqa: E402

CHAT = "tg:-100"
NOW = 1_700_000_000.0


def summaries(games: int, players: int, pool: int, seed: int = 1) -> list[dict[str, Any]]:
    """`games` summaries as `bot.chat.game_summary` writes them, oldest first: each seats
    `players` of `pool` people, or an AI seat of a level for one of them now and then."""
    rng = random.Random(seed)
    out = []
    for number in range(games):
        seated = [f"tg:{n}" for n in rng.sample(range(pool), players)]
        ai = {}
        if rng.random() < 0.3:
            seated[-1] = "ai:1"
            ai = {"ai:1": rng.choice(["easy", "normal", "hard"])}
        totals = [rng.randrange(-100, 300, 10) for _ in seated]
        out.append(
            {
                "game": f"{number:06x}",
                "players": seated,
                "names": [f"Player {p}" for p in seated],
                "ai": ai,
                "totals": totals,
                "places": [1 + sum(o > t for o in totals) for t in totals],
                "made": [rng.randrange(0, 16) for _ in seated],
                "rounds": 15,
                "options": {},
                "finished": NOW - (games - number) * 60.0,
            }
        )
    return out


def timed(runs: int, work: Any) -> float:
    """The median of `runs` timings of `work()`, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def through_redis(url: str, raws: list[str], runs: int) -> dict[str, float]:
    client = aioredis.from_url(url)
    stats = StatsStore(client)
    found: dict[str, list[float]] = {
        "first": [],
        "carry": [],
        "read": [],
        "recent": [],
        "recent_carry": [],
    }
    extra = json.loads(raws[-1])
    try:
        for run in range(runs):
            await client.flushall()
            await client.lpush(keys.results(CHAT), *raws)
            start = time.perf_counter()
            await stats.fold(CHAT)
            found["first"].append(time.perf_counter() - start)
            extra["game"], extra["finished"] = f"x{run}", NOW + run
            await client.lpush(keys.results(CHAT), json.dumps(extra))
            start = time.perf_counter()
            await stats.fold(CHAT)
            found["carry"].append(time.perf_counter() - start)
            start = time.perf_counter()
            await stats.fold(CHAT)
            found["read"].append(time.perf_counter() - start)
            start = time.perf_counter()
            await stats.recent_fold(CHAT, NOW + run)
            found["recent"].append(time.perf_counter() - start)
            extra["game"], extra["finished"] = f"z{run}", NOW + run + 0.5
            await client.lpush(keys.results(CHAT), json.dumps(extra))
            start = time.perf_counter()
            await stats.recent_fold(CHAT, NOW + run + 0.5)
            found["recent_carry"].append(time.perf_counter() - start)
        size = len(await client.hget(keys.stats(CHAT), "s") or b"")
    finally:
        await client.aclose()
    result = {f"{name}_ms": round(statistics.median(v) * 1000, 2) for name, v in found.items()}
    return result | {"fold_bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--pool", type=int, default=12)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    entries = summaries(args.games, args.players, args.pool)
    raws = [json.dumps(entry) for entry in entries]  # oldest first: LPUSH keeps newest first

    def parse_and_fold() -> None:
        fold(read_games(json.loads(raw) for raw in raws))

    fold_ms = timed(args.runs, parse_and_fold)
    with tempfile.TemporaryDirectory(prefix="wizard-bench-stats-") as directory:
        server = RedisServer(Path(directory), port=free_port(), appendonly=False)
        server.start()
        try:
            redis_figures = asyncio.run(through_redis(server.url, raws, args.runs))
        finally:
            server.stop()
    result = {
        "games": args.games,
        "players": args.players,
        "pool": args.pool,
        "fold_ms": round(fold_ms, 1),
        "fold_us_per_game": round(fold_ms * 1000 / args.games),
        **redis_figures,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    for name, value in result.items():
        print(f"{name:>18}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

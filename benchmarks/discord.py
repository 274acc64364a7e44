"""The Discord front end end to end: REST calls per game and interactions handled per second by
one worker, through discord.py and a real Redis. The last line printed is JSON.

    python benchmarks/discord.py [--games N] [--players P] [--standard] [--closed]

It starts its own redis-server (a free port on 127.0.0.1, in a temporary directory) and the fake
Discord API of tests/fake_discord.py, and runs the real Discord adapter (the discord.py client,
its HTTP client pointed at the fake, the outbox without pacing) as tests/test_discord.py does:
each interaction is a real INTERACTION_CREATE payload given to the client's connection state.
P people join and play N whole games (rounds=short, or the standard game with --standard) by
pressing the first button offered to whoever must act, one interaction at a time; with
--closed the last player's DMs are closed (their hand is shown in the channel, ephemerally).

- calls_per_game: every REST call the bot made per game (joins, lobby and start included; the
  log-in and command sync excluded), and by route (`calls_by_route`, per game).
- interactions_per_s: interactions over the time the worker was busy with them: each is timed
  from the payload's delivery to the moment it is answered and everything it caused is posted
  (the outbox flushed, no request in flight at the fake); p50_ms and p99_ms of those times.
"""

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# This folder holds a script named after the discord package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent / "tests"))

import redis.asyncio as aioredis  # noqa: E402
from fake_discord import FakeDiscord, Person, Stored  # noqa: E402

from adapters.discord.app import DiscordFrontEnd  # noqa: E402
from adapters.outbox import FAST  # noqa: E402
from bot.config import Config, DiscordConfig  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store.redis_server import RedisServer, free_port  # noqa: E402
from bot.table import Settings  # noqa: E402

NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")
GAME_OVER = "The game is over"


class Bench:
    """The bot, the fake Discord, and the time each interaction took."""

    def __init__(self, fake: FakeDiscord, front: DiscordFrontEnd, people: list[Person]) -> None:
        self.fake = fake
        self.front = front
        self.people = people
        self.latencies: list[float] = []

    async def act(self, payload: dict[str, Any]) -> None:
        start = time.perf_counter()
        self.front.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        await self.fake.wait_answered(int(payload["id"]))
        while True:
            if self.front.busy == 0:
                await self.front.outbox.flush()
                if self.front.busy == 0 and not self.fake.busy():
                    break
            await asyncio.sleep(0)
        self.latencies.append(time.perf_counter() - start)

    def hand(self, user: Person) -> Stored | None:
        if user.id in self.fake.closed_dms:
            shown = self.fake.shown(self.fake.channel, user)
            hands = [m for m in shown if m.only == user.id and "Round " in m.content]
        else:
            hands = [m for m in self.fake.shown(user.id) if "Round " in m.content]
        return hands[-1] if hands else None

    async def move(self) -> bool:
        channel = self.fake.channel
        closed = self.fake.closed_dms
        for user in sorted(self.people, key=lambda person: person.id in closed):
            hand = self.hand(user)
            if user.id in closed and (hand is None or not hand.components):
                notices = [m for m in self.fake.shown(channel) if f"<@{user.id}>" in m.content]
                if notices:
                    notice = notices[-1]
                    await self.act(
                        self.fake.press(channel, user, notice, notice.button("Your hand"))
                    )
                    hand = self.hand(user)
            if hand is None:
                continue
            view = channel if user.id in closed else user.id
            if hand.components:
                await self.act(self.fake.press(view, user, hand, hand.custom_ids()[0]))
                return True
            if "Your bid?" in hand.content:
                table = [m for m in self.fake.shown(channel) if m.content.startswith("🔮 Round ")]
                await self.act(self.fake.press(channel, user, table[-1], table[-1].custom_ids()[0]))
                return True
        raise RuntimeError("nobody's turn, and the game is not over")


async def play_game(bench: Bench, standard: bool, limit: int = 10_000) -> None:
    fake = bench.fake
    mark = len(fake.transcripts[fake.channel])
    for user in bench.people:
        await bench.act(fake.command(fake.channel, user, "join"))
    if not standard:
        await bench.act(
            fake.command(fake.channel, bench.people[0], "options", setting="rounds=short")
        )
    await bench.act(fake.command(fake.channel, bench.people[0], "start"))
    for _ in range(limit):
        lines = fake.transcripts[fake.channel][mark:]
        if any(GAME_OVER in line.text and " edited: " not in line.text for line in lines):
            return
        await bench.move()
    raise RuntimeError("the game did not end")


async def run(args: argparse.Namespace, redis_url: str) -> dict[str, object]:
    client = aioredis.Redis.from_url(redis_url)
    async with FakeDiscord() as fake:
        people = [
            fake.add_user(name, dms=not (args.closed and index == args.players - 1))
            for index, name in enumerate(NAMES[: args.players])
        ]
        config = Config(
            turn_timeout=90, discord=DiscordConfig(token=fake.token, base_url=fake.base_url)
        )
        service = GameService(Store(client, Settings()), config, rng=random.Random(11))
        front = DiscordFrontEnd(config, service, client, limits=FAST)
        await front.start(connect=False)
        bench = Bench(fake, front, people)
        start_up = Counter(fake.calls)
        try:
            for _ in range(args.games):
                await play_game(bench, args.standard)
        finally:
            await front.stop()
            await client.aclose()
        calls = Counter(fake.calls)
        calls.subtract(start_up)
        played = {route: count for route, count in calls.items() if count > 0}
        total = sum(played.values())
        latencies = sorted(bench.latencies)
        count = len(latencies)
        return {
            "games": args.games,
            "players": args.players,
            "rounds": "standard" if args.standard else "short",
            "closed_dms": args.closed,
            "interactions": count,
            "interactions_per_game": round(count / args.games, 1),
            "calls_per_game": round(total / args.games, 1),
            "calls_per_interaction": round(total / count, 2),
            "calls_by_route": {
                route: round(n / args.games, 1) for route, n in sorted(played.items())
            },
            "start_up_calls": dict(start_up),
            "interactions_per_s": round(count / sum(latencies), 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 2),
            "p99_ms": round(latencies[min(count - 1, int(0.99 * count))] * 1000, 2),
            "errors": len([e for e in fake.errors if e[1] != 50007]),
            "late_answers": len(fake.late),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="whole games to play")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7))
    parser.add_argument("--standard", action="store_true", help="all rounds, not rounds=short")
    parser.add_argument("--closed", action="store_true", help="the last player's DMs are closed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wizard-bench-") as directory:
        server = RedisServer(directory, port=free_port(), appendfsync="everysec")
        with server:
            print(f"redis-server on {server.url}; fake Discord API in this process")
            t0 = time.monotonic()
            result = asyncio.run(run(args, server.url))
            print(f"done in {time.monotonic() - t0:.1f} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

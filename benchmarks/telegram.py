"""The Telegram front end end to end: Bot API calls per game, per trick and per round, updates
handled per second by one worker, and the latency of one update. The last line printed is JSON.

    python benchmarks/telegram.py [--games N] [--standard] [--quiet SECONDS]

It starts its own redis-server (a free port on 127.0.0.1, in a temporary directory) and the fake
Bot API server of tests/fake_telegram.py, and runs the real Telegram adapter (the PTB
Application, long polling, the outbox without pacing) against them, as tests/test_telegram.py
does. Three people open their private chats, join in the group and play N whole games (rounds=short,
or the standard game with --standard) by pressing the first button offered to whoever must act,
one update at a time, as quickly as the script can.

- calls_per_game_group / _dm: Bot API calls (getUpdates excluded) per game, from the fake's
  per-chat counters: the group, and the three private chats together. Joins, the lobby and the
  start are part of a game; the calls of the bot's own start-up (no chat) are not.
- calls_per_trick / calls_per_round: all those calls over the tricks / rounds played (a round of
  r cards has r tricks): approximate, since bids, trump choices and round summaries are spread
  over them.
- Every update (command or press) is injected alone, then the script waits until the bot is
  idle (every update fetched and handled, the outbox flushed, no request for `quiet` seconds).
  Its latency is from the injection to the end of the last Bot API request it caused (the
  fake's time of its last request): p50_ms, p99_ms over all updates. updates_per_s is updates
  over the sum of those latencies (the time one worker was busy); updates_per_s_wall is updates
  over the wall time including the quiet periods wait_idle needs to call the bot idle.
"""

import argparse
import asyncio
import functools
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent / "tests"))
os.environ.setdefault("PTB_TIMEDELTA", "true")  # 429s read retry_after without a warning

import redis.asyncio as aioredis  # noqa: E402
from fake_telegram import FakeTelegram, MessageView, User  # noqa: E402
from telegram.ext import AIORateLimiter  # noqa: E402

from adapters.outbox import FAST  # noqa: E402
from adapters.telegram.app import TelegramFrontEnd  # noqa: E402
from bot.config import Config, TelegramConfig  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store.redis_server import RedisServer, free_port  # noqa: E402
from bot.table import Settings  # noqa: E402

GROUP = -100123
PLAYERS = (User(1001, "Ann", "ann"), User(1002, "Bob", "bob"), User(1003, "Cid", "cid"))
TABLE = "🔮 Round "
ROUND_OVER = re.compile(r"(?:Round (\d+) is over|🏁 Final table · round (\d+) of)")
GAME_OVER = "The game is over"


class Bench:
    """The bot, the fake Telegram, and the timings of every update injected."""

    def __init__(self, fake: FakeTelegram, front: TelegramFrontEnd) -> None:
        self.fake = fake
        self.front = front
        self.latencies: list[float] = []
        self.wall = 0.0

    async def send(self, inject: Callable[[], object]) -> None:
        """Inject one update and wait until the bot is idle; time it."""
        start = time.monotonic()
        inject()
        await self.settle()
        self.wall += time.monotonic() - start
        last = self.fake.last_activity  # when the fake answered its last request
        if last >= start:
            self.latencies.append(last - start)

    async def settle(self) -> None:
        """Wait until the bot took in every update (fetched and confirmed), handled it (the
        update queue joined), made the AI moves it left and posted all that; again until a
        round of it saw no call to the fake and `quiet` seconds passed after the last one. A
        quiet spell alone did not tell a bot handling an update slowly (a loaded machine: no
        call until it answers) from an idle one, and the next move found nobody's turn."""
        while True:
            began = time.monotonic()
            await self.fake.wait_idle(timeout=30, quiet=0, taken_in=True)
            await asyncio.wait_for(self.front.application.update_queue.join(), 30)
            await self.front.service.moved()
            await self.front.outbox.flush()
            await self.fake.wait_idle(timeout=30)
            if self.fake.last_activity < began:
                return

    async def command(self, user: User, text: str) -> None:
        await self.send(lambda: self.fake.send_command(GROUP, user, text))

    async def press(self, chat: int, user: User, message: int, data: str) -> None:
        await self.send(lambda: self.fake.press(chat, user, message, data))

    def hand(self, user: User) -> MessageView | None:
        hands = [m for m in self.fake.current_messages(user.id).values() if "Round " in m.text]
        return hands[-1] if hands else None

    def table(self) -> MessageView:
        tables = [m for m in self.fake.current_messages(GROUP).values() if m.text.startswith(TABLE)]
        return tables[-1]

    def lobby(self) -> MessageView:
        shown = self.fake.current_messages(GROUP).values()
        return [m for m in shown if "a new table" in m.text and m.keyboard][-1]


def snapshot(fake: FakeTelegram) -> tuple[int, int]:
    """Calls so far (getUpdates excluded): in the group, in the players' private chats."""
    dms = sum(fake.total_calls(chat_id=user.id) for user in PLAYERS)
    return fake.total_calls(chat_id=GROUP), dms


async def play_game(bench: Bench, standard: bool, limit: int = 5000) -> tuple[int, int]:
    """Seat the players, start and play one game to the end; (rounds, tricks) played."""
    fake = bench.fake
    mark = len(fake.transcript(GROUP))
    for user in PLAYERS:
        await bench.command(user, "/join")
    if not standard:
        await bench.command(PLAYERS[0], "/options rounds=short")
    lobby = bench.lobby()
    start = next(b for row in lobby.keyboard for b in row if b.text.strip().endswith("Start"))
    assert start.callback_data is not None
    await bench.press(GROUP, PLAYERS[0], lobby.message_id, start.callback_data)
    seen = mark
    for _ in range(limit):
        events = fake.transcript(GROUP)
        if any(GAME_OVER in e.text for e in events[seen:] if e.kind in ("message", "photo")):
            break
        seen = max(seen, len(events) - 10)
        turn = None
        for user in PLAYERS:
            hand = bench.hand(user)
            if hand is not None and (hand.keyboard or "Your bid?" in hand.text):
                turn = user, hand
                break
        if turn is None:
            raise RuntimeError("nobody's turn, and the game is not over")
        user, hand = turn
        if hand.keyboard:
            chat, message, data = user.id, hand.message_id, hand.keyboard[0][0].callback_data
        else:  # an open bid: the buttons are under the group's table
            table = bench.table()
            chat, message, data = GROUP, table.message_id, table.keyboard[0][0].callback_data
        assert data is not None
        await bench.press(chat, user, message, data)
    else:
        raise RuntimeError("the game did not end")
    rounds = [  # each round's end: a summary, the last one on the final table (an edit)
        int(m.group(1) or m.group(2))
        for e in fake.transcript(GROUP)[mark:]
        if e.kind in ("message", "edit") and (m := ROUND_OVER.match(e.text))
    ]
    return len(rounds), sum(rounds)


async def run(args: argparse.Namespace, redis_url: str) -> dict[str, object]:
    client = aioredis.Redis.from_url(redis_url)
    async with FakeTelegram(quiet=args.quiet) as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        config = Config(
            turn_timeout=90,
            telegram=TelegramConfig(token=fake.token, base_url=f"http://127.0.0.1:{fake.port}"),
        )
        service = GameService(Store(client, Settings()), config, rng=random.Random(11))
        front = TelegramFrontEnd(
            config,
            service,
            client,
            limits=FAST,
            rate_limiter=AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3),
            timer_interval=0.2,
            poll_timeout=1,
        )
        await front.start()
        bench = Bench(fake, front)
        try:
            await fake.wait_idle(timeout=30)
            for user in PLAYERS:  # each person opens the bot once: counted with the first game
                await bench.send(functools.partial(fake.start_dm, user))
            group = dms = rounds = tricks = 0
            before = (0, 0)
            for _ in range(args.games):
                played_rounds, played_tricks = await play_game(bench, args.standard)
                after = snapshot(fake)
                group += after[0] - before[0]
                dms += after[1] - before[1]
                before = after
                rounds += played_rounds
                tricks += played_tricks
        finally:
            await front.stop()
            await client.aclose()
        errors = Counter(
            e.description.split(":")[0] + ":" + e.description.split(":")[1]
            if e.description.count(":") > 1
            else e.description
            for e in fake.errors
        )
        latencies = sorted(bench.latencies)
        updates = len(latencies)
        return {
            "games": args.games,
            "rounds": "standard" if args.standard else "short",
            "rounds_played": rounds,
            "tricks_played": tricks,
            "updates": updates,
            "calls_per_game_group": round(group / args.games, 1),
            "calls_per_game_dm": round(dms / args.games, 1),
            "calls_per_trick": round((group + dms) / max(tricks, 1), 2),
            "calls_per_round": round((group + dms) / max(rounds, 1), 1),
            "updates_per_s": round(updates / sum(latencies), 1),
            "updates_per_s_wall": round(updates / bench.wall, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 2),
            "p99_ms": round(latencies[min(updates - 1, int(0.99 * updates))] * 1000, 2),
            "latency_method": (
                "inject -> end of the fake's last recorded Bot API request (its last-activity "
                "timestamp) after wait_idle and an outbox flush, one update at a time"
            ),
            "quiet_s": args.quiet,
            "errors": dict(errors),
            "throttled": len(fake.throttled),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="whole games to play")
    parser.add_argument("--standard", action="store_true", help="all rounds, not rounds=short")
    parser.add_argument(
        "--quiet", type=float, default=0.02, help="seconds without a request that mean idle"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wizard-bench-") as directory:
        server = RedisServer(directory, port=free_port(), appendfsync="everysec")
        with server:
            print(f"redis-server on {server.url}; fake Bot API in this process")
            t0 = time.monotonic()
            result = asyncio.run(run(args, server.url))
            print(f"done in {time.monotonic() - t0:.1f} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""What the chaos tests (`test_chaos.py` for Telegram, `test_chaos_discord.py`) share: the bot
as a process of its own to kill, when to kill what, and reading a game's record back."""

import json
import random
import signal
import statistics
import subprocess
import sys
from typing import IO, Any

import redis

from bot import tokens
from bot.store import keys
from engine import check_record

BOT_KILLS = 10
REDIS_KILLS = 3
MOVES = 60
"""The moves of a 5-round game of three (15 bids, 45 cards), trump choices aside."""
BACK_WITHIN = 5.0
"""Seconds from the bot (or Redis) being back to the next working button, at most."""
RUN = "from adapters.cli import main\nraise SystemExit(main(['run']))"
"""`wizard-bot run`, as a program for `python -c`."""


class BotProcess:
    """`wizard-bot run` in a process of its own (`code`: the program, after anything a test
    sets up first), killed and started again by the test."""

    def __init__(self, env: dict[str, str], log: IO[str], code: str = RUN) -> None:
        self.env = env
        self.log = log
        self.code = code
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.code],
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def schedule(rng: random.Random) -> dict[int, str]:
    """At which presses to kill what: "bot" ten times, "redis" three, at random."""
    when = dict.fromkeys(rng.sample(range(4, MOVES - 2), BOT_KILLS + REDIS_KILLS), "bot")
    for press in rng.sample(sorted(when), REDIS_KILLS):
        when[press] = "redis"
    return when


def record_of(url: str, chat: str) -> dict[str, Any] | None:
    """The record of the chat's last finished game, as stored."""
    with redis.Redis.from_url(url) as client:
        text = client.get(keys.record(chat))
    return None if text is None else dict(json.loads(text))


def moves_of(record: dict[str, Any]) -> int:
    return sum(len(r["bids"]) + sum(len(t["cards"]) for t in r["tricks"]) for r in record["rounds"])


def in_record(payload: str, round_number: int, seat: int, record: dict[str, Any]) -> bool:
    """Whether the record holds the move of an acknowledged press of `payload` by the player in
    `seat`, in round `round_number`."""
    token = tokens.decode(payload)
    played = record["rounds"][round_number - 1]
    if token.action is tokens.Action.BID:
        return bool(played["bids"][seat] == int(token.arg))
    if token.action is tokens.Action.TRUMP:
        return bool(played["trump"] == token.arg)
    if token.action is tokens.Action.PLAY:
        count = len(record["players"])
        cards = [
            card
            for trick in played["tricks"]
            for i, card in enumerate(trick["cards"])
            if (trick["leader"] + i) % count == seat
        ]
        return token.arg in cards or token.arg == ""  # "" plays the unseen card
    return True  # a wings mark is no move of its own


def check_game(record: dict[str, Any], presses: list[tuple[str, int, int]]) -> None:
    """The record is a game the rules allow, it holds every acknowledged press (payload, round,
    seat), and no more presses were acknowledged than it has moves (trump choices included)."""
    check_record(record)
    missing = [press for press in presses if not in_record(*press, record)]
    assert missing == [], missing
    assert len(presses) <= moves_of(record) + len(record["rounds"])


def check_restarts(platform: str, backs: list[tuple[str, float]]) -> None:
    """Print the time from each restart to the next working button; each restart was timed,
    and none took longer than BACK_WITHIN."""
    times = [seconds for _, seconds in backs]
    print(
        f"{platform}: restart to the next working button over {len(times)} restarts "
        f"({BOT_KILLS} of the bot, {REDIS_KILLS} of Redis): p50 "
        f"{statistics.median(times):.2f} s, max {max(times):.2f} s"
    )
    for what, seconds in backs:
        print(f"  {what}: {seconds:.2f} s")
    assert len(times) == BOT_KILLS + REDIS_KILLS, backs
    assert max(times) <= BACK_WITHIN

"""Chaos on Discord: a whole game against the real `wizard-bot run` process (through the fake's
gateway and REST API), which is SIGKILLed at ten random moments and its redis-server at three,
while the test plays the people, pressing only the buttons their DMs show (never /hand). The game
finishes; every acknowledged press is in the record; nobody is put on autopilot by a crash; and
the time from each restart to the next working button is printed and stays within 5 s.

Discord does not deliver an interaction again: a press made while the bot is down, or taken by a
bot that died before answering, is lost (the person sees "This interaction failed" and presses
again), as on Discord itself."""

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from chaos import (
    RUN,
    BotProcess,
    check_game,
    check_restarts,
    record_of,
    schedule,
)
from fake_discord import FakeDiscord, Person, Stored
from players import first_shown, until
from test_chaos import SEED

from adapters.discord.app import DEFER_AFTER
from adapters.discord.render import GAME_PREFIX
from bot.store import keys
from bot.store.redis_server import RedisServer

GATEWAY = (
    "import os, yarl, discord.gateway\n"
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ['FAKE_GATEWAY'])\n"
)
"""Before `wizard-bot run`: its gateway is the fake's (discord.py has no setting for it)."""
REFUSALS = ("not your turn", "out of date", "cannot be reached", "already", "not one of ours")
"""Words of the answers that refuse a press (the move was not made)."""
FOLLOWUP_WITHIN = 5.0
"""Seconds a deferred press may take to be refused by a followup, or marked applied."""


@dataclass
class Press:
    user: Person
    message: Stored
    custom_id: str
    round: int


@dataclass
class Table:
    """The people at the game, and what they saw."""

    fake: FakeDiscord
    rng: random.Random
    people: list[Person]
    acked: list[Press] = field(default_factory=list)
    refused: set[tuple[int, int, str]] = field(default_factory=set)
    backs: list[tuple[str, float]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    began: float = field(default_factory=time.monotonic)

    def over(self) -> bool:
        return any("The game is over" in m.content for m in self.fake.shown(self.fake.channel))

    def turn(self) -> Press | None:
        """The newest hand message with buttons in someone's DM (one not refused as it is)."""
        for user in self.people:
            hands = [m for m in self.fake.shown(user.id, user) if "Round " in m.content]
            if not hands:
                continue
            hand = hands[-1]
            ids = [i for i in hand.custom_ids() if i.startswith(GAME_PREFIX + ":")]
            if ids and (user.id, hand.id, hand.content) not in self.refused:
                number = int(hand.content.split("Round ", 1)[1].split(" ", 1)[0])
                return Press(user, hand, self.rng.choice(ids), number)
        return None

    async def shown(self) -> Press | None:
        return await first_shown(self.turn, self.over)


def accepted(fake: FakeDiscord, interaction: int) -> bool | None:
    """Whether the bot answered the press and made the move (None: no answer yet)."""
    record = fake.interactions[interaction]
    if record.answered is None:
        return None
    said = " ".join(record.line.replies).lower()
    return not any(word in said for word in REFUSALS)


async def test_a_discord_game_survives_the_bot_and_redis_killed_at_random(
    redis_alone: RedisServer, tmp_path: Path
) -> None:
    rng = random.Random(SEED + 1)
    print(f"chaos seed {SEED} (WIZARD_CHAOS_SEED={SEED} plays this run again)")
    kills = schedule(rng)
    async with FakeDiscord() as fake:
        (tmp_path / "none.toml").write_text("")
        env = {
            **os.environ,
            "WIZARD_CONFIG": str(tmp_path / "none.toml"),
            "WIZARD_DISCORD_TOKEN": fake.token,
            "WIZARD_DISCORD_BASE_URL": fake.base_url,
            "FAKE_GATEWAY": fake.gateway_url,
            "WIZARD_REDIS_URL": redis_alone.url,
            "WIZARD_DATA_DIR": str(tmp_path / "data"),
        }
        people = [fake.add_user(name) for name in ("Ann", "Bob", "Cid")]
        table = Table(fake, rng, people)
        with open(tmp_path / "bot.log", "w") as log:
            bot = BotProcess(env, log, GATEWAY + RUN)
            try:
                await play(table, bot, redis_alone, kills)
            finally:
                await asyncio.to_thread(bot.stop)
                (tmp_path / "presses.log").write_text("\n".join(table.log) + "\n")
        output = (tmp_path / "bot.log").read_text()
        record = record_of(redis_alone.url, f"dc:{fake.channel}")
        assert record is not None, output[-3000:]
        seats = {user.id: record["players"].index(user.name) for user in people}
        payloads = [(p.custom_id.split(":", 2)[2], p.round, seats[p.user.id]) for p in table.acked]
        check_game(record, payloads)
        assert not [m for m in fake.shown(fake.channel) if "ran out of time" in m.content]
        assert "Traceback" not in output, output[-3000:]
        check_restarts("Discord", table.backs)


async def play(
    table: Table, bot: BotProcess, server: RedisServer, schedule: dict[int, str]
) -> None:
    fake = table.fake

    async def ready() -> float:
        """When the restarted bot is on the gateway again."""
        count = len(fake.identified)
        await fake.wait_identified(count + 1, timeout=30)
        return time.monotonic()

    async def act(payload: dict[str, Any]) -> int:
        await fake.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    bot.start()
    await ready()
    for user in table.people:
        await fake.wait_answered(await act(fake.command(fake.channel, user, "join")), timeout=10)
    host = table.people[0]
    for setting in ("rounds=short", "bids=hidden"):
        payload = fake.command(fake.channel, host, "options", setting=setting)
        await fake.wait_answered(await act(payload), timeout=10)
    await fake.wait_answered(await act(fake.command(fake.channel, host, "start")), timeout=10)
    back: tuple[str, float] | None = None
    presses = 0
    while not table.over():
        press = await table.shown()
        if press is None:
            break
        crash = None
        if back is None and schedule and min(schedule) <= presses:
            crash = schedule.pop(min(schedule))
        presses += 1
        seen = press.message.content
        if not fake._sockets:
            await asyncio.sleep(0.05)
            continue
        interaction = await act(
            fake.press(press.user.id, press.user, press.message, press.custom_id)
        )
        if crash == "bot":
            await asyncio.sleep(table.rng.uniform(0, 0.05))
            bot.kill()
            bot.start()
            back = ("bot", await ready())
            continue  # the press in flight is answered by now or never
        if crash == "redis":
            await asyncio.sleep(table.rng.uniform(0, 0.05))
            await asyncio.to_thread(server.kill)
            await asyncio.sleep(table.rng.uniform(0.2, 1.5))
            await asyncio.to_thread(server.restart)
            back = ("redis", time.monotonic())
            continue
        done = await answered(fake, interaction, server.url)
        table.log.append(
            f"{time.monotonic() - table.began:7.2f} {press.user.name} {press.custom_id} "
            f"-> {done} {fake.interactions[interaction].line.replies}"
        )
        await settle(fake)
        if not done:
            said = " ".join(fake.interactions[interaction].line.replies)
            if done is False and "cannot be reached" not in said:
                table.refused.add((press.user.id, press.message.id, seen))
            else:
                await asyncio.sleep(0.3)
            continue
        table.acked.append(press)
        if back is not None:
            answered_at = fake.interactions[interaction].answered or time.monotonic()
            table.backs.append((back[0], answered_at - back[1]))
            back = None


async def answered(fake: FakeDiscord, interaction: int, url: str) -> bool | None:
    """Whether the press was accepted, once answered (None: no answer within 15 s). A press the
    bot deferred (type 6 after `DEFER_AFTER`: the service was slow) is answered before the
    service is done with it: then a refusal comes as a followup, and a move made says nothing
    more but is marked applied in Redis, in the one write that makes it (the update key of
    the interaction's id, `bot.store.keys.update`). It is judged once either is seen (within
    `FOLLOWUP_WITHIN`)."""
    await until(lambda: accepted(fake, interaction) is not None, 15)
    record = fake.interactions[interaction]
    answer_s = (record.answered or record.made) - record.made
    if record.kind == 6 and answer_s >= DEFER_AFTER:  # a silent answer comes before that
        key = keys.update(f"dc:{fake.channel}", str(interaction))
        async with aioredis.Redis.from_url(url) as client:
            end = time.monotonic() + FOLLOWUP_WITHIN
            while not record.line.replies and time.monotonic() < end:
                if await client.exists(key):
                    break
                await asyncio.sleep(0.01)
    return accepted(fake, interaction)


async def settle(fake: FakeDiscord) -> None:
    """Until the bot has gone quiet (a person reads what changed)."""
    end = time.monotonic() + 5
    quiet_since = time.monotonic()
    calls = sum(fake.calls.values())
    while time.monotonic() < end:
        await asyncio.sleep(0.03)
        now = sum(fake.calls.values())
        if now != calls or fake.busy():
            calls, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= 0.15:
            return

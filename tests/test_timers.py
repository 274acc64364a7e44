"""The timer loop fires due deadlines and hands their outcomes to the front end."""

import asyncio
import random

import redis.asyncio as aioredis

from bot.config import Config
from bot.messages import Outcome
from bot.requests import Kind, Request, User
from bot.service import GameService
from bot.store import Store
from bot.table import Settings
from bot.timers import timer_loop

ANN = User("tg:1", "Ann")


async def test_the_loop_closes_an_idle_lobby_and_survives_a_failing_front_end(
    redis_client: aioredis.Redis,
) -> None:
    now = [1_000_000.0]
    service = GameService(
        Store(redis_client, Settings()), Config(), clock=lambda: now[0], rng=random.Random(1)
    )
    await service.handle("chat:1", ANN, Request(Kind.JOIN))
    await service.handle("chat:2", ANN, Request(Kind.JOIN))
    shown: list[tuple[str, Outcome]] = []

    async def show(chat: str, outcome: Outcome) -> None:
        shown.append((chat, outcome))
        if chat == "chat:1":
            raise RuntimeError("the platform is down")

    task = asyncio.create_task(timer_loop(service, show, interval=0.01))
    await asyncio.sleep(0.05)
    assert shown == []  # nothing due yet
    now[0] += Config().lobby_timeout + 1
    for _ in range(100):
        await asyncio.sleep(0.01)
        if len(shown) == 2:
            break
    task.cancel()
    assert sorted(chat for chat, _ in shown) == ["chat:1", "chat:2"]
    assert all("idle" in outcome.messages[0].text for _, outcome in shown)
    snapshot = await service.store.load("chat:1")
    assert snapshot.table is None

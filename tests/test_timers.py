"""The timer loop fires due deadlines and hands their outcomes to the front end."""

import asyncio

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from bot.commands import Kind
from bot.config import Config
from bot.messages import Outcome
from bot.requests import Request, User
from bot.service import GameService
from bot.store import Store
from bot.table import Settings
from bot.timers import timer_loop

ANN = User("tg:1", "Ann")


async def test_the_loop_closes_an_idle_lobby_and_survives_a_failing_front_end(
    redis_client: aioredis.Redis,
) -> None:
    now = [1_000_000.0]
    running = [False]

    def clock() -> float:
        # Time passes while the loop runs, a second at each reading: in steps shorter than an
        # outage (a jump past one would be taken for the bot having been down).
        if running[0]:
            now[0] += 1.0
        return now[0]

    service = GameService(Store(redis_client, Settings()), Config(), clock=clock)
    await service.handle("chat:1", ANN, Request(Kind.JOIN))
    await service.handle("chat:2", ANN, Request(Kind.JOIN))
    shown: list[tuple[str, Outcome]] = []

    async def show(chat: str, outcome: Outcome) -> None:
        shown.append((chat, outcome))
        if chat == "chat:1":
            raise RuntimeError("the platform is down")

    task = asyncio.create_task(timer_loop(service, show, "chat", interval=0.001))
    await asyncio.sleep(0.05)
    assert shown == []  # nothing due yet
    running[0] = True
    for _ in range(10_000):
        await asyncio.sleep(0.001)
        if len(shown) == 2:
            break
    assert now[0] > 1_000_000.0 + Config().lobby_timeout
    task.cancel()
    assert sorted(chat for chat, _ in shown) == ["chat:1", "chat:2"]
    assert all("idle" in outcome.messages[0].text for _, outcome in shown)
    snapshot = await service.store.load("chat:1")
    assert snapshot.table is None


async def test_the_loop_ends_when_cancelled_even_if_a_redis_call_swallows_the_cancel(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = GameService(Store(redis_client, Settings()), Config())
    calls = 0

    async def due_timers(scope: str, now: float, limit: int = 100) -> list[tuple[str, float]]:
        nonlocal calls
        calls += 1
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:  # as a broken command can come out of the client
            raise redis.exceptions.ConnectionError("Connection closed by server.") from None
        return []

    monkeypatch.setattr(service.store, "due_timers", due_timers)

    async def show(chat: str, outcome: Outcome) -> None:
        raise AssertionError("nothing is due")

    task = asyncio.create_task(timer_loop(service, show, "chat", interval=0.01))
    await asyncio.sleep(0.05)
    assert calls == 1
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2)  # (wait_for would wait on it forever)
    assert task in done, "the loop went on after it was cancelled"
    assert task.cancelled()
    assert calls == 1

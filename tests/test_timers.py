"""The timer loop fires due deadlines and hands their outcomes to the front end."""

import asyncio
from collections.abc import Collection

import pytest
import redis.asyncio as aioredis
import redis.exceptions
from service_helpers import ANN, BOB, CHAT, CID, Clock, Driver, service, table_of

from bot.commands import Kind
from bot.config import LOBBY_TIMEOUT_RANGE, TURN_TIMEOUT_RANGE, Config
from bot.messages import Outcome
from bot.requests import Request
from bot.service import GameService
from bot.store import Store
from bot.table import Settings, Table
from bot.timers import timer_loop
from engine import Phase, waiting_seats


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

    async def due_timers(
        scope: str,
        now: float,
        limit: int = 100,
        missed: list[BaseException] | None = None,
        skip: Collection[str] = (),
    ) -> list[tuple[str, float]]:
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


def waiting_for(table: Table) -> str:
    """The person the game waits for."""
    (seat, *_) = waiting_seats(table.game)
    return table.game.players[seat].id


@pytest.mark.parametrize("turn", TURN_TIMEOUT_RANGE)
async def test_the_reminder_comes_half_way_at_either_end_of_the_turn_timeout(
    redis_client: aioredis.Redis, turn: int
) -> None:
    """The shortest and the longest turn time: the group is reminded at half of it (not a
    second before), saying the half left, and the turn times out at the whole of it."""
    clock = Clock()
    svc = service(redis_client, clock=clock, config=Config(turn_timeout=turn))
    driver = Driver(svc, [ANN, BOB, CID], seed=2)
    await driver.lobby()
    table = await table_of(redis_client)
    assert table is not None
    late = next(u for u in driver.humans if u.id == waiting_for(table))
    clock.advance(turn / 2 - 1)
    assert await svc.run_timers("chat") == []
    clock.advance(1)
    ((_, reminded),) = await svc.run_timers("chat")
    assert [m.text for m in reminded.messages] == [
        f"⏳ {late.name}: it is your turn ({turn // 2} s left)."
    ]
    clock.advance(turn / 2 - 1)
    assert await svc.run_timers("chat") == []
    clock.advance(1)
    ((_, timed_out),) = await svc.run_timers("chat")
    assert any(f"⏰ {late.name} ran out of time" in m.text for m in timed_out.messages)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [late.id]


@pytest.mark.parametrize("idle", LOBBY_TIMEOUT_RANGE)
async def test_a_lobby_closes_at_either_end_of_the_lobby_timeout(
    redis_client: aioredis.Redis, idle: int
) -> None:
    clock = Clock()
    svc = service(redis_client, clock=clock, config=Config(lobby_timeout=idle))
    await svc.handle(CHAT, ANN, Request(Kind.JOIN))
    clock.advance(idle - 1)
    assert await svc.run_timers("chat") == []  # no reminder in a lobby
    clock.advance(1)
    ((_, closed),) = await svc.run_timers("chat")
    assert any("idle" in m.text for m in closed.messages)
    assert await table_of(redis_client) is None


async def test_a_game_whose_last_card_a_stand_in_plays_is_folded_once(
    redis_client: aioredis.Redis,
) -> None:
    """The last trick of the last round: the player to play its last card has run out of
    time, and the stand-in plays it. The game ends and its stats are folded once, however
    often the chat is shown again or its timers run."""
    clock = Clock()
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=5, wings_rate=0)
    await driver.lobby(["rounds=short"])
    state = await driver.play_until(
        lambda s: (
            s.phase is Phase.PLAYING
            and s.round.number == len(s.plan)
            and sum(map(len, s.round.hands)) == 1
        )
    )
    assert state.round is not None
    table = await table_of(redis_client)
    assert table is not None
    late = waiting_for(table)
    clock.advance(Config().turn_timeout)
    shown = await svc.run_timers("chat")
    assert shown
    await svc.moved()
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.phase is Phase.FINISHED
    assert late in table.away
    for _ in range(3):
        await svc.current(CHAT)
        clock.advance(Config().turn_timeout)
        assert await svc.run_timers("chat") == []
    fold = await svc.stats.fold(CHAT)
    assert fold.games == 1
    assert {standing.games for standing in fold.players.values()} == {1}

"""AI moves made apart from the transactions: decided from the chat as saved, applied once each
however many workers (and players) act at the same moment, made by another worker when the one
that was to make them died, and never holding up another chat."""

import asyncio
import random
import threading
import time
from collections.abc import Sequence

import pytest
import redis.asyncio as aioredis
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    Clock,
    Driver,
    client,
    raw,
    service,
    table_of,
)

import bot.chat
from bot.ai import get_ai
from bot.chat import Result, robot_seats
from bot.commands import Kind
from bot.config import Config
from bot.messages import Outcome
from bot.requests import Request
from bot.service import GameService
from bot.store import Snapshot, keys
from engine import Command, Phase, PlayerView


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def seated(driver: Driver, levels: list[str], options: list[str]) -> None:
    """The driver's first person joins, AI seats of `levels` are added (seated after them),
    the other people join, `options` are set, and it starts."""
    host = driver.humans[0]
    await driver.ok(host, Kind.JOIN)
    for level in levels:
        await driver.ok(host, Kind.ADD_AI, level)
    for user in driver.humans[1:]:
        await driver.ok(user, Kind.JOIN)
    for option in options:
        await driver.ok(host, Kind.OPTION, option)
    await driver.ok(host, Kind.START)


def cards_held(hands: Sequence[Sequence[object]]) -> int:
    return sum(map(len, hands))


async def test_ai_moves_are_applied_once_when_workers_race(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock
) -> None:
    """A player's card, then the AI seats' cards after it, while another worker is asked to
    show the table (which makes the AI moves the game waits for, too): each AI card is
    played once, one write each, however the two interleave."""
    svc = service(redis_client, seed=3, clock=clock)
    driver = Driver(svc, [ANN, BOB], seed=3)
    await seated(driver, ["hard", "hard"], ["rounds=short"])
    state = await driver.play_until(
        lambda s: (
            s.phase is Phase.PLAYING
            and s.round.number >= 2
            and s.round.turn == 0
            and not s.round.trick
        )
    )
    version, blob = await raw(redis_client)
    before = await table_of(redis_client)
    assert before is not None
    assert blob is not None
    assert before.game.round is not None
    assert before.game.round.turn == 0
    (payload,) = [p for u, p in driver.choices() if u == ANN][:1]
    other = service(client(redis_url), seed=9, clock=clock)
    try:
        for attempt in range(6):
            await redis_client.hset(keys.game(CHAT), mapping={"v": version, "t": blob})
            svc.store.forget(CHAT)
            other.store.forget(CHAT)

            async def look(delay: float) -> Outcome:
                await asyncio.sleep(delay)
                return await other.handle(CHAT, BOB, Request(Kind.HAND))

            pressed, looked = await asyncio.gather(
                svc.handle(CHAT, ANN, Request(Kind.BUTTON, payload)), look(0.002 * attempt)
            )
            assert not pressed.alert, pressed.answer
            after = await table_of(redis_client)
            assert after is not None
            assert after.game.round is not None
            rnd = after.game.round
            assert before.game.round is not None
            played = cards_held(before.game.round.hands) - cards_held(rnd.hands)
            # the trick went round: Ann's card, then both AI seats', then Bob's turn
            assert played == 3
            assert rnd.turn == after.game.seat_of(BOB.id)
            assert (await raw(redis_client))[0] == version + played  # one write a card
            # the player's outcome shows the trick as it stands after the AI's cards
            (group,) = [m for m in pressed.messages if m.to is None and m.slot == "table"]
            assert all(f"{name}" in group.text for name in ("Merlin", "Morgana"))
            assert not looked.alert
    finally:
        await other.store.client.aclose()
    assert state.round is not None


class DiesAfterSaving(GameService):
    """A worker that dies right after saving a move: it makes none of the AI moves after it."""

    async def _robots(
        self, chat: str, snap: Snapshot, result: Result, seen: dict[str, str]
    ) -> tuple[Snapshot, Result]:
        return snap, result


async def test_another_worker_makes_the_ai_moves_of_one_that_died(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock
) -> None:
    """The worker that saved a move dies before the AI moves after it: the table's deadline
    (`ai_grace` seconds on) falls due on another worker, which makes them, and shows them."""
    config = Config(ai_grace=5)
    doomed = DiesAfterSaving(
        service(redis_client, clock=clock).store, config, clock=clock, rng=random.Random(1)
    )
    driver = Driver(doomed, [ANN], seed=1)
    await seated(driver, ["normal", "normal"], ["rounds=short"])
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline is not None
    if not robot_seats(table):  # Ann bids first: then the AI seats
        await driver.move()
        table = await table_of(redis_client)
        assert table is not None
        assert table.deadline is not None
    assert robot_seats(table)  # left waiting for the AI, its deadline close
    assert table.deadline == clock.now + 5
    version = (await raw(redis_client))[0]
    survivor = service(client(redis_url), seed=2, clock=clock, config=config)
    try:
        clock.now += 4
        assert await survivor.run_timers("chat") == []  # not due yet
        clock.now += 2
        fired = await survivor.run_timers("chat")
        after = await table_of(redis_client)
        assert after is not None
        assert (await raw(redis_client))[0] > version + 1  # the deadline moved, then AI moves
        assert fired
        assert fired[0][0] == CHAT
        texts = [m.text for m in fired[0][1].messages]
        assert any("Ann" in text for text in texts)
        # the game now waits for Ann alone, with her turn's whole time
        assert after.deadline == clock.now + config.turn_timeout
    finally:
        await survivor.store.client.aclose()


class Gated:
    """An AI level that decides only once `gate` is open (a slow thinker held at will)."""

    def __init__(self, level: str, gate: threading.Event) -> None:
        self.ai = get_ai(level)
        self.gate = gate

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        assert self.gate.wait(30)
        return self.ai.decide(view, rng)


async def test_a_tick_does_not_wait_for_the_ai_moves_its_timeouts_leave(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two chats wait for AI moves a dead worker left: the tick that fires their deadlines
    makes those moves aside and returns at once (one chat's AI holds up neither the other
    chats' deadlines nor the heartbeat), and a later tick shows what the moves show."""
    gate = threading.Event()
    monkeypatch.setattr(bot.chat, "get_ai", lambda level: Gated(level, gate))
    config = Config(ai_grace=5)
    doomed = DiesAfterSaving(
        service(redis_client, clock=clock).store, config, clock=clock, rng=random.Random(1)
    )
    chats = [f"{CHAT}:{n}" for n in range(2)]
    for number, chat in enumerate(chats):
        driver = Driver(doomed, [ANN], chat=chat, seed=number)
        await seated(driver, ["normal", "normal"], ["rounds=short"])
        table = await table_of(redis_client, chat)
        assert table is not None
        if not robot_seats(table):  # Ann bids first: then the AI seats
            await driver.move()
        assert robot_seats(await table_of(redis_client, chat) or table)
    survivor = service(client(redis_url), seed=2, clock=clock, config=config)
    try:
        await survivor.tick("chat")  # it beats: the scope knows it
        clock.now += 6
        try:
            shown = await asyncio.wait_for(survivor.tick("chat"), 10)
            # the AI still thinks: nothing new to show yet (but the chats as they were, which
            # the dead worker's journal names)
            assert [chat for chat, outcome in shown if not outcome.again] == []
            for chat in chats:
                table = await table_of(redis_client, chat)
                assert table is not None
                assert robot_seats(table)
        finally:
            gate.set()
        await survivor.moved()
        shown = await survivor.tick("chat")
        assert sorted(chat for chat, outcome in shown if not outcome.again) == chats
        for chat in chats:
            table = await table_of(redis_client, chat)
            assert table is not None
            assert not robot_seats(table)  # the game waits for Ann now
    finally:
        gate.set()
        await survivor.store.client.aclose()


async def test_a_read_makes_the_ai_moves_a_dead_worker_left(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Where no timer runs (the terminal table), any request that reads the table makes the
    AI moves it finds the game waiting for."""
    doomed = DiesAfterSaving(
        service(redis_client, clock=clock).store, Config(), clock=clock, rng=random.Random(4)
    )
    driver = Driver(doomed, [ANN], seed=4)
    await seated(driver, ["normal", "normal", "normal"], [])
    version = (await raw(redis_client))[0]
    svc = service(redis_client, seed=5, clock=clock)
    svc.store.forget(CHAT)
    outcome = await svc.handle(CHAT, ANN, Request(Kind.HAND))
    assert not outcome.alert
    assert (await raw(redis_client))[0] > version
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.phase is Phase.BIDDING or table.game.phase is Phase.PLAYING
    hand = [m for m in outcome.messages if m.to == ANN.id]
    assert hand
    assert "Your" in hand[-1].text


HELD = 30.0
"""How long a held AI decision waits at most for a request of another chat to be served."""


class Timed(GameService):
    """A worker that notes when each AI decision it makes starts and ends. While one is under
    way, `deciding` holds its start and an event the test sets once a request of another chat,
    begun after that start, has been served (`Held` waits for it)."""

    spans: list[tuple[float, float]]
    deciding: tuple[float, threading.Event] | None = None

    async def _think(self, level: str, view: PlayerView) -> Command:
        started = time.perf_counter()
        self.deciding = (started, threading.Event())
        try:
            return await super()._think(level, view)
        finally:
            self.spans.append((started, time.perf_counter()))
            self.deciding = None


class Held:
    """An AI level whose decision, made in the worker's thread, ends only once the worker's
    current decision is marked served (or HELD seconds pass): one that takes as long as the
    machine makes another chat's request take, whatever its speed."""

    def __init__(self, level: str, worker: Timed) -> None:
        self.ai = get_ai(level)
        self.worker = worker

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        command = self.ai.decide(view, rng)
        deciding = self.worker.deciding
        if deciding is not None:
            deciding[1].wait(HELD)
        return command


async def test_no_chat_waits_for_another_chats_ai(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one chat's `hard` seats decide, another chat's requests are served: one of its
    requests begins and ends within a single AI decision. Each decision is held open, in its
    worker thread, until a request begun during it is served: on a busy machine a request
    (its Redis round trips each waiting for the AI's thread to give up the GIL) took up to
    280 ms, a `hard` decision as little as 110 ms. Were the decision made on the event loop,
    or did the request wait for it, none would be served within it."""
    svc = Timed(service(redis_client, clock=clock).store, Config(), clock, random.Random(6))
    svc.spans = []
    thinking = Driver(svc, [ANN], chat="chat:-1", seed=6)
    await seated(thinking, ["normal", "normal", "normal"], [])
    await thinking.play_until(
        lambda s: (
            s.phase is Phase.PLAYING
            and s.round.number >= 5
            and s.round.turn == 0
            and not s.round.trick
        )
    )
    table = await table_of(redis_client, "chat:-1")
    assert table is not None
    table.ai = dict.fromkeys(table.ai, "hard")  # from here on, the AI seats think a while
    await redis_client.hset(keys.game("chat:-1"), mapping={"t": table.to_bytes()})
    svc.store.forget("chat:-1")
    svc.spans.clear()
    monkeypatch.setattr(bot.chat, "get_ai", lambda level: Held(level, svc))
    (user, payload), *_ = thinking.choices()
    served: list[tuple[float, float]] = []
    moves = asyncio.ensure_future(svc.handle("chat:-1", user, Request(Kind.BUTTON, payload)))
    number = 10
    while not moves.done():  # each decision is held HELD seconds at most
        started = time.perf_counter()
        outcome = await svc.handle(f"chat:-{number}", BOB, Request(Kind.JOIN))
        assert not outcome.alert
        served.append((started, time.perf_counter()))
        deciding = svc.deciding
        if deciding is not None and deciding[0] <= started:
            deciding[1].set()  # this decision may end now
        number += 1
        await asyncio.sleep(0.005)
    await moves
    assert len(svc.spans) >= 3  # the three AI seats follow Ann; the winner may lead on
    assert any(
        start <= begun and ended <= end for start, end in svc.spans for begun, ended in served
    ), (svc.spans, served[:5])

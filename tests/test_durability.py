"""Crashes and outages: the bot killed with SIGKILL mid-round and started again, the redis-server
killed and restarted (appendfsync always: nothing acknowledged is lost), and Redis unreachable
(an alert, never an exception; the game intact once Redis is back)."""

import asyncio
import contextlib
import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    ROUND_PHASES,
    Clock,
    Driver,
    RecordingStore,
    client,
    digest,
    game_of,
    human,
    indexed_in_time,
    raw,
    recorded,
    refusal,
    replay,
    service,
    table_of,
    worker_command,
)

from bot.commands import Kind
from bot.config import Config
from bot.requests import Request
from bot.service import GAP, LEASE
from bot.store import redis_client
from bot.store.redis_server import RedisServer, free_port
from engine import ErrorCode, Phase, check_record

UNREACHABLE = "The game store cannot be reached right now. Please try again shortly."


@pytest.fixture
def server(redis_server: RedisServer) -> Iterator[RedisServer]:
    """The session's redis-server, for a test that stops or kills it: running again after."""
    yield redis_server
    if not redis_server.running:
        redis_server.start()


def read_until(
    process: subprocess.Popen[bytes], done: Callable[[dict[str, Any]], bool], timeout: float = 30
) -> list[dict[str, Any]]:
    """The JSON lines `process` prints, up to the first for which `done` holds."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    buffer, seen = b"", []
    deadline = time.monotonic() + timeout
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            item = json.loads(line)
            seen.append(item)
            if done(item):
                return seen
        left = deadline - time.monotonic()
        assert left > 0, seen
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"the worker ended: {seen[-3:]}"
            buffer += chunk


async def record_of(driver: Driver) -> Any:
    outcome = await driver.svc.handle(driver.chat, ANN, Request(Kind.RECORD))
    assert not outcome.alert
    attachment = outcome.messages[0].attachment
    assert attachment is not None
    return json.loads(attachment[1])


# --- 4. the bot killed ---------------------------------------------------------------------------


async def test_the_bot_killed_mid_round_continues_where_it_was(
    redis_url: str, redis_client: aioredis.Redis
) -> None:
    command = worker_command("crash", redis_url, CHAT, 41, 0.02)
    with subprocess.Popen(command, stdout=subprocess.PIPE) as bot:
        try:
            printed = read_until(bot, lambda item: item.get("round") == 3 and item["trick"] >= 1)
        finally:
            os.kill(bot.pid, signal.SIGKILL)
            bot.wait()
    assert bot.returncode == -signal.SIGKILL
    acked = [item for item in printed if "version" in item]
    last = acked[-1]
    version, blob = await raw(redis_client)
    assert blob is not None
    assert last["version"] <= version <= last["version"] + 1  # at most one write in flight
    table = await table_of(redis_client)
    assert table is not None
    state = table.game
    assert state.phase in ROUND_PHASES
    assert state.round is not None
    assert state.round.number == 3
    if version == last["version"]:
        assert digest(state) == last["digest"]

    # A new service picks the game up as it was: same version, round, hands.
    svc = service(client(redis_url), seed=42)
    snap = await svc.store.load(CHAT)
    assert snap.version == version
    assert snap.table is not None
    assert snap.table.game.to_dict() == state.to_dict()
    assert snap.table.game.round is not None
    assert snap.table.game.round.hands == state.round.hands
    driver = Driver(svc, [ANN, BOB, CID], seed=42, wings_rate=0)
    for user in driver.humans:  # people ask for their hands again
        await driver.ok(user, Kind.HAND)
    for _ in range(4):
        await driver.move()
    moved = await game_of(redis_client)
    assert moved.seq == state.seq + 4

    # And a new process of the bot plays it to the end.
    command = worker_command("crash", redis_url, CHAT, 43, 0)
    with subprocess.Popen(command, stdout=subprocess.PIPE) as again:
        try:
            rest = read_until(again, lambda item: "finished" in item)
        finally:
            again.kill()
            again.wait()
    assert rest[0]["version"] == version + 5
    final = await game_of(redis_client)
    assert final.phase is Phase.FINISHED
    record = await record_of(driver)
    replayed = check_record(record)
    assert replayed.totals == final.totals
    assert record["rounds"][2]["hands"] == [list(hand) for hand in state.round.dealt]
    assert (await raw(redis_client))[0] == rest[-2]["version"]
    await svc.store.client.aclose()


class DiesAfterWrite(RecordingStore):
    """A store whose process dies right after its compare-and-set: every later call fails."""

    dead = False

    async def save(self, *args: Any, **kwargs: Any) -> bool | None:
        if self.dead:
            raise RedisConnectionError("the bot was killed here")
        saved = await super().save(*args, **kwargs)
        self.dead = bool(saved)
        return saved

    async def set_timer(
        self,
        chat: str,
        deadline: float,
        earlier: bool = False,
        journal: tuple[str, float] | None = None,
    ) -> None:
        if self.dead:
            raise RedisConnectionError("the bot was killed here")
        await super().set_timer(chat, deadline, earlier, journal)

    async def load(self, *args: Any, **kwargs: Any) -> Any:
        if self.dead:
            raise RedisConnectionError("the bot was killed here")
        return await super().load(*args, **kwargs)


@pytest.mark.parametrize("kind", [Kind.ADD_AI, Kind.START])
async def test_an_acknowledged_write_is_reported_as_done(
    redis_client: aioredis.Redis, kind: Kind
) -> None:
    """The store failing after a write was made does not make it reported as failed. A start
    indexes the first turn's time (earlier than the lobby's) before its write, and again once it
    is made (a timer may have moved the entry on meanwhile): the store failing for that second
    index leaves the index before the write standing."""
    driver = Driver(service(redis_client), [ANN, BOB, CID])
    await driver.lobby(start=False)
    dying = Driver(service(redis_client), [ANN])
    dying.svc.store = DiesAfterWrite(redis_client)
    version, _ = await raw(redis_client)
    outcome = await dying.send(ANN, Request(kind), check=False)
    assert (await raw(redis_client))[0] == version + 1  # it was applied...
    assert not outcome.alert, outcome.answer  # ...so it must not be reported as failed
    await indexed_in_time(redis_client)


async def test_a_deadline_outlives_a_crash_after_the_write(redis_client: aioredis.Redis) -> None:
    clock = Clock()
    driver = Driver(service(redis_client, seed=44, clock=clock), [ANN, BOB, CID], seed=44)
    await driver.lobby(["rounds=short"])
    (user, payload), *_ = driver.choices()
    dying = service(redis_client, seed=45, clock=clock)
    dying.store = DiesAfterWrite(redis_client)
    clock.advance(5)
    await dying.handle(CHAT, user, Request(Kind.BUTTON, payload))
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline == clock.now + Config().turn_timeout  # the move was applied
    restarted = service(redis_client, seed=46, clock=clock)
    clock.now = table.deadline + 1
    fired = await restarted.run_timers("chat")
    assert len(fired) == 1  # the late player's turn times out all the same


class DiesAfterMovingItsEntry(RecordingStore):
    """A store whose process dies right after it set a chat's timer entry whatever its time (a
    timer moving its entry on to the table's next time, before its write): every later call
    fails."""

    dead = False

    async def set_timer(self, chat: str, deadline: float, **kwargs: Any) -> None:
        if self.dead:
            raise RedisConnectionError("the bot was killed here")
        await super().set_timer(chat, deadline, **kwargs)
        self.dead = not kwargs.get("earlier")

    async def save(self, *args: Any, **kwargs: Any) -> bool | None:
        raise RedisConnectionError("the bot was killed here")


async def test_a_timeout_outlives_a_crash_after_its_entry_moved_on(
    redis_client: aioredis.Redis,
) -> None:
    """A turn times out on a worker that moves the chat's entry on to the next turn's time
    before it writes the timeout, and dies between the two: the table still waits for the late
    player. The worker that takes the dead one's journal over must time the turn out now, not
    a whole turn later."""
    clock = Clock()
    driver = Driver(service(redis_client, seed=44, clock=clock), [ANN, BOB, CID], seed=44)
    await driver.lobby(["rounds=short"])
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline is not None
    version, _ = await raw(redis_client)
    clock.now = table.deadline + 1
    dying = service(redis_client, seed=45, clock=clock)
    dying.store = DiesAfterMovingItsEntry(redis_client)
    assert await dying.run_timers("chat") == []
    assert (await raw(redis_client))[0] == version  # the timeout was not written
    clock.advance(LEASE + 1)
    alive = driver.svc  # the worker that wrote the game lives on: its journal stays its own
    await alive.store.beat("chat", alive.worker, clock(), GAP, LEASE)
    await service(redis_client, seed=46, clock=clock).tick("chat")
    late = await table_of(redis_client)
    assert late is not None
    assert late.away  # the late player is on autopilot
    await indexed_in_time(redis_client)


# --- 5. the redis-server killed and restarted ----------------------------------------------------


async def test_a_redis_crash_loses_nothing_acknowledged(
    server: RedisServer, redis_client: aioredis.Redis
) -> None:
    driver = Driver(service(redis_client, seed=51), [human(n) for n in range(1, 7)], seed=51)
    await driver.lobby(["rounds=short", "bids=hidden", "notequal"])
    for _ in range(12):
        await driver.move()
    store = recorded(driver.svc)

    # SIGKILL right after an acknowledged write: it is there after the restart.
    server.kill()
    down = await driver.send(ANN, Request(Kind.HAND), check=False)
    assert down.alert
    assert down.answer == UNREACHABLE
    server.restart()
    assert await raw(redis_client) == (store.acked[-1].version, store.acked[-1].blob)

    # SIGKILL in the middle of a burst of conflicting presses.
    for user in driver.humans:
        await driver.ok(user, Kind.HAND)
    presses = [(u, Request(Kind.BUTTON, p)) for u, p in driver.choices()] * 3

    before = len(store.acked)

    async def crash() -> None:
        while len(store.acked) < before + 2:  # kill it as the writes come in
            await asyncio.sleep(0.0002)
        await asyncio.to_thread(server.kill)

    outcomes, _ = await asyncio.gather(driver.at_once(presses, check=False), crash())
    server.restart()
    version, blob = await raw(redis_client)
    acked = {note.version: note for note in store.acked}
    assert version >= max(acked)
    committed = next(n for n in store.tried if n.version == version and n.blob == blob)
    # Every press reported done is in the state; the others were refused or not answered.
    done = [label for label, o in zip(driver.last_labels, outcomes, strict=True) if not o.alert]
    made = {note.label: note.version for note in store.acked}
    assert all(made[label] <= version for label in done)
    assert len(done) <= len(store.acked) - before
    assert {o.answer for o in outcomes if o.alert} <= {
        UNREACHABLE,
        "This button is out of date.",
        refusal(ErrorCode.ALREADY_BID),
        refusal(ErrorCode.NOT_YOUR_TURN),
    }
    if committed.version not in acked:  # written, but the answer was lost in the crash
        store.acked.append(committed)

    # The game goes on, and the stored game is the replay of every write Redis took.
    for user in driver.humans:
        await driver.ok(user, Kind.HAND)
    final = await driver.play_to_end()
    replay(driver.applied(), final.seed, final)
    assert check_record(await record_of(driver)).totals == final.totals


# --- 6. Redis unreachable ------------------------------------------------------------------------


async def test_an_unreachable_redis_gets_an_alert_not_an_exception() -> None:
    svc = service(client(f"redis://127.0.0.1:{free_port()}/0"))
    requests = [
        Request(Kind.JOIN),
        Request(Kind.START),
        Request(Kind.HELP),
        Request(Kind.RECORD),
        Request(Kind.SCORES),
        Request(Kind.BID, "1"),
        Request(Kind.BUTTON, "abc123.L.j"),
        Request(Kind.BUTTON, "garbage"),
    ]
    for request in requests:
        outcome = await asyncio.wait_for(svc.handle(CHAT, ANN, request, "u1"), 10)
        assert outcome.alert, request
        assert outcome.messages == ()
        assert outcome.answer == UNREACHABLE
    await svc.store.client.aclose()


async def test_a_game_survives_redis_going_away_and_coming_back(
    server: RedisServer, redis_client: aioredis.Redis
) -> None:
    driver = Driver(service(redis_client, seed=61), [ANN, BOB, CID], seed=61)
    await driver.lobby(["rounds=short", "bids=hidden"])
    await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 2)
    before = await raw(redis_client)
    user, payload = driver.choices()[0]
    server.stop()
    for request in (Request(Kind.BUTTON, payload), Request(Kind.HAND), Request(Kind.RECORD)):
        outcome = await driver.svc.handle(CHAT, user, request)
        assert outcome.alert
        assert outcome.answer == UNREACHABLE
        assert outcome.messages == ()
    server.start()
    assert await raw(redis_client) == before  # intact
    assert not (await driver.press(user, payload)).alert  # the same button works now
    final = await driver.play_to_end()
    replay(driver.applied(), final.seed, final)
    assert check_record(await record_of(driver)).totals == final.totals


@contextlib.contextmanager
def frozen(server: RedisServer) -> Iterator[None]:
    """The redis-server stopped by SIGSTOP (it holds every connection open and answers
    nothing), and going on again by SIGCONT on the way out."""
    assert server.pid is not None
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


async def test_a_frozen_redis_is_answered_within_two_seconds_and_changes_nothing(
    tmp_path: Path,
) -> None:
    config = Config(redis_timeout=0.5)
    # The server fsyncs once a second, not before each answer: on a machine whose disk is busy
    # with other work, an fsync alone could outlast the half second this test gives Redis, and
    # the press once it is back would be told the store cannot be reached (seen once, with
    # three test runs at once). What is checked here is the freeze, not the disk.
    with RedisServer(tmp_path, port=free_port(), appendfsync="everysec") as server:
        redis = redis_client(server.url, config.redis_timeout)
        try:
            driver = Driver(service(redis, seed=62, config=config), [ANN, BOB, CID], seed=62)
            await driver.lobby(["rounds=short", "bids=hidden"])
            await driver.play_until(lambda s: s.phase is Phase.PLAYING)
            before = await raw(redis)
            user, payload = driver.choices()[0]
            with frozen(server):
                for request in (Request(Kind.BUTTON, payload), Request(Kind.HAND)):
                    started = time.monotonic()
                    outcome = await driver.svc.handle(CHAT, user, request, "frozen-1")
                    waited = time.monotonic() - started
                    assert waited < 2, f"{request.kind} waited {waited:.2f} s"
                    assert outcome.alert
                    assert outcome.answer == UNREACHABLE
                    assert outcome.messages == ()
            assert await raw(redis) == before  # nothing half-applied
            assert not (await driver.press(user, payload)).alert  # and the button works now
        finally:
            await redis.aclose()

"""Conflicting commands for one chat at the same moment, from 50 asyncio tasks and from several
OS processes with services and Redis connections of their own: each legal command is applied
exactly once, none is lost, and the final state is the engine's replay of the accepted ones in
the order they were applied."""

import asyncio
import json
import random
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    JOINED,
    Clock,
    Driver,
    RecordingStore,
    check_outcome,
    game_of,
    human,
    indexed_in_time,
    lines,
    payloads,
    raw,
    recorded,
    refusal,
    replay,
    service,
    table_of,
    worker_command,
)
from test_durability import DiesAfterWrite

from bot import tokens
from bot.chat import Result
from bot.commands import Kind
from bot.config import Config
from bot.messages import Outcome
from bot.requests import Request, User
from bot.service import GAP, LEASE, GameService
from bot.store import Snapshot, Store, Write, keys
from engine import ErrorCode, GameState, Phase, check_record

OUT_OF_DATE = "This button is out of date."


def people(count: int) -> list[User]:
    return [human(number) for number in range(1, count + 1)]


async def started(
    redis_client: aioredis.Redis, count: int, options: list[str], seed: int
) -> Driver:
    driver = Driver(service(redis_client, seed=seed), people(count), seed=seed)
    await driver.lobby(options)
    return driver


async def check_replay(driver: Driver) -> GameState:
    """The stored game is the engine's replay of every request the store acknowledged."""
    final = await game_of(driver.redis, driver.chat)
    replay(driver.applied(), final.seed, final)
    versions = [note.version for note in recorded(driver.svc).acked]
    assert sorted(versions) == list(range(1, len(versions) + 1))  # one write per version
    assert (await raw(driver.redis, driver.chat))[0] == len(versions)
    return final


async def test_fifty_people_join_at_once(redis_client: aioredis.Redis) -> None:
    driver = Driver(service(redis_client), [])
    crowd = people(50)
    outcomes = await driver.at_once([(user, Request(Kind.JOIN)) for user in crowd])
    seated = [user for user, outcome in zip(crowd, outcomes, strict=True) if not outcome.alert]
    refused = [outcome for outcome in outcomes if outcome.alert]
    assert len(seated) == 6
    assert len(refused) == 44
    assert {o.answer for o in outcomes if not o.alert} == {JOINED}
    assert {o.answer for o in refused} == {refusal(ErrorCode.GAME_FULL)}
    table = await table_of(redis_client)
    assert table is not None
    order = [user for _, user, _ in sorted(driver.applied(), key=lambda item: item[0])]
    assert [p.id for p in table.game.players] == [user.id for user in order]
    assert set(order) == set(seated)
    assert table.host == order[0].id
    await check_replay(driver)
    # The lobby each of them saw lists the table as it was when they sat down.
    for seat, user in enumerate(order):
        outcome = outcomes[crowd.index(user)]
        assert outcome.messages[0].text.count("\n") >= seat + 1
        assert f"{seat + 1}. {user.name}" in outcome.messages[0].text


async def test_everybody_presses_bid_buttons_at_once(redis_client: aioredis.Redis) -> None:
    driver = await started(redis_client, 6, ["rounds=short", "bids=hidden", "notequal"], seed=31)
    rng = random.Random(31)
    presses = []
    for index in range(50):
        user = driver.humans[index % 6]
        hand = driver.screens.hand(user)
        assert hand is not None
        presses.append((user, Request(Kind.BUTTON, rng.choice(payloads(hand)))))
    before = await game_of(redis_client)
    outcomes = await driver.at_once(presses)
    accepted = [
        (user, request)
        for (user, request), outcome in zip(presses, outcomes, strict=True)
        if not outcome.alert
    ]
    assert Counter(user for user, _ in accepted) == Counter(driver.humans)  # one bid each
    answers = {o.answer for o in outcomes if o.alert}
    assert answers <= {refusal(ErrorCode.ALREADY_BID), OUT_OF_DATE}
    state = await game_of(redis_client)
    assert state.seq == before.seq + 6
    assert state.round is not None
    for user, request in accepted:
        seat = state.seat_of(user.id)
        assert seat is not None
        assert state.round.bids[seat] == int(tokens.decode(request.arg).arg)
    await check_replay(driver)
    # The game goes on from there, with everybody's screens right.
    final = await driver.play_to_end()
    assert final.phase is Phase.FINISHED
    await check_replay(driver)


async def test_one_button_pressed_fifty_times_applies_once(redis_client: aioredis.Redis) -> None:
    driver = await started(redis_client, 3, ["rounds=short"], seed=32)
    before = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 2)
    (user, payload), *_ = driver.choices()
    version, _ = await raw(redis_client)
    outcomes = await driver.at_once([(user, Request(Kind.BUTTON, payload))] * 50)
    assert sum(not o.alert for o in outcomes) == 1
    assert {o.answer for o in outcomes if o.alert} <= {
        refusal(ErrorCode.NOT_YOUR_TURN),
        OUT_OF_DATE,
    }
    assert (await raw(redis_client))[0] == version + 1
    assert (await game_of(redis_client)).seq == before.seq + 1
    await check_replay(driver)


async def test_a_whole_game_of_conflicting_presses(redis_client: aioredis.Redis) -> None:
    """Everybody presses every button they have, each twice, all at once, wave after wave."""
    options = ["rounds=short", "bids=hidden", "notequal", "wings"]
    driver = await started(redis_client, 4, options, seed=33)
    waves = 0
    while (await game_of(redis_client)).phase is not Phase.FINISHED:
        waves += 1
        assert waves < 500
        buttons = driver.choices() + driver.marks()
        assert buttons
        presses = [(user, Request(Kind.BUTTON, payload)) for user, payload in buttons] * 2
        outcomes = await driver.at_once(presses)
        assert any(not o.alert for o in outcomes)
        for outcome in outcomes:
            if not outcome.alert:
                check_outcome(outcome, None)
    final = await check_replay(driver)
    record = await driver.svc.handle(CHAT, driver.humans[0], Request(Kind.RECORD))
    attachment = record.messages[0].attachment
    assert attachment is not None
    assert check_record(json.loads(attachment[1])).totals == final.totals


# --- other processes -----------------------------------------------------------------------------


def spawn(mode: str, url: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        worker_command(mode, url, CHAT, *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def go(redis_client: aioredis.Redis, workers: list[subprocess.Popen[str]]) -> list[str]:
    """Wait until every worker is ready, let them all go at once, collect what they print."""
    deadline = time.monotonic() + 30
    while await redis_client.exists(*(f"test:ready:{n}" for n in range(len(workers)))) < len(
        workers
    ):
        assert time.monotonic() < deadline, [w.poll() for w in workers]
        await asyncio.sleep(0.01)
    await redis_client.set("test:go", 1)
    outputs = []
    for worker in workers:
        out, err = await asyncio.to_thread(worker.communicate, timeout=60)
        assert worker.returncode == 0, err
        outputs.append(out)
    return outputs


async def test_processes_seat_people_at_once(redis_url: str, redis_client: aioredis.Redis) -> None:
    count, each = 4, 12
    workers = [
        spawn("join", redis_url, n, *range(n * each + 1, (n + 1) * each + 1)) for n in range(count)
    ]
    reports = [item for out in await go(redis_client, workers) for item in lines(out)]
    answers = [item for item in reports if "user" in item]
    assert len(answers) == count * each
    seated = sorted(item["user"] for item in answers if item["ok"])
    assert len(seated) == 6
    assert {item["answer"] for item in answers if not item["ok"]} == {refusal(ErrorCode.GAME_FULL)}
    applied = sorted((item["seq"], int(item["applied"])) for item in reports if "applied" in item)
    assert [seq for seq, _ in applied] == list(range(1, 7))
    assert sorted(number for _, number in applied) == seated
    final = await game_of(redis_client)
    replay([(seq, human(number), Request(Kind.JOIN)) for seq, number in applied], final.seed, final)
    assert (await raw(redis_client))[0] == 6


async def test_processes_play_one_game_against_each_other(
    redis_url: str, redis_client: aioredis.Redis
) -> None:
    driver = await started(redis_client, 6, ["rounds=short", "bids=hidden", "notequal"], seed=34)
    workers = [spawn("play", redis_url, n) for n in range(3)]
    printed = [item for out in await go(redis_client, workers) for item in lines(out)]
    reports = [item for item in printed if "applied" in item]
    refusals = [item for item in printed if "refused" in item]
    assert len(refusals) == 3
    applied = driver.applied()
    versions = [note.version for note in recorded(driver.svc).acked]
    for item in reports:
        user_id, name, payload = json.loads(item["applied"])
        applied.append((item["seq"], User(user_id, name), Request(Kind.BUTTON, payload)))
        versions.append(item["version"])
    final = await game_of(redis_client)
    assert final.phase is Phase.FINISHED
    assert sorted(versions) == list(range(1, (await raw(redis_client))[0] + 1))
    assert len({item["version"] for item in reports}) == len(reports)
    assert sum(item["version"] > len(driver.applied()) for item in reports) > 100
    replay(applied, final.seed, final)
    assert len({json.loads(item["applied"])[0] for item in reports}) == 6
    assert len({item["worker"] for item in reports}) >= 2  # they really raced
    assert sum(item["refused"] for item in refusals) > 0


async def test_a_worker_behind_another_takes_and_refuses_as_the_chat_is_now(
    redis_client: aioredis.Redis,
) -> None:
    """Two workers serve one chat. Each applies a request to the chat as it last read or wrote
    it, in one round trip; when the other moved meanwhile, what it knew is behind: a move that
    is legal now is taken (not refused for what it knew), a move that was legal then but is not
    now is refused, and a screen it shows is the chat as it is now."""
    here = Driver(service(redis_client, seed=5), people(3), seed=5)
    await here.lobby(["rounds=short"])
    there = service(redis_client, seed=6)
    # the first mover's press: through the other worker (this one does not see it)
    user, payload = here.choices()[0]
    moved = await there.handle(CHAT, user, Request(Kind.BUTTON, payload))
    assert not moved.alert
    version = (await raw(redis_client))[0]
    # the same press again, through this worker, which knows the chat from before it
    again = await here.svc.handle(CHAT, user, Request(Kind.BUTTON, payload))
    assert again.alert
    assert (await raw(redis_client))[0] == version  # refused: nothing written
    # the next mover's press, as the other worker showed it: legal now, and taken here
    here.screens.show(moved)
    nxt, pressed = here.choices()[0]
    assert nxt != user
    taken = await here.svc.handle(CHAT, nxt, Request(Kind.BUTTON, pressed))
    assert not taken.alert, taken.answer
    assert (await raw(redis_client))[0] == version + 1
    check_outcome(taken, await table_of(redis_client), here.theme)
    # a screen shown by the other worker, which knows the chat from before that move
    shown = await there.handle(CHAT, user, Request(Kind.HAND))
    assert shown.version is not None
    assert shown.version[1] == version + 1


async def test_a_worker_behind_never_indexes_a_deadline_later_than_the_table(
    redis_client: aioredis.Redis,
) -> None:
    """The timer index holds, for each chat, a time no later than its table's: a worker that
    applies a request to the chat as it knew it (a lobby, far from its deadline) indexes the
    deadline that makes before its write is refused as out of date; it must not push back the
    deadline another worker indexed for the game now in play (the randomized interleavings of
    tests/test_interleavings.py found it: the turn would have timed out that much late)."""
    clock = Clock()
    here = Driver(service(redis_client, seed=5, clock=clock), people(3), seed=5)
    await here.lobby(start=False)
    there = service(redis_client, seed=6, clock=clock)
    host = here.humans[0]
    assert not (await there.handle(CHAT, host, Request(Kind.START))).alert
    clock.advance(10)
    again = await here.svc.handle(CHAT, host, Request(Kind.START))  # here knows the lobby
    assert again.alert
    await indexed_in_time(redis_client)


async def test_a_worker_that_knew_no_table_never_indexes_its_lobby_over_a_game(
    redis_client: aioredis.Redis,
) -> None:
    """A worker that knew the chat without a table (it cancelled the last) opens a lobby for
    a /join, indexing the lobby's deadline, half an hour on, before its write; meanwhile another
    worker opened and started a game there, so the write is refused. The game's entry must be
    no later than its turn's deadline: else nobody is timed out for half an hour."""
    clock = Clock()
    here = Driver(service(redis_client, seed=5, clock=clock), people(3), seed=5)
    await here.lobby(start=False)
    await here.ok(here.humans[0], Kind.CANCEL)  # here knows the chat with no table
    there = Driver(service(redis_client, seed=6, clock=clock), people(3), seed=6)
    await there.lobby()
    clock.advance(10)
    late = await here.svc.handle(CHAT, human(9), Request(Kind.JOIN))
    assert late.alert  # the game is in play
    await indexed_in_time(redis_client)


class Interposing(RecordingStore):
    """A store that runs `then`, once set, right after its next write is made: before the
    worker that made it goes on."""

    then: Callable[[], Awaitable[object]] | None = None

    async def save(
        self,
        chat: str,
        version: int,
        write: Write,
        update_id: str | None = None,
        journal: tuple[str, float] | None = None,
    ) -> bool | None:
        saved = await super().save(chat, version, write, update_id, journal)
        then, self.then = self.then, None
        if saved and then is not None:
            await then()
        return saved


async def test_a_resume_as_a_pause_is_credited_for_an_outage_keeps_its_turn_indexed(
    redis_client: aioredis.Redis,
) -> None:
    """Ann, alone with AI seats, let her time run out: the game paused. The bot was down past
    the pause's deadline: the worker back credits the pause for it, its timer entry to move
    on, half an hour later, once the write is made. Ann presses Resume on another worker just
    as that write is made: her turn's deadline is indexed (`ZADD LT`, the entry is still the
    one due). Her turn must still time out on time, not half an hour late."""
    clock = Clock()
    store = Interposing(redis_client)
    here = GameService(store, Config(), clock=clock, rng=random.Random(7))
    driver = Driver(here, [ANN], seed=7)
    await driver.lobby(["rounds=short"], ai=2)
    paused = await table_of(redis_client)
    assert paused is not None
    assert paused.deadline is not None
    clock.now = paused.deadline + 1
    await here.run_timers("chat")  # her time ran out: paused
    await here.tick("chat")  # a beat as it paused
    paused = await table_of(redis_client)
    assert paused is not None
    assert paused.paused()
    assert paused.deadline is not None
    there = service(redis_client, seed=8, clock=clock)
    store.then = lambda: there.handle(CHAT, ANN, Request(Kind.RESUME))
    clock.now = paused.deadline + 1
    await here.tick("chat")  # back after the outage: the pause is credited for it
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []  # her Resume was taken
    await indexed_in_time(redis_client)


class Hooked(RecordingStore):
    """A store that runs a step, each once set, at points of its timer index's writes:
    `before_move` right before its next entry is moved or dropped (after the timer read the
    table it decided from), `before_replace` right before its next entry is set whatever its
    time, `after_index` right after its next entry is set (before the write it was set for is
    made), and `after_earlier` right after its next entry is set only if that is earlier."""

    before_move: Callable[[], Awaitable[object]] | None = None
    before_replace: Callable[[], Awaitable[object]] | None = None
    after_index: Callable[[], Awaitable[object]] | None = None
    after_earlier: Callable[[], Awaitable[object]] | None = None

    async def drop_timer(self, chat: str, deadline: float, then: float | None = None) -> bool:
        hook, self.before_move = self.before_move, None
        if hook is not None:
            await hook()
        return await super().drop_timer(chat, deadline, then)

    async def set_timer(
        self,
        chat: str,
        deadline: float,
        earlier: bool = False,
        journal: tuple[str, float] | None = None,
    ) -> None:
        if not earlier:
            hook, self.before_replace = self.before_replace, None
            if hook is not None:
                await hook()
        await super().set_timer(chat, deadline, earlier, journal)
        hook, self.after_index = self.after_index, None
        if hook is not None:
            await hook()
        if earlier:
            hook, self.after_earlier = self.after_earlier, None
            if hook is not None:
                await hook()


async def _lobby_moved_on(
    redis_client: aioredis.Redis, timers: Store, clock: Clock
) -> tuple[GameService, User, float]:
    """A lobby of three on a worker of `timers`' store, its deadline moved a minute on since it
    was indexed: that worker, the host, and the entry's time (due before the lobby's)."""
    here = GameService(timers, Config(), clock=clock, rng=random.Random(5))
    driver = Driver(here, people(3), seed=5)
    await driver.lobby(start=False)
    host = driver.humans[0]
    entry = await redis_client.zscore(keys.timers(CHAT), CHAT)
    assert entry is not None
    clock.advance(60)
    await driver.ok(host, Kind.OPTION, "rounds=short")  # the lobby's deadline moves on
    return here, host, entry


@pytest.mark.parametrize("lands", ["before the entry moves", "after the entry moved"])
async def test_a_start_as_the_lobbys_early_entry_moves_on_keeps_its_turn_indexed(
    redis_client: aioredis.Redis, lands: str
) -> None:
    """A lobby whose deadline moved a minute on since it was indexed: its entry comes due
    early, and the timer moves it on to the lobby's deadline. Meanwhile another worker starts
    the game, its first turn due long before that (indexed with `ZADD LT`: the entry, earlier
    still, stays). Whether the start is written before the timer moves the entry (after the
    timer read the lobby) or just after, the first turn must be indexed on time, not at the
    lobby's time, half an hour late."""
    clock = Clock()
    timers = Hooked(redis_client)
    here, host, entry = await _lobby_moved_on(redis_client, timers, clock)
    starts = Hooked(redis_client)
    there = GameService(starts, Config(), clock=clock, rng=random.Random(6))
    clock.now = entry + 1  # the entry is due; the lobby's deadline is not
    start = there.handle(CHAT, host, Request(Kind.START))
    if lands == "before the entry moves":
        timers.before_move = lambda: start
        await here.run_timers("chat")
    else:
        starts.after_index = lambda: here.run_timers("chat")
        assert not (await start).alert
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.phase is not Phase.LOBBY  # the start was taken
    await indexed_in_time(redis_client)


class DiesAfterItsWrite(DiesAfterWrite, Hooked):
    """A store with `Hooked`'s steps whose worker dies (or loses Redis) right after its next
    write is made: every later call fails, until `dead` is set False again (Redis back)."""


@pytest.mark.parametrize("fate", ["dies", "loses Redis"])
async def test_a_start_whose_worker_stops_before_indexing_again_is_indexed_by_the_next_tick(
    redis_client: aioredis.Redis, fate: str
) -> None:
    """As above, the start indexes its first turn (`ZADD LT`), the lobby's early entry moves on
    to the lobby's time (the timer read the lobby), and the start is written: its worker would
    index the first turn again now, but it dies there (or loses Redis). The entry must not
    stay at the lobby's time, half an hour late: the worker that takes over the dead one's
    journal (or the one that lost Redis, at its next tick that reaches it) indexes the chat's
    time again."""
    clock = Clock()
    timers = Hooked(redis_client)
    here, host, entry = await _lobby_moved_on(redis_client, timers, clock)
    starts = DiesAfterItsWrite(redis_client)
    there = GameService(starts, Config(), clock=clock, rng=random.Random(6))
    clock.now = entry + 1  # the entry is due; the lobby's deadline is not
    for svc in (here, there):  # both alive as the start is pressed
        await svc.store.beat("chat", svc.worker, clock(), GAP, LEASE)
    starts.after_index = lambda: here.run_timers("chat")
    assert not (await there.handle(CHAT, host, Request(Kind.START))).alert
    assert starts.dead  # it stopped right after its write, before indexing it again
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.phase is not Phase.LOBBY  # the start was taken
    if fate == "dies":
        clock.advance(LEASE + 1)
        assert [chat for chat, _ in await here.tick("chat")] == [CHAT]  # taken over
    else:
        starts.dead = False  # Redis is back, before another worker took this one for gone
        await there.tick("chat")
    await indexed_in_time(redis_client)


class MakesNoAIMoves(GameService):
    """A worker that leaves the AI moves its writes wait for to the table's deadline."""

    async def _robots(
        self, chat: str, snap: Snapshot, result: Result, seen: dict[str, str]
    ) -> tuple[Snapshot, Result]:
        return snap, result


async def test_a_move_indexed_as_a_refused_reminder_sets_its_entry_stays_indexed(
    redis_client: aioredis.Redis,
) -> None:
    """Ann, Bob and an AI seat, in that order; Ann leads a trick. Her reminder falls due on one
    worker, which sets its entry to her turn's deadline before it writes. Meanwhile Ann plays
    on a second worker, and Bob on a third: his card leaves the game waiting for the AI, a few
    seconds on, indexed (`ZADD LT`) just before the reminder's entry is set. The reminder's
    write is refused (Ann played): its entry goes back to the time that refusal answered,
    Bob's turn's, and only then is Bob's card written. The AI's move must be indexed on time,
    not at Bob's reminder, 40 s late (the third worker's window the docs left open)."""
    clock = Clock()
    timers = Hooked(redis_client)
    here = GameService(timers, Config(), clock=clock, rng=random.Random(4))
    driver = Driver(here, [ANN, BOB], seed=4)
    await driver.lobby(["rounds=short"], ai=1)
    await driver.play_until(
        lambda s: s.phase is Phase.PLAYING and s.round.turn == 0 and not s.round.trick
    )
    table = await table_of(redis_client)
    assert table is not None
    assert table.remind is not None
    assert [player.id for player in table.game.players][:2] == [ANN.id, BOB.id]
    clock.now = table.remind - 1
    await here.run_timers("chat")  # an early entry moves on to her reminder
    assert await redis_client.zscore(keys.timers(CHAT), CHAT) == table.remind
    clock.now = table.remind
    ann = Driver(service(redis_client, seed=5, clock=clock), [ANN], seed=5)
    ann.screens.show(await ann.svc.handle(CHAT, ANN, Request(Kind.HAND)))
    (_, card), *_ = ann.choices()
    bobs = Hooked(redis_client)
    bob = MakesNoAIMoves(bobs, Config(), clock=clock, rng=random.Random(6))
    indexed, refused = asyncio.Event(), asyncio.Event()

    async def bob_waits() -> None:
        indexed.set()
        await refused.wait()

    async def others_move() -> None:
        assert not (await ann.press(ANN, card)).alert
        bob_driver = Driver(bob, [BOB], seed=6)
        bob_driver.screens.show(await bob.handle(CHAT, BOB, Request(Kind.HAND)))
        (_, his), *_ = bob_driver.choices()
        bobs.after_index = bob_waits
        played.append(asyncio.ensure_future(bob.handle(CHAT, BOB, Request(Kind.BUTTON, his))))
        await indexed.wait()

    async def refusal_indexed() -> None:
        refused.set()

    played: list[asyncio.Future[Outcome]] = []
    timers.before_replace = others_move
    timers.after_earlier = refusal_indexed
    await here.run_timers("chat")
    assert not (await played[0]).alert
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.round is not None
    assert table.game.round.turn == 2  # the AI's
    await indexed_in_time(redis_client)


class LateReads(aioredis.Redis):
    """A client of the real test server that hands back Redis's answer to the next run of one
    script (`late`, its SHA-1) only once `gate` is set (`answered` is set when Redis has
    answered it): a read Redis answered before a write, taken in after the write's answer."""

    late: str | None = None
    answered: asyncio.Event
    gate: asyncio.Event

    async def execute_command(self, *args: object, **options: object) -> object:
        answer = await super().execute_command(*args, **options)
        if args[0] == "EVALSHA" and args[1] == self.late:
            self.late = None
            self.answered.set()
            await self.gate.wait()
        return answer


async def test_a_read_taken_in_after_a_newer_write_leaves_the_chat_known_as_written(
    redis_url: str,
) -> None:
    """A timer's read of a chat is answered by Redis just before a player's move there is
    written, and taken in just after it: the worker knows the chat as the move left it, not as
    the read found it. Knowing the chat a version back, the move's run of AI moves (which reads
    the chat as known) found nobody for the AI to play for and stopped; the game waited for
    the AI until its deadline for a dead worker (`ai_grace`) made the move."""
    client = LateReads.from_url(redis_url, socket_timeout=None)
    client.answered, client.gate = asyncio.Event(), asyncio.Event()
    try:
        here = Driver(service(client, seed=5), people(3), seed=5)
        await here.lobby(["rounds=short"])
        store = here.svc.store
        version = (await raw(client))[0]
        client.late = store._load.sha
        reading = asyncio.create_task(store.load(CHAT))
        await client.answered.wait()
        user, payload = here.choices()[0]
        moved = await here.svc.handle(CHAT, user, Request(Kind.BUTTON, payload))
        assert not moved.alert, moved.answer
        assert (await raw(client))[0] == version + 1
        client.gate.set()
        assert (await reading).version == version  # the read, as Redis answered it
        known = store.known(CHAT)
        assert known is not None
        assert known.version == version + 1
    finally:
        await client.aclose()

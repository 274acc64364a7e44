"""AI moves made apart from the transactions: decided from the chat as saved, applied once each
however many workers (and players) act at the same moment, made by another worker when the one
that was to make them died, and never holding up another chat."""

import asyncio
import logging
import random
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis
from players import until
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    DOT,
    Clock,
    Driver,
    client,
    raw,
    service,
    table_of,
)

import bot.chat
from bot.ai import AIPlayer, get_ai
from bot.chat import Result, robot_seats
from bot.commands import Kind
from bot.config import Config
from bot.messages import Outcome
from bot.requests import Request, User
from bot.service import GameService
from bot.store import Snapshot, keys
from bot.table import Table
from bot.timers import stop_timer_loop, timer_loop
from engine import Command, GameState, Phase, PlayerView, waiting_seats


@pytest.fixture
def clock() -> Clock:
    return Clock()


def first_seat_leads(state: GameState, round_from: int = 1, cards: int = 1) -> bool:
    """Whether the first seat is to lead a trick, in round `round_from` or a later one, holding
    `cards` cards or more (`Driver.play_until`'s test)."""
    return (
        state.phase is Phase.PLAYING
        and state.round.number >= round_from
        and state.round.turn == 0
        and not state.round.trick
        and len(state.round.hands[0]) >= cards
    )


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
    state = await driver.play_until(lambda s: first_seat_leads(s, round_from=2))
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


async def left_to_the_ai(
    redis_client: aioredis.Redis, clock: Clock, config: Config, chat: str = CHAT, seed: int = 0
) -> Table:
    """Ann and two `normal` AI seats at `chat`, a short game started and moved on (Ann's bid
    first, if hers comes first) by a worker that dies after each save, before any AI move:
    the game waits for the AI seats, as it was left (the table)."""
    doomed = DiesAfterSaving(
        service(redis_client, clock=clock).store, config, clock=clock, rng=random.Random(1)
    )
    driver = Driver(doomed, [ANN], chat=chat, seed=seed)
    await seated(driver, ["normal", "normal"], ["rounds=short"])
    table = await table_of(redis_client, chat)
    assert table is not None
    if not robot_seats(table):  # Ann bids first: then the AI seats
        await driver.move()
        table = await table_of(redis_client, chat)
        assert table is not None
    assert robot_seats(table)
    return table


async def test_another_worker_makes_the_ai_moves_of_one_that_died(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock
) -> None:
    """The worker that saved a move dies before the AI moves after it: the table's deadline
    (`ai_grace` seconds on) falls due on another worker, which makes them, and shows them."""
    config = Config(ai_grace=5)
    table = await left_to_the_ai(redis_client, clock, config, seed=1)
    assert table.deadline == clock.now + 5  # left waiting for the AI, its deadline close
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
    chats = [f"{CHAT}:{n}" for n in range(2)]
    for number, chat in enumerate(chats):
        await left_to_the_ai(redis_client, clock, config, chat, seed=number)
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


async def test_the_timer_loop_shows_ai_moves_made_aside_without_waiting_for_its_next_tick(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The AI moves a tick's timeouts leave are made aside; the timer loop shows them as soon
    as they are made, not at its next tick (here an hour away): a player's move whose AI moves
    a timer's run under way made (`_claim`) showed them up to a tick late."""
    gate = threading.Event()
    monkeypatch.setattr(bot.chat, "get_ai", lambda level: Gated(level, gate))
    config = Config(ai_grace=5)
    await left_to_the_ai(redis_client, clock, config)
    survivor = service(client(redis_url), seed=2, clock=clock, config=config)
    ticks = 0
    tick = survivor.tick

    async def counted(scope: str) -> list[tuple[str, Outcome]]:
        nonlocal ticks
        ticks += 1
        return await tick(scope)

    monkeypatch.setattr(survivor, "tick", counted)
    moved = asyncio.Event()

    async def show(chat: str, outcome: Outcome) -> None:
        if not outcome.again:
            moved.set()

    await survivor.tick("chat")  # it beats: the scope knows it
    clock.now += 6
    loop = asyncio.ensure_future(timer_loop(survivor, show, "chat", 3600))
    try:
        assert await until(lambda: ticks == 2, 60)  # the loop's first tick fired the deadline
        gate.set()  # the AI decides
        await asyncio.wait_for(moved.wait(), 60)
        assert ticks == 2  # shown before the loop's next tick
        table = await table_of(redis_client)
        assert table is not None
        assert not robot_seats(table)  # the game waits for Ann now
    finally:
        gate.set()
        await stop_timer_loop(loop)
        await survivor.moved()
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
    await thinking.play_until(lambda s: first_seat_leads(s, round_from=5))
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


class Permits:
    """AI levels whose decisions for the seats of `held` (a player id's prefix) wait for a
    permit each, in the worker's thread (`of`, for `bot.chat.get_ai`): `entered` counts the
    held decisions begun so far."""

    def __init__(self, held: str) -> None:
        self.held = held
        self.permits = threading.Semaphore(0)
        self.entered = threading.Semaphore(0)

    def of(self, level: str) -> "Permitted":
        return Permitted(self, get_ai(level))


class Permitted:
    """One AI level, deciding as its `Permits` allow."""

    def __init__(self, gate: Permits, ai: AIPlayer) -> None:
        self.gate = gate
        self.ai = ai

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if view.player.startswith(self.gate.held):
            self.gate.entered.release()
            assert self.gate.permits.acquire(timeout=30)
        return self.ai.decide(view, rng)


async def entered(level: Permits, count: int) -> None:
    """Wait until `count` held decisions have begun (in their threads)."""
    for _ in range(count):
        assert await asyncio.to_thread(level.entered.acquire, True, 30)


async def to_move(redis_client: aioredis.Redis, chat: str) -> tuple[str, int]:
    """Who the game waits for in `chat`, and the cards they hold."""
    table = await table_of(redis_client, chat)
    assert table is not None
    assert table.game.round is not None
    (seat, *_) = waiting_seats(table.game)
    return table.game.players[seat].id, len(table.game.round.hands[seat])


async def test_a_stand_in_waits_for_no_more_than_one_decision_of_other_chats(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two chats' AI seats hold both of a worker's thinkers (`THINKERS`) and have more moves to
    make; a third chat's player runs out of time. Their stand-in waits for one decision to end,
    not for those chats' moves: the chats take the thinkers in turns, a decision each."""
    level = Permits("ai:")
    permits = level.permits
    monkeypatch.setattr(bot.chat, "get_ai", level.of)
    config = Config(stand_in="hard", ai_grace=600)  # only the late player's timer falls due
    svc = service(redis_client, clock=clock, config=config)
    waiting = Driver(svc, [BOB, CID, DOT], chat="chat:-3", seed=7)
    await waiting.lobby()
    drivers = [Driver(svc, [ANN], chat=f"chat:-{number}", seed=number) for number in (1, 2)]
    permits.release(1000)  # the AI seats move freely until Ann is to play a trick's first card
    for driver in drivers:
        await seated(driver, ["normal", "normal", "normal"], [])
        await driver.play_until(first_seat_leads)
    while permits.acquire(blocking=False):
        pass
    while level.entered.acquire(blocking=False):
        pass
    busy = []
    for driver in drivers:
        (user, payload), *_ = driver.choices()
        pressed = svc.handle(driver.chat, user, Request(Kind.BUTTON, payload))
        busy.append(asyncio.ensure_future(pressed))
        await entered(level, 1)  # each chat holds a thinker, with two more AI seats to follow
    try:
        late, _ = await to_move(redis_client, waiting.chat)
        clock.advance(Config().turn_timeout)
        assert await svc.run_timers("chat", aside=True) == []  # its stand-in moves aside
        table = await table_of(redis_client, waiting.chat)
        assert table is not None
        assert table.away == [late]
        permits.release()  # one decision of the busy chats ends
        await svc.moved()  # the stand-in's move is made before their next decision
        assert (await to_move(redis_client, waiting.chat))[0] != late  # their bid is made
        assert not any(task.done() for task in busy)  # their AI seats still have moves to make
    finally:
        permits.release(100)
        await asyncio.gather(*busy)


async def a_lead_of_many_cards(
    svc: GameService, redis_client: aioredis.Redis
) -> tuple[Driver, User, int, str]:
    """Ann, Bob and Cid on the short plan, played to a trick of round 3 or later that a person
    holding more than one card is to lead: the driver, that person, the cards they hold and a
    move their buttons offer."""
    driver = Driver(svc, [ANN, BOB, CID], seed=8, wings_rate=0)
    await driver.lobby(["rounds=short"])
    await driver.play_until(
        lambda s: (
            s.phase is Phase.PLAYING
            and s.round.number >= 3
            and not s.round.trick
            and len(s.round.hands[s.round.turn]) > 1
        )
    )
    late, held = await to_move(redis_client, CHAT)
    person = next(u for u in driver.humans if u.id == late)
    payload = next(p for u, p in driver.choices() if u == person)
    return driver, person, held, payload


@pytest.mark.parametrize("how", ["resume", "own move"])
async def test_a_player_back_while_their_stand_in_decides_moves_once(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A player ran out of time and their stand-in is deciding their move when they come back
    (Resume, or a move of their own): one move is made for their turn, theirs or none; the
    stand-in's is refused, and the game waits for them (Resume) or goes on (their move)."""
    level = Permits("tg:")
    permits = level.permits
    svc = service(redis_client, clock=clock)
    driver, person, held, payload = await a_lead_of_many_cards(svc, redis_client)
    late = person.id
    version = (await raw(redis_client))[0]
    monkeypatch.setattr(bot.chat, "get_ai", level.of)
    clock.advance(Config().turn_timeout)
    assert await svc.run_timers("chat", aside=True) == []
    try:
        await entered(level, 1)  # the stand-in decides
        request = Request(Kind.RESUME) if how == "resume" else Request(Kind.BUTTON, payload)
        back = await driver.send(person, request)
        assert not back.alert, back.answer
    finally:
        permits.release(100)
    await svc.moved()
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []
    assert table.game.round is not None
    seat = table.game.seat_of(late)
    assert seat is not None
    if how == "resume":
        assert await to_move(redis_client, CHAT) == (late, held)  # nothing played for them
        assert (await raw(redis_client))[0] == version + 2  # the timeout, the resume
    else:
        assert len(table.game.round.hands[seat]) == held - 1  # their card, and only it
        again = await driver.press(person, payload)
        assert again.alert  # the same press again is refused, saying why


async def test_a_press_for_a_turn_the_stand_in_played_is_refused(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """The stand-in played the late player's card; their press of the button they still had
    for that turn comes after: refused, saying so, and nothing more is played."""
    svc = service(redis_client, clock=clock)
    driver, person, held, payload = await a_lead_of_many_cards(svc, redis_client)
    late = person.id
    clock.advance(Config().turn_timeout)
    await svc.run_timers("chat", aside=True)
    await svc.moved()
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [late]
    version = (await raw(redis_client))[0]
    stale = await driver.press(person, payload)
    assert stale.alert
    assert stale.answer, stale
    assert (await raw(redis_client))[0] == version
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.round is not None
    seat = table.game.seat_of(late)
    assert seat is not None
    assert len(table.game.round.hands[seat]) == held - 1


async def test_a_timeout_while_a_requests_ai_moves_end_is_made_by_them(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request makes the AI seat's card; its last look at the chat finds Bob to play and is
    about to stop when Bob's turn times out on the same worker. The timer starts no second run
    of the chat's AI moves beside the request's, and the request's run looks again before it
    stops: Bob's stand-in plays now, not once the AI's deadline (`ai_grace`) is past."""
    svc = service(redis_client, clock=clock, config=Config(ai_grace=600))
    driver = Driver(svc, [ANN, BOB], seed=9, wings_rate=0)
    await seated(driver, ["normal"], [])
    await driver.play_until(lambda s: first_seat_leads(s, cards=2))
    store = svc.store
    load = store.load
    held, go = asyncio.Event(), asyncio.Event()

    async def slow_load(chat: str, update_id: str | None = None) -> Snapshot:
        snap = await load(chat, update_id)
        rnd = snap.table.game.round if snap.table is not None else None
        if not held.is_set() and rnd is not None and len(rnd.trick) == 2:
            held.set()  # the AI seat's card is played: Bob's turn, as the run reads it
            await go.wait()
        return snap

    monkeypatch.setattr(store, "known", lambda chat: None)
    monkeypatch.setattr(store, "load", slow_load)
    (user, payload), *_ = driver.choices()
    pressed = asyncio.ensure_future(svc.handle(CHAT, user, Request(Kind.BUTTON, payload)))
    await held.wait()
    clock.advance(Config().turn_timeout)
    assert await svc.run_timers("chat", aside=True) == []
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [BOB.id]
    go.set()
    assert not (await pressed).alert
    await svc.moved()
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.round is not None
    assert len(table.game.round.trick) != 2  # Bob's stand-in played


async def test_a_request_starts_no_second_run_of_the_ai_moves_under_way(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player ran out of time and a timer makes their stand-in's move aside, the decision
    under way, when another player asks for their hand on the same worker (a request that
    reads the table makes the AI moves it finds the game waiting for). The request starts no
    second run of the chat's AI moves beside the one under way: it is answered at once, and
    the stand-in's move is decided once and made once, by the run under way."""
    level = Permits("tg:")
    permits = level.permits
    svc = service(redis_client, clock=clock)
    driver, person, held, _payload = await a_lead_of_many_cards(svc, redis_client)
    version = (await raw(redis_client))[0]
    monkeypatch.setattr(bot.chat, "get_ai", level.of)
    clock.advance(Config().turn_timeout)
    assert await svc.run_timers("chat", aside=True) == []
    other = next(user for user in driver.humans if user != person)
    try:
        await entered(level, 1)  # the stand-in decides
        asked = asyncio.ensure_future(driver.send(other, Request(Kind.HAND)))
        again = asyncio.ensure_future(asyncio.to_thread(level.entered.acquire, True, 30))
        done, _ = await asyncio.wait([asked, again], return_when=asyncio.FIRST_COMPLETED)
        assert done == {asked}  # answered while the run under way still decides, alone
        assert not (await asked).alert
        level.entered.release()  # the wait for a second decision ends
        assert await again
        assert not level.entered.acquire(blocking=False)  # and none came meanwhile
    finally:
        permits.release(100)
    await svc.moved()
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [person.id]
    assert table.game.round is not None
    seat = table.game.seat_of(person.id)
    assert seat is not None
    assert len(table.game.round.hands[seat]) == held - 1  # the stand-in's card, once
    assert (await raw(redis_client))[0] > version + 1  # the timeout, then the stand-in's card


async def test_ai_moves_aside_that_meet_redis_refusing_are_logged_as_the_store_failing(
    redis_client: aioredis.Redis,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A timer's stand-in move made aside whose write Redis refuses (fewer replicas than
    `min-replicas-to-write` asks for, as a real server answers NOREPLICAS): the log says the
    store fails, one warning line with no traceback, as for any other call Redis refused, and
    the chat is shown again once Redis takes writes (the write's outcome is not known). Before,
    the AI moves logged a line of their own ('AI moves stopped'), each time, and what they
    showed failing logged 'the AI moves after a timeout failed' at ERROR, with a traceback."""
    level = Permits("tg:")
    svc = service(redis_client, clock=clock)
    driver, *_ = await a_lead_of_many_cards(svc, redis_client)
    monkeypatch.setattr(bot.chat, "get_ai", level.of)
    clock.advance(Config().turn_timeout)
    assert await svc.run_timers("chat", aside=True) == []
    try:
        await entered(level, 1)  # the stand-in decides
        await redis_client.config_set("min-replicas-to-write", 1)
        with caplog.at_level(logging.INFO):
            level.permits.release(100)
            await svc.moved()
    finally:
        level.permits.release(100)
        await redis_client.config_set("min-replicas-to-write", 0)
    said = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records]
    assert said == [
        (
            "WARNING",
            "the game store fails (ResponseError: NOREPLICAS Not enough good replicas to "
            "write.): requests are answered that it cannot be reached, and the deadlines wait, "
            "until it takes writes again; this worker is not ready (/readyz) meanwhile",
            None,
        )
    ]
    shown = await svc.tick(keys.scope(driver.chat))  # Redis takes writes: shown again
    assert [chat for chat, outcome in shown if outcome.again] == [driver.chat]


async def test_an_early_timer_entry_takes_over_no_players_ai_moves(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann leads a trick the two AI seats follow. Her card is written, and before her request
    takes the chat's run of AI moves (`_claim`), the chat's timer entry comes due on the same
    worker: an early one (the AI's deadline of a write before, `ai_grace` on; the index holds
    a time no later than the table's), which the timeout only moves on to the table's time.
    The tick starts no run of the AI moves the request is about to make: Ann's request makes
    them and shows them with her card, one edit of the group's table, as on any other move.
    Before, the tick took the run over: her request showed her card alone, and the timer loop
    the AI's cards after it, one edit more of the group's table (a rare golden diff in the
    whole-game tests)."""
    svc = service(redis_client, seed=9, clock=clock, config=Config(ai_grace=5))
    driver = Driver(svc, [ANN], seed=9, wings_rate=0)
    await seated(driver, ["normal", "normal"], ["rounds=short"])
    await driver.play_until(lambda s: first_seat_leads(s, cards=2))
    early = await redis_client.zscore(keys.timers(CHAT), CHAT)
    assert early is not None
    assert early <= clock.now + 5  # the AI's deadline of a write before (none fired since)
    clock.advance(early - clock.now - 4)  # Ann plays 4 s before it: her AI deadline is later
    store = svc.store
    save = store.save
    written, go = asyncio.Event(), asyncio.Event()

    async def held(*args: Any, **kwargs: Any) -> bool | None:
        saved = await save(*args, **kwargs)
        if not written.is_set():
            written.set()  # Ann's card is written: her request is yet to take the AI's run
            await go.wait()
        return saved

    monkeypatch.setattr(store, "save", held)
    (user, payload), *_ = driver.choices()
    pressed = asyncio.ensure_future(svc.handle(CHAT, user, Request(Kind.BUTTON, payload)))
    try:
        await asyncio.wait_for(written.wait(), 30)
        table = await table_of(redis_client)
        assert table is not None
        assert robot_seats(table)  # the game waits for the AI after Ann's card
        wake = table.wake()
        assert wake is not None
        assert early < wake  # the entry is early: it comes due before the table's time
        clock.advance(early - clock.now)
        assert await svc.run_timers("chat", aside=True) == []
        assert await redis_client.zscore(keys.timers(CHAT), CHAT) == wake  # moved on to it
    finally:
        go.set()
    outcome = await pressed
    assert not outcome.alert, outcome.answer
    await svc.moved()
    assert await svc.made_aside("chat", 0) == []  # nothing for the timer loop to show
    after = await table_of(redis_client)
    assert after is not None
    assert after.game.round is not None
    assert not robot_seats(after)  # the AI seats played
    # Ann's request shows the table as the AI's cards left it: one edit of the group's table
    assert outcome.version == (after.game_id, (await raw(redis_client))[0])
    assert [m for m in outcome.messages if m.to is None and m.slot == "table"]


async def test_ai_moves_a_tick_takes_are_shown_before_the_loop_is_quiet(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The AI moves a timeout left are made aside while the timer loop's next tick runs: that
    tick takes what they show with its own outcomes (`tick`), and the loop shows it once the
    tick is over. Until then the moves are not shown, and `aside_shown` (what the tests of a
    whole game wait on before they read a transcript) waits: before, it took them for shown
    as soon as the tick had taken them, and a test could read the chat without them."""
    gate = threading.Event()
    monkeypatch.setattr(bot.chat, "get_ai", lambda level: Gated(level, gate))
    config = Config(ai_grace=5)
    await left_to_the_ai(redis_client, clock, config)
    survivor = service(client(redis_url), seed=2, clock=clock, config=config)
    await survivor.tick("chat")  # it beats: the scope knows it
    clock.now += 6
    ticks = 0
    timers, reviewed = survivor.run_timers, survivor._reviewed
    ticking, taken = asyncio.Event(), asyncio.Event()
    go, on = asyncio.Event(), asyncio.Event()

    async def held_timers(scope: str, *args: Any, **kwargs: Any) -> list[tuple[str, Outcome]]:
        nonlocal ticks
        ticks += 1
        if ticks == 2:  # the loop's second tick: the moves are made meanwhile
            ticking.set()
            await go.wait()
        return await timers(scope, *args, **kwargs)

    async def held_reviews(scope: str) -> list[tuple[str, Outcome]]:
        if ticks == 2 and not taken.is_set():  # the tick took the moves: not shown yet
            taken.set()
            await on.wait()
        return await reviewed(scope)

    monkeypatch.setattr(survivor, "run_timers", held_timers)
    monkeypatch.setattr(survivor, "_reviewed", held_reviews)
    shown: list[str] = []

    async def show(chat: str, outcome: Outcome) -> None:
        if not outcome.again:
            shown.append(chat)

    loop = asyncio.ensure_future(timer_loop(survivor, show, "chat", 0))
    try:
        await asyncio.wait_for(ticking.wait(), 60)  # the first tick fired the deadline
        gate.set()  # the AI decides
        await survivor.moved()
        go.set()
        await asyncio.wait_for(taken.wait(), 60)

        async def quiet() -> list[str]:
            await survivor.aside_shown()
            return list(shown)  # what was shown when it said all was

        waiting = asyncio.ensure_future(quiet())
        await asyncio.sleep(0)
        on.set()  # the tick goes on, and the loop shows what it took
        assert await asyncio.wait_for(waiting, 60) == [CHAT]
        assert shown == [CHAT]  # and only once
    finally:
        gate.set()
        go.set()
        on.set()
        await stop_timer_loop(loop)
        await survivor.moved()
        await survivor.store.client.aclose()

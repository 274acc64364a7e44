"""A paused game (every person at the table away, `Table.paused`) against what may come at the
same time or in an odd order: an AI decision made on another worker before the pause began,
a worker restarted while paused, the pause at a Wizard turned up (the dealer chooses trump),
/cancel, /leave and Resume of people who are not away, all on one real Redis."""

import asyncio
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from service_helpers import ANN, BOB, CHAT, CID, Clock, Driver, client, game_of, payloads, service
from service_helpers import table_of as stored

from bot import tokens
from bot.ai import LEVELS
from bot.ai.normal import NormalAI
from bot.commands import Kind
from bot.config import Config
from bot.requests import Request
from engine import Command, Phase, PlayerView, table_view, waiting_seats

IN_PLAY = (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)


@pytest.fixture
def clock() -> Clock:
    return Clock()


class HeldBid(NormalAI):
    """Once `armed`, each bid it is asked for is decided only after `release` is set (the
    decision is under way meanwhile: `thinking`)."""

    def __init__(self) -> None:
        self.armed = False
        self.thinking = threading.Event()
        self.release = threading.Event()

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if self.armed and view.legal_bids:
            self.thinking.set()
            assert self.release.wait(20), "the held bid was never released"
        return super().decide(view, rng)


async def run_due(driver: Driver, clock: Clock, svc: object | None = None) -> None:
    """Move past the table's deadline; a worker (`svc`, else the driver's) runs its timers."""
    table = await stored(driver.redis)
    assert table is not None
    assert table.deadline is not None
    clock.now = table.deadline + 1
    worker = svc if svc is not None else driver.svc
    assert hasattr(worker, "run_timers")
    for _, outcome in await worker.run_timers("chat"):
        driver.screens.show(outcome)


async def test_a_stand_in_bid_decided_before_a_pause_is_not_made_in_it(
    redis_client: aioredis.Redis, redis_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Secret bids. Ann is away; worker A decides her bid of round 2 (slowly); meanwhile, on
    worker B, she presses Resume, and both her and Bob's time runs out: the game pauses. The
    bid A then brings is refused: nothing moves in the pause, which Ann's own bid ends."""
    held = HeldBid()
    monkeypatch.setitem(LEVELS, "held", held)
    config = Config(stand_in="held")
    a = service(redis_client, seed=31, clock=clock, config=config)
    other = client(redis_url)
    b = service(other, seed=32, clock=clock, config=config)
    try:
        driver = Driver(a, [ANN, BOB], seed=31)
        await driver.lobby(["rounds=short", "bids=secret"], ai=1)
        bob = Driver(b, [BOB], seed=31)
        bob.screens = driver.screens
        bob_bid = next(
            p for p in payloads(driver.screens.hand(BOB)) if tokens.decode(p).action == "b"
        )
        assert not (await driver.press(BOB, bob_bid)).alert
        await run_due(driver, clock)  # Ann's bid is late: she is away, the AI bids for her
        table = await stored(redis_client)
        assert table is not None
        assert table.away == [ANN.id]
        held.armed = True
        driver.humans = [BOB]
        ((_, card),) = driver.choices()  # Bob's one card: the round ends with it
        last = Request(Kind.BUTTON, card)
        finishing = asyncio.create_task(driver.send(BOB, last, check=False))
        assert await asyncio.to_thread(held.thinking.wait, 20)  # her round 2 bid, under way
        back = await b.handle(CHAT, ANN, Request(Kind.RESUME))
        assert back.answer == "Welcome back!"
        table = await stored(redis_client)
        assert table is not None
        assert {ANN.id, BOB.id} <= {
            table.game.players[s].id for s in table_view(table.game).waiting
        }
        await run_due(driver, clock, b)  # both late: nobody is left playing
        paused = await stored(redis_client)
        assert paused is not None
        assert paused.paused(), paused
        held.release.set()
        await finishing
        await a.moved()
        now = await stored(redis_client)
        assert now is not None
        assert now.paused()
        assert now.game.to_dict() == paused.game.to_dict()  # the held bid was not made
        driver.humans = [ANN, BOB]
        final = await driver.play_to_end()
        assert final.phase is Phase.FINISHED
    finally:
        held.release.set()
        await other.aclose()


async def test_a_pause_at_the_trump_choice_outlives_a_restart_and_its_deadline_abandons(
    redis_client: aioredis.Redis, redis_url: str, clock: Clock
) -> None:
    """Ann, dealer, is to choose trump (a Wizard was turned up) and lets her time run out:
    the game pauses there. A worker that restarts (nothing cached) finds it paused, moves
    nothing, refuses /leave, and its timer abandons the game at the pause's deadline."""
    for seed in range(60):
        await redis_client.flushdb()
        svc = service(redis_client, seed=seed, clock=clock)
        driver = Driver(svc, [ANN], seed=seed)
        await driver.lobby(["rounds=short"], ai=2)

        def choosing(state: object) -> bool:
            return (
                getattr(state, "phase", None) is Phase.TRUMP
                or getattr(state, "phase", None) is Phase.FINISHED
            )

        state = await driver.play_until(choosing)
        if state.phase is Phase.TRUMP:
            break
    else:
        raise AssertionError("no seed had Ann choose trump")
    await run_due(driver, clock)
    table = await stored(redis_client)
    assert table is not None
    assert table.paused()
    assert table.game.phase is Phase.TRUMP
    fresh = service(client(redis_url), seed=99, clock=clock)
    try:
        shown = await fresh.current(CHAT)
        assert any(m.slot == "table" and "Paused" in m.text for m in shown.messages)
        left = await fresh.handle(CHAT, ANN, Request(Kind.LEAVE))
        assert left.alert
        clock.now = table.deadline - 1 if table.deadline else clock.now
        assert await fresh.run_timers("chat") == []
        assert (await game_of(redis_client)).to_dict() == table.game.to_dict()
        await run_due(driver, clock, fresh)
        assert await stored(redis_client) is None
    finally:
        await fresh.store.client.aclose()


async def test_resume_of_somebody_not_away_and_cancel_in_a_pause(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Ann and Bob with an AI seat are both away: the game pauses. Cid, who has no seat,
    presses Resume: refused, still paused; so is the host's /removeai. The host cancels: the
    game ends."""
    svc = service(redis_client, seed=33, clock=clock)
    driver = Driver(svc, [ANN, BOB], seed=33)
    await driver.lobby(["rounds=short", "bids=secret"], ai=1)
    await run_due(driver, clock)
    table = await stored(redis_client)
    assert table is not None
    assert table.paused()
    resumed = await svc.handle(CHAT, CID, Request(Kind.RESUME))
    assert resumed.alert
    again = await stored(redis_client)
    assert again is not None
    assert again.paused()
    assert again.game.seq == table.game.seq
    removed = await svc.handle(CHAT, ANN, Request(Kind.REMOVE_AI))
    assert removed.alert  # no change of seats once the game started, paused or not
    again = await stored(redis_client)
    assert again is not None
    assert again.paused()
    assert again.game.seq == table.game.seq
    cancelled = await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
    assert not cancelled.alert
    assert await stored(redis_client) is None


async def paused_when(
    redis_client: aioredis.Redis, clock: Clock, options: list[str], there: Callable[[Any], bool]
) -> Driver:
    """Ann alone with two AI seats plays (a seed after another) until `there(state)` holds
    with her to move, then lets her time run out: the game pauses there."""
    for seed in range(80):
        await redis_client.flushdb()
        driver = Driver(service(redis_client, seed=seed, clock=clock), [ANN], seed=seed)
        await driver.lobby(["rounds=short", *options], ai=2)

        def reached(state: Any) -> bool:
            mine = state.phase in IN_PLAY and state.players[waiting_seats(state)[0]].id == ANN.id
            return state.phase is Phase.FINISHED or (mine and there(state))

        state = await driver.play_until(reached)
        if state.phase is not Phase.FINISHED:
            break
    else:
        raise AssertionError("no seed got there")
    await run_due(driver, clock)
    table = await stored(redis_client)
    assert table is not None
    assert table.paused()
    assert there(table.game)
    return driver


async def ends_with_her_move(driver: Driver) -> None:
    """Ann's move (a button her hand shows, paused) ends the pause; the game plays out."""
    before = await stored(driver.redis)
    assert before is not None
    moved = await driver.move()
    assert "is back" in "\n".join(m.text for m in moved.messages)
    table = await stored(driver.redis)
    assert table is not None
    assert not table.paused()
    assert table.away == []
    assert table.game.seq > before.game.seq
    assert (await driver.play_to_end()).phase is Phase.FINISHED


async def test_a_pause_at_a_forced_rebid_ends_with_the_dealers_new_bid(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Hidden bids under notequal: the bids add up, Ann (dealer) is to change hers and lets
    her time run out. Paused there, her hand still offers the bids; her new bid goes on."""
    driver = await paused_when(
        redis_client, clock, ["bids=hidden", "notequal"], lambda s: s.round.rebid
    )
    await ends_with_her_move(driver)


async def test_a_pause_on_a_rounds_last_trick_ends_with_its_last_card(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Ann has one card left in a round of more (its last trick) and lets her time run out:
    paused there, her card ends the round, the next is dealt and the game goes on."""

    def last_trick(state: Any) -> bool:
        rnd = state.round
        seat = waiting_seats(state)[0]
        return state.phase is Phase.PLAYING and rnd.cards > 1 and len(rnd.hands[seat]) == 1

    driver = await paused_when(redis_client, clock, [], last_trick)
    rounds = len((await game_of(redis_client)).results)
    await ends_with_her_move(driver)
    assert len((await game_of(redis_client)).results) > rounds

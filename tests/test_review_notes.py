"""Reviews promised survive their worker: each is noted in Redis when promised and forgotten once
posted, and a worker that stops or dies first leaves it to the one that takes over its journal,
which works it out again and posts it once, to the right person, in their language. A review
the outbox gave up on is posted again by the same worker; a clean stop waits for no review and
no hint."""

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
import redis.asyncio as aioredis
from fake_telegram import FakeTelegram
from fake_telegram import User as TelegramUser
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    Clock,
    Driver,
    counted_ticks,
    held_bid_hints,
    service,
)
from service_helpers import client as client_of
from telegram.ext import AIORateLimiter

from adapters import outbox as outbox_module
from adapters.delivered import TRIES, Delivered
from adapters.outbox import FAST, Outbox
from adapters.telegram.app import TelegramFrontEnd
from adapters.web.server import WebTable
from bot import coaching
from bot.coaching import Coach
from bot.commands import Kind
from bot.config import Config, TelegramConfig, WebConfig
from bot.messages import Message, Outcome
from bot.requests import Request
from bot.service import LEASE, GameService
from bot.store import keys
from engine import Phase

SCOPE = "chat"


class DiesWorking(Coach):
    """A coach whose worker dies while its reviews are worked out: none is ever ready."""

    def _background(self, chat: str, work: object, note: str | None = None) -> None:
        return None


def reviews(shown: list[tuple[str, Outcome]]) -> list[tuple[str | None, str]]:
    """Who each review handed over goes to, and its text."""
    return [(m.to, m.text) for _, outcome in shown for m in outcome.messages if "📝" in m.text]


async def delivered(svc: GameService, shown: list[tuple[str, Outcome]]) -> None:
    """As a front end does once the posts of what a tick handed over were delivered."""
    for chat, outcome in shown:
        if outcome.notes:
            await svc.posted(chat, outcome.notes)


async def notes_left(redis_client: aioredis.Redis) -> list[bytes]:
    return [key async for key in redis_client.scan_iter(match="wiz:{j:*}:reviews")]


async def played_on_a_ticking_worker(redis_client: aioredis.Redis, clock: Clock) -> GameService:
    """A worker that ticks in the scope, and a short game played to its end there."""
    worker = service(redis_client, clock=clock)
    await worker.tick(SCOPE)
    driver = Driver(worker, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    return worker


async def posted_by_the_next(
    redis_client: aioredis.Redis, clock: Clock, scope: str = SCOPE
) -> tuple[GameService, list[tuple[str | None, str]]]:
    """A worker started once the last one's lease ran out: the reviews it posts, all of them."""
    clock.advance(LEASE + 1)
    restarted = service(redis_client, seed=7, clock=clock)
    first = await restarted.tick(scope)
    await restarted.coach.settled()
    then = await restarted.tick(scope)
    await delivered(restarted, first + then)
    return restarted, reviews(first) + reviews(then)


async def test_a_review_promised_is_posted_by_the_next_worker_after_a_stop(
    redis_client: aioredis.Redis,
) -> None:
    """Ann (her app in German) asks for her /review; her worker works it out and stops before
    its next tick would hand it over. The worker started next posts it to her, in German, once:
    then no note is left, and a third worker finds nothing to post."""
    clock = Clock()
    stopped = await played_on_a_ticking_worker(redis_client, clock)
    ann = replace(ANN, language="de")
    asked = await stopped.handle(CHAT, ann, Request(Kind.REVIEW))
    assert asked.answer == "Your review is being worked out: it comes to you privately."
    await stopped.coach.settled()  # ready: it never ticks again
    restarted, posted = await posted_by_the_next(redis_client, clock)
    ((to, text),) = posted
    assert to == ANN.id
    assert text.startswith("📝 Deine letzte Partie"), text
    assert reviews(await restarted.tick(SCOPE)) == []
    assert await notes_left(redis_client) == []
    _, again = await posted_by_the_next(redis_client, clock)
    assert again == []


async def test_the_rounds_reviews_of_a_worker_that_died_are_posted_by_the_next(
    redis_client: aioredis.Redis,
) -> None:
    """At a coach table, a worker dies while the reviews of the rounds played are worked out
    (after its first tick). The next worker posts them, each once: the same reviews a worker
    that lived posts for the same game in another chat."""
    clock = Clock()
    dead = service(redis_client, clock=clock)
    dead.coach = DiesWorking()
    await dead.tick(SCOPE)
    driver = Driver(dead, [ANN, BOB, CID], seed=11)
    await driver.lobby(["rounds=short", "coach"])
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    del dead, driver  # dropped without a stop

    lived = service(redis_client, clock=clock)
    other = Driver(lived, [ANN, BOB, CID], chat="chat:2", seed=11)
    await other.lobby(["rounds=short", "coach"])
    await other.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    await lived.coach.settled()
    shown = await lived.tick(SCOPE)
    await delivered(lived, shown)  # posted: their notes are forgotten
    expected = reviews(shown)
    assert expected, "random play makes costly decisions in three rounds"
    assert reviews(await lived.tick(SCOPE)) == []

    restarted, posted = await posted_by_the_next(redis_client, clock)
    assert sorted(posted) == sorted(expected)
    assert reviews(await restarted.tick(SCOPE)) == []
    assert await notes_left(redis_client) == []


async def test_a_worker_that_runs_no_tick_and_is_no_web_tables_posts_its_reviews_itself(
    redis_client: aioredis.Redis,
) -> None:
    """A worker that runs no tick in the chat's scope and serves no web table (the terminal
    table's kind) notes no review: no worker of the scope would post it. It hands them over
    itself (`GameService.reviews`)."""
    clock = Clock()
    lone = service(redis_client, clock=clock)
    driver = Driver(lone, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    asked = await lone.handle(CHAT, ANN, Request(Kind.REVIEW))
    assert asked.answer == "Your review is being worked out: it comes to you privately."
    assert await notes_left(redis_client) == []
    _, posted = await posted_by_the_next(redis_client, clock)
    assert posted == []
    ((to, _),) = reviews(await lone.reviews(SCOPE, wait=True))
    assert to == ANN.id


async def played_on_a_web_tables_worker(redis_client: aioredis.Redis, clock: Clock) -> str:
    """A web table's worker (it runs no tick in the chat's scope) and a coach table's game
    played there until round 4's bids: its round reviews are noted as its own, and it dies at
    once (were they worked out there, they would be lost with it). The key of its notes."""
    web = service(redis_client, clock=clock)
    web.coach = DiesWorking()
    WebTable(web, Config(web=WebConfig(secret="s3cret")), redis_client)
    driver = Driver(web, [ANN, BOB, CID], seed=11)
    await driver.lobby(["rounds=short", "coach"])
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    return keys.reviews(SCOPE, web.worker)


async def reviews_of_a_chat_worker(
    redis_client: aioredis.Redis, clock: Clock
) -> list[tuple[str | None, str]]:
    """The round reviews a worker that ticks in the scope, and lives, posts for the web
    table's game (`played_on_a_web_tables_worker`) played alike in another chat."""
    lived = service(redis_client, clock=clock)
    await lived.tick(SCOPE)
    other = Driver(lived, [ANN, BOB, CID], chat="chat:2", seed=11)
    await other.lobby(["rounds=short", "coach"])
    await other.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    await lived.coach.settled()
    shown = await lived.tick(SCOPE)
    await delivered(lived, shown)
    expected = reviews(shown)
    assert expected, "random play makes costly decisions in three rounds"
    return expected


async def test_the_rounds_reviews_of_a_web_tables_worker_are_posted_by_a_chat_worker(
    redis_client: aioredis.Redis,
) -> None:
    """A web table's worker runs no tick in the chat's scope: its coach table's round reviews
    are noted as its own, and a worker of the scope takes them over (as a gone worker's), works
    them out and posts them, each once: the same reviews a chat worker posts for the same game
    in another chat. The web worker stops (here: dies) at once, and none is lost."""
    clock = Clock()
    await played_on_a_web_tables_worker(redis_client, clock)
    expected = await reviews_of_a_chat_worker(redis_client, clock)

    restarted, posted = await posted_by_the_next(redis_client, clock)
    assert sorted(posted) == sorted(expected)
    assert reviews(await restarted.tick(SCOPE)) == []
    assert await notes_left(redis_client) == []


class NotedMeanwhile(aioredis.Redis):
    """A client of a chat worker: right after it reads a worker's review notes, that worker
    notes one more (a web table's worker, another round ended on its pages meanwhile)."""

    late: tuple[str, str, bytes] | None = None
    """(key, note, promise): the note to add once that key is read (then None)."""

    async def hgetall(self, name: Any) -> Any:
        found = await super().hgetall(name)
        if self.late is not None and self.late[0] == name:
            (key, note, promise), self.late = self.late, None
            await self.hset(key, note, promise)
        return found


async def test_a_note_made_while_another_worker_takes_the_notes_over_is_posted(
    redis_client: aioredis.Redis, redis_url: str
) -> None:
    """A chat worker takes a web table's worker's review notes over (it never beats, so it is
    taken for gone at once), and the web worker notes round 3's review between the chat
    worker's read of its notes and their removal. The chat worker takes that note over too,
    in the same tick, and posts it with the others, though the web worker notes nothing more:
    the same reviews as a chat worker's for the same game. (Before, it stayed noted, but the
    web worker's name was out of the heartbeats: it waited for the web worker's next review,
    or went after a day.)"""
    clock = Clock()
    hash_key = await played_on_a_web_tables_worker(redis_client, clock)
    expected = await reviews_of_a_chat_worker(redis_client, clock)
    notes = await redis_client.hgetall(hash_key)
    (late,) = [note for note, promise in notes.items() if json.loads(promise)["number"] == 3]
    await redis_client.hdel(hash_key, late)

    client = NotedMeanwhile.from_url(redis_url)
    client.late = (hash_key, late.decode(), notes[late])
    try:
        restarted, posted = await posted_by_the_next(client, clock)
        assert client.late is None, "the notes were not read"
        assert sorted(posted) == sorted(expected)
        assert reviews(await restarted.tick(SCOPE)) == []
    finally:
        await client.aclose()
    assert await notes_left(redis_client) == []


async def test_a_review_posted_just_before_a_clean_stop_is_not_posted_again(
    redis_client: aioredis.Redis,
) -> None:
    """The last tick before a clean stop hands Bob's review over, and the front end posts it as
    it stops (`Outbox.close`), then tells the service (`GameService.posted`): no next tick is
    needed to forget its note, and the worker started next posts nothing."""
    clock = Clock()
    stopped = await played_on_a_ticking_worker(redis_client, clock)
    await stopped.handle(CHAT, BOB, Request(Kind.REVIEW))
    await stopped.coach.settled()
    shown = await stopped.tick(SCOPE)
    ((to, _),) = reviews(shown)
    assert to == BOB.id
    await delivered(stopped, shown)
    assert await notes_left(redis_client) == []
    _, posted = await posted_by_the_next(redis_client, clock)
    assert posted == []


async def until(done: Callable[[], bool], what: str) -> None:
    """Wait until `done()` holds (AssertionError naming `what` after 20 s: it never did)."""
    deadline = time.monotonic() + 20
    while not done():
        assert time.monotonic() < deadline, f"not within 20 s: {what}"
        await asyncio.sleep(0.01)


def telegram_front(
    fake: FakeTelegram, svc: GameService, client: aioredis.Redis
) -> TelegramFrontEnd:
    """A Telegram worker's front end on the fake, of `svc`, ticking every 0.05 s."""
    return TelegramFrontEnd(
        svc.config,
        svc,
        client,
        limits=FAST,
        rate_limiter=AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3),
        timer_interval=0.05,
        poll_timeout=1,
    )


def fake_config(fake: FakeTelegram) -> Config:
    return Config(
        telegram=TelegramConfig(token=fake.token, base_url=f"http://127.0.0.1:{fake.port}")
    )


def stops_without_waiting(
    worker: Callable[[], Awaitable[None]], release: threading.Event, seconds: float, what: str
) -> None:
    """Run `worker`, which stops while `what` is held until `release` is set: its stop must
    not wait for it (a stop that does ends after `seconds`, when the hold is let go, and
    fails). The hold is let go in any case."""
    guard = threading.Timer(seconds, release.set)
    guard.start()
    try:
        asyncio.run(worker())
        assert not release.is_set(), f"the stop waited for {what}"
    finally:
        release.set()
        guard.cancel()


def test_a_clean_stop_does_not_wait_for_a_review_under_way(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Telegram worker, its event loop run as a worker's process runs it (`asyncio.run`),
    stops cleanly while Ann's /review is being worked out (it takes seconds; here it waits
    until the test lets it go). The stop does not wait for it: the loop has ended while the
    review is still under way, and the worker started next posts it to her."""
    started, release = threading.Event(), threading.Event()
    review_game = coaching.review_game

    def slow(*args: object, **kwargs: object) -> object:
        started.set()
        release.wait()
        return review_game(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(coaching, "review_game", slow)
    clock = Clock()

    async def worker() -> None:
        client = client_of(redis_url)
        async with FakeTelegram() as fake:
            fake.add_group(-100, "Wizards")
            svc = service(client, clock=clock, config=fake_config(fake))
            front = telegram_front(fake, svc, client)
            ticks = counted_ticks(svc)
            await front.start()
            await until(lambda: ticks.count > 0, "the worker ticks")
            driver = Driver(svc, [ANN, BOB, CID], chat="tg:-100", seed=5)
            await driver.lobby(["rounds=short"])
            await driver.play_to_end()
            await svc.handle("tg:-100", ANN, Request(Kind.REVIEW))
            await until(started.is_set, "the review is being worked out")
            await front.stop()
        await client.aclose()

    stops_without_waiting(worker, release, 120, "the review")
    monkeypatch.setattr(coaching, "review_game", review_game)

    async def next_worker() -> list[tuple[str | None, str]]:
        client = client_of(redis_url)
        try:
            return (await posted_by_the_next(client, clock, "tg"))[1]
        finally:
            await client.aclose()

    ((to, text),) = asyncio.run(next_worker())
    assert (to, text.startswith("📝 Your last game")) == (ANN.id, True), text


def test_a_clean_stop_does_not_wait_for_a_hint_under_way(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a coach table on Telegram, the first bidder presses 💡 Hint on their turn message, and
    their worker stops cleanly while the hint is being worked out (here: held until the test
    lets it go). The stop does not wait for it (before, a hint ran in asyncio's default
    executor, which the loop's end joins, and the press's handler, which Telegram's stop
    waits for, waited for it): the press is answered that the bot is restarting, and pressed
    again on the worker started next, the hint comes (it was not marked as sent)."""
    started, release = held_bid_hints(monkeypatch)
    clock = Clock()
    pressed: list[tuple[TelegramUser, str, str | None]] = []

    async def worker() -> None:
        client = client_of(redis_url)
        async with FakeTelegram() as fake:
            fake.add_group(-100, "Wizards")
            people = {n: TelegramUser(n, u.name) for n, u in enumerate((ANN, BOB, CID), 1)}
            for person in people.values():
                fake.start_dm(person)
            svc = service(client, clock=clock, config=fake_config(fake))
            front = telegram_front(fake, svc, client)
            await front.start()
            driver = Driver(svc, [ANN, BOB, CID], chat="tg:-100", seed=5)
            await driver.lobby(["rounds=short", "coach"])
            await driver.play_until(lambda s: s.phase is Phase.BIDDING)  # a trump chosen
            for outcome in driver.outcomes:  # posted as the front end posts its own answers
                front.show(driver.chat, outcome)

            def hint_button() -> tuple[TelegramUser, int, str] | None:
                for number, person in people.items():
                    for message in fake.current_messages(number).values():
                        for row in message.keyboard:
                            for button in row:
                                if button.text == "💡 Hint" and button.callback_data:
                                    return person, message.message_id, button.callback_data
                return None

            await until(lambda: hint_button() is not None, "a turn message offers a hint")
            found = hint_button()
            assert found is not None
            person, message, data = found
            query = fake.press(person.id, person, message, data)["callback_query"]["id"]
            await until(started.is_set, "the hint is being worked out")
            await front.stop()
            answer = fake.callback_answer(query)
            pressed.append((person, data, answer.text if answer is not None else None))
        await client.aclose()

    stops_without_waiting(worker, release, 30, "the hint")  # released: worked out as any
    ((person, data, said),) = pressed
    assert said == "The bot is restarting: ask for your hint again in a moment."

    async def pressed_again() -> Outcome:
        client = client_of(redis_url)
        try:
            clock.advance(LEASE + 1)
            user = next(u for u in (ANN, BOB, CID) if u.id == f"tg:{person.id}")
            again = Request(Kind.BUTTON, data, aside=True)
            return await service(client, seed=7, clock=clock).handle("tg:-100", user, again)
        finally:
            await client.aclose()

    outcome = asyncio.run(pressed_again())
    assert outcome.answer is None, outcome.answer
    hint, hand = outcome.messages  # and the hand again under it
    assert hint.text.startswith("💡 Hint for"), hint.text
    assert hand.slot == "hand", hand


async def test_a_review_waiting_in_the_outbox_when_its_worker_is_killed_is_posted_by_the_next(
    redis_client: aioredis.Redis,
) -> None:
    """A Telegram worker hands Ann's /review to its outbox, but Telegram is slow to answer for
    her private chat: the post waits while the worker ticks on, and the worker is killed then.
    The review's note stays until the post is delivered, so the worker started next posts it."""
    clock = Clock()
    group = "tg:-100"
    async with FakeTelegram() as fake:
        fake.add_group(-100, "Wizards")
        fake.start_dm(TelegramUser(1, "Ann"))
        killed = service(redis_client, clock=clock, config=fake_config(fake))
        front = telegram_front(fake, killed, redis_client)
        ticks = counted_ticks(killed)
        await front.start()
        try:
            driver = Driver(killed, [ANN, BOB, CID], chat=group, seed=5)
            await driver.lobby(["rounds=short"])
            await driver.play_to_end()
            held = fake.stall(1)  # Ann's private chat
            asked = await killed.handle(group, ANN, Request(Kind.REVIEW))
            assert asked.answer == "Your review is being worked out: it comes to you privately."
            await killed.coach.settled()
            await until(lambda: "sendMessage" in held, "the review is on its way to Ann")
            on_its_way = ticks.count
            await until(lambda: ticks.count > on_its_way + 1, "the worker ticks on")
            assert front._timers is not None
            front._timers.cancel()  # killed: no more ticks, no clean stop
            _, posted = await posted_by_the_next(redis_client, clock, "tg")
            ((to, text),) = posted
            assert (to, text.startswith("📝 Your last game")) == (ANN.id, True), text
            assert await notes_left(redis_client) == []
        finally:
            fake.unstall(1)
            await front.stop()


class Away(Exception):
    """The platform cannot be reached (the outbox tries a post again)."""


class Platform:
    """Private chats whose posts fail for the first `away` tries (each post of each hand-over
    to the outbox), then go: what was posted, by whom."""

    def __init__(self, away: int) -> None:
        self.away = away
        self.posted: list[tuple[str | None, str]] = []

    async def deliver(self, message: Message) -> object:
        if self.away > 0:
            self.away -= 1
            raise Away
        self.posted.append((message.to, message.text))
        return "posted"


async def a_review_handed_over(
    redis_client: aioredis.Redis, platform: Platform, again: float
) -> tuple[Clock, Outbox[Message], Delivered, str, Outcome]:
    """Bob's /review of a game played on a ticking worker, handed over by its tick to a front
    end whose outbox posts to `platform` (its tries at once) and tries a review it gave up on
    again `again` seconds later."""
    clock = Clock()
    svc = await played_on_a_ticking_worker(redis_client, clock)
    await svc.handle(CHAT, BOB, Request(Kind.REVIEW))
    await svc.coach.settled()
    ((chat, outcome),) = [(chat, o) for chat, o in await svc.tick(SCOPE) if o.notes]
    # the review alone: his result posted again under it, what goes with it here, is another
    # test's (test_a_review_posted_again_has_what_came_under_it_again_under_it)
    outcome = replace(outcome, messages=tuple(m for m in outcome.messages if "📝" in m.text))
    outbox: Outbox[Message] = Outbox(
        platform.deliver,
        FAST,
        sleep=lambda _: asyncio.sleep(0),
        retry=lambda error: isinstance(error, Away),
    )

    async def queue(chat: str, outcome: Outcome) -> list["asyncio.Future[object]"]:
        return [outbox.put(message.to, message) for message in outcome.messages]

    return clock, outbox, Delivered(svc, outbox, queue, again=again), chat, outcome


async def test_a_review_the_outbox_gave_up_on_is_posted_again_once_the_platform_is_back(
    redis_client: aioredis.Redis,
) -> None:
    """The platform is away as Bob's review is handed over: the outbox tries its post for its
    two minutes (here at once) and gives it up. He was told it comes to him privately, so it
    is posted again a minute later (`AGAIN`; here at once), the platform back by then: he gets
    it once, and only then is its note forgotten. (Before, it was forgotten, never posted.)"""
    platform = Platform(away=outbox_module.RETRIES + 1)  # one hand-over's tries
    _, _, delivered, chat, outcome = await a_review_handed_over(redis_client, platform, 0)
    await delivered.show(chat, outcome)
    await until(lambda: bool(platform.posted), "the review is posted")
    await delivered.close()  # its note forgotten by then
    assert platform.posted == [(m.to, m.text) for m in outcome.messages]
    assert [to for to, _ in platform.posted] == [BOB.id]
    assert await notes_left(redis_client) == []


async def test_a_review_posted_again_has_what_came_under_it_again_under_it(
    redis_client: aioredis.Redis,
) -> None:
    """Bob's review comes with his hand posted again under it (a hand that asks him for a
    press: `hand_again`). The platform is away for the review's tries; the hand goes once it
    is back. The review posted again a minute later is followed by the hand again, which
    would else sit above it, as the review was meant to sit above the hand."""
    platform = Platform(away=outbox_module.RETRIES + 1)  # the review's tries of one hand-over
    _, _, delivered, chat, outcome = await a_review_handed_over(redis_client, platform, 0)
    hand = Message("Your bid?", to=BOB.id, slot="hand", notify=True, quiet=True)
    review = outcome.messages[-1].text
    await delivered.show(chat, replace(outcome, messages=(*outcome.messages, hand)))
    await until(lambda: len(platform.posted) == 3, "the review is posted again")
    await delivered.close()
    assert platform.posted == [(BOB.id, "Your bid?"), (BOB.id, review), (BOB.id, "Your bid?")]
    assert await notes_left(redis_client) == []


async def test_a_review_the_outbox_gave_up_on_for_good_is_forgotten(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """The platform stays away for every hand-over of Bob's review (`TRIES`): it is given up,
    with a warning, and its note forgotten (posted by the worker that takes over, hours later
    perhaps, it would come out of the blue)."""
    platform = Platform(away=TRIES * (outbox_module.RETRIES + 1))
    _, _, delivered, chat, outcome = await a_review_handed_over(redis_client, platform, 0)
    await delivered.show(chat, outcome)
    await until(lambda: platform.away == 0, "the review is tried and given up")
    await delivered.close()  # its note forgotten by then
    assert platform.posted == []
    assert "a review could not be posted; it is given up" in caplog.text
    assert await notes_left(redis_client) == []


async def test_a_review_waiting_to_be_posted_again_keeps_its_note_through_a_clean_stop(
    redis_client: aioredis.Redis,
) -> None:
    """The outbox gave Bob's review up and it waits to be tried again when its worker stops
    cleanly: the stop does not wait for it, and its note stays; the worker that takes over
    posts it to him."""
    platform = Platform(away=outbox_module.RETRIES + 1)
    handed = await a_review_handed_over(redis_client, platform, 3600)
    clock, outbox, delivered, chat, outcome = handed
    await delivered.show(chat, outcome)
    await until(lambda: platform.away == 0, "the outbox gives the review up")
    await outbox.close()  # as the front end stops
    await delivered.close()
    assert platform.posted == []
    assert await notes_left(redis_client) != []
    _, posted = await posted_by_the_next(redis_client, clock)
    assert [to for to, _ in posted] == [BOB.id]

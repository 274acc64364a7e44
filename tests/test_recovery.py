"""Nothing shown is lost, whatever dies when: a worker that dies between a save and its posts has
its journal taken over and its chats' lasting messages shown again; a worker cut off from Redis
shows its own journal's again; turn clocks stand still while no worker runs (a real
redis-server)."""

import asyncio
import json
import logging
import time
from collections import Counter

import pytest
import redis.asyncio as aioredis
from service_helpers import ANN, BOB, CHAT, CID, Clock, Driver, client, service, table_of

from bot.clock import ServerClock
from bot.commands import Kind
from bot.config import Config
from bot.messages import NO_GAME, Outcome
from bot.requests import Request
from bot.service import GAP, LEASE, GameService
from bot.stats import Rerated
from bot.store import keys
from bot.store.redis_server import RedisServer
from engine import waiting_seats

SCOPE = "chat"


async def started(svc: GameService) -> None:
    """Three people at a table, the first round dealt."""
    for user in (ANN, BOB, CID):
        await svc.handle(CHAT, user, Request(Kind.JOIN))
    await svc.handle(CHAT, ANN, Request(Kind.START))


async def to_act(redis_client: aioredis.Redis) -> str:
    table = await table_of(redis_client)
    assert table is not None
    (seat, *_) = waiting_seats(table.game)
    return table.game.players[seat].id


def hand_of(outcome: Outcome, person: str) -> tuple[str, bool]:
    """The text of `person`'s hand message in `outcome`, and whether it has buttons."""
    (message,) = [m for m in outcome.messages if m.to == person and m.slot == "hand"]
    return message.text, bool(message.buttons)


def said(outcome: Outcome) -> dict[tuple[str | None, str], str]:
    """What each slot message of `outcome` leaves its slot saying: a bare one its `behind` (if
    it says anything), another its text."""
    texts = {(m.to, m.slot): m.behind if m.strip else m.text for m in outcome.messages}
    return {(to, slot): text for (to, slot), text in texts.items() if slot and text}


async def test_a_dead_workers_chats_are_shown_again_by_the_next(
    redis_client: aioredis.Redis,
) -> None:
    clock = Clock()
    dead = service(redis_client, clock=clock)
    await dead.tick(SCOPE)
    await started(dead)  # what it had to post dies with it
    clock.advance(1)
    restarted = service(redis_client, clock=clock)
    assert await restarted.tick(SCOPE) == []  # the other's lease has not run out yet
    clock.advance(LEASE)
    ((chat, outcome),) = await restarted.tick(SCOPE)
    assert chat == CHAT
    assert outcome.again
    table = await table_of(redis_client)
    assert table is not None
    assert outcome.version == (table.game_id, int(await redis_client.hget(keys.game(CHAT), "v")))
    slots = [(m.to, m.slot) for m in outcome.messages]
    assert slots == [
        (None, "lobby"),
        (ANN.id, "options"),  # the host's toggles, if any, as the start closed them
        (None, "table"),
        (ANN.id, "hand"),
        (BOB.id, "hand"),
        (CID.id, "hand"),
        (None, "remind"),  # a turn's reminder a crash left up goes (none is up: the table says)
    ]
    assert outcome.messages[-1].delete
    # The lobby as the start closed it, shown since that version: a lobby slot that shows it
    # (its message edited by the start) is not posted again.
    lobby = outcome.messages[0]
    assert lobby.text.startswith("🔮 Wizard: the game has started.")
    assert lobby.buttons == ()
    assert lobby.since is not None
    assert lobby.since == table.started
    first = await to_act(redis_client)
    text, buttons = hand_of(outcome, first)
    assert buttons, text  # the one to act can act
    # Each hand says since which version it shows what it does: a slot that shows it is
    # not posted again.
    assert all(m.since is not None for m in outcome.messages if m.slot == "hand")
    # The journal was taken over: nothing is shown twice, and the dead worker is forgotten.
    clock.advance(1)
    assert await restarted.tick(SCOPE) == []
    assert await redis_client.zscore(keys.beats(SCOPE), dead.worker) is None
    assert await redis_client.exists(keys.journal(SCOPE, dead.worker)) == 0
    assert await redis_client.zscore(keys.journal(SCOPE, restarted.worker), CHAT) is not None


async def test_a_games_end_shown_again_after_a_crash_says_how_it_moved_the_ratings(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker dies between a game's last write and its posts, after folding the stats or
    before: the next shows the game's end again as the first showing says it, the ratings line
    in the group and each person's own rating, folding the game if it was not (once)."""
    ends = []
    for chat, fold_first in (("chat:-1", True), ("chat:-2", False)):
        clock = Clock()
        dead = service(redis_client, seed=5, clock=clock)
        await dead.tick(SCOPE)
        if not fold_first:

            async def died(chat: str, game: str) -> tuple[Rerated, ...]:
                return ()  # the worker dies right after the game's end is written

            monkeypatch.setattr(dead, "_fold", died)
        driver = Driver(dead, [ANN, BOB, CID], chat=chat, seed=5)
        await driver.lobby(["rounds=short"])
        await driver.play_to_end()  # what the last move shows dies with the worker
        folds = int(await redis_client.hget(keys.stats(chat), "v") or 0)
        assert folds == (1 if fold_first else 0)
        clock.advance(LEASE + 1)
        restarted = service(redis_client, seed=6, clock=clock)
        ((again, outcome),) = await restarted.tick(SCOPE)
        assert again == chat
        assert outcome.again
        shown = {(m.to, m.slot): m.text for m in outcome.messages if m.slot in ("over", "hand")}
        ends.append(shown)
        assert int(await redis_client.hget(keys.stats(chat), "v") or 0) == 1  # folded once
        if fold_first:  # as the dead worker would have shown it
            first = {(m.to, m.slot): m.text for m in driver.screens.latest.values()}
            assert {key: first[key] for key in shown} == shown
    assert ends[0] == ends[1]  # the same game (the same seeds) in another chat
    over = ends[0][(None, "over")].splitlines()
    assert over[-2].startswith("Ratings here: "), over
    assert over[-1] == "? provisional: fewer than 5 games"
    for user in (ANN, BOB, CID):
        assert ends[0][(user.id, "hand")].splitlines()[-1].startswith("Your rating here: ")


async def test_a_game_started_by_a_dead_worker_shows_since_when_its_lobby_is_closed(
    redis_client: aioredis.Redis,
) -> None:
    """The lobby is closed by the write that starts the game, and stays as it was whatever
    is played after: shown again, it says since which version it shows what it shows."""
    clock = Clock()
    svc = service(redis_client, clock=clock)
    for user in (ANN, BOB, CID):
        await svc.handle(CHAT, user, Request(Kind.JOIN))
    opened = int(await redis_client.hget(keys.game(CHAT), "v"))
    await svc.handle(CHAT, ANN, Request(Kind.START))
    table = await table_of(redis_client)
    assert table is not None
    assert table.started == opened + 1
    who = await to_act(redis_client)
    person = next(u for u in (ANN, BOB, CID) if u.id == who)
    (hand,) = [m for m in (await svc.current(CHAT)).messages if m.to == who and m.slot == "hand"]
    moved = await svc.handle(CHAT, person, Request(Kind.BUTTON, hand.buttons[0][0].payload))
    assert not moved.alert, moved.answer
    outcome = await svc.current(CHAT)
    (lobby,) = [m for m in outcome.messages if m.slot == "lobby"]
    assert lobby.since == opened + 1
    assert outcome.version is not None
    assert outcome.version[1] > opened + 1


async def test_a_lobby_cancelled_by_a_dead_worker_loses_its_buttons_again(
    redis_client: aioredis.Redis,
) -> None:
    """The worker died after it cancelled the table, before the lobby lost its buttons: with
    no game left to show, the next worker takes the buttons off the group's lasting messages,
    where no later version of the chat shows."""
    clock = Clock()
    dead = service(redis_client, clock=clock)
    await dead.tick(SCOPE)
    for user in (ANN, BOB):
        await dead.handle(CHAT, user, Request(Kind.JOIN))
    table = await table_of(redis_client)
    assert table is not None
    lost = await dead.handle(CHAT, ANN, Request(Kind.CANCEL))  # its posts die with it
    assert await table_of(redis_client) is None
    clock.advance(LEASE + 1)
    other = service(redis_client, clock=clock)
    ((chat, outcome),) = await other.tick(SCOPE)
    assert chat == CHAT
    assert outcome.again
    # Of the game the note names: only its messages are edited to say what it says.
    assert outcome.version == (table.game_id, int(await redis_client.hget(keys.game(CHAT), "v")))
    assert [(m.to, m.slot, m.strip, m.text) for m in outcome.messages] == [
        *((None, slot, True, "") for slot in ("lobby", "table", "over")),
        (ANN.id, "options", True, ""),  # the host's toggles, if any
    ]
    # The lobby and the host's toggles say what the lost posts said: the table was cancelled.
    shown = said(outcome)
    assert shown == said(lost)
    cancelled = "🔮 Wizard: this table was cancelled."
    assert shown == {(None, "lobby"): cancelled, (ANN.id, "options"): cancelled}


async def test_a_game_cancelled_by_a_dead_worker_takes_its_hands_buttons_off_again(
    redis_client: aioredis.Redis,
) -> None:
    """The worker died after it cancelled a game in play, before the hands lost their
    buttons: the cancel noted who sat at the table beside the chat's version, so the next
    worker takes the buttons off each player's hand message too; the note goes with the
    chat's next write."""
    clock = Clock()
    dead = service(redis_client, clock=clock)
    await dead.tick(SCOPE)
    await started(dead)
    table = await table_of(redis_client)
    assert table is not None
    lost = await dead.handle(CHAT, ANN, Request(Kind.CANCEL))  # its posts die with it
    clock.advance(LEASE + 1)
    other = service(redis_client, clock=clock)
    ((chat, outcome),) = await other.tick(SCOPE)
    assert chat == CHAT
    assert outcome.version == (table.game_id, int(await redis_client.hget(keys.game(CHAT), "v")))
    assert [(m.to, m.slot, m.strip, m.text) for m in outcome.messages] == [
        *((None, slot, True, "") for slot in ("lobby", "table", "over")),
        *((person.id, "hand", True, "") for person in (ANN, BOB, CID)),
    ]
    # Each message says what the lost post said: the table who cancelled the game, each hand
    # that the game was cancelled.
    shown = said(outcome)
    assert shown == said(lost)
    assert shown[None, "table"].endswith("Ann cancelled the game.")
    assert [shown[person.id, "hand"] for person in (ANN, BOB, CID)] == [
        "The game was cancelled."
    ] * 3
    await other.handle(CHAT, BOB, Request(Kind.JOIN))
    assert await redis_client.hget(keys.game(CHAT), "c") is None


async def test_a_note_of_a_cancel_an_older_worker_wrote_past_is_not_read(
    redis_client: aioredis.Redis,
) -> None:
    """An older worker neither reads nor deletes the note of a cancelled game: a write of its
    own after it (the chat's version moved on) leaves the note, which names a version that is
    no longer the chat's, and nobody's hand is shown again from it."""
    svc = service(redis_client)
    await started(svc)
    await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
    assert (await svc.current(CHAT)).messages[3:]  # the hands, while the cancel is the last
    await redis_client.hincrby(keys.game(CHAT), "v", 1)  # an older worker's write
    outcome = await svc.current(CHAT)
    assert [(m.to, m.slot) for m in outcome.messages] == [
        (None, slot) for slot in ("lobby", "table", "over")
    ]


async def test_a_note_naming_no_game_is_read_as_an_older_worker_wrote_it(
    redis_client: aioredis.Redis,
) -> None:
    """A worker before the note named its game wrote it as a list of [recipient, slot, text]
    alone: it is read as before, shown again of no game (`NO_GAME`: any game's message may be
    edited). An older worker reads the entry naming the game as a group message of a slot
    it does not show (`[null, "#game", <id>]`), which it leaves."""
    svc = service(redis_client)
    await started(svc)
    await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
    version, note = await redis_client.hmget(keys.game(CHAT), ["v", "c"])
    at, _, text = note.decode().partition(":")
    *older, game = json.loads(text)
    assert game[:2] == [None, "#game"]
    await redis_client.hset(keys.game(CHAT), "c", f"{at}:{json.dumps(older)}")
    outcome = await svc.current(CHAT)
    assert outcome.version == (NO_GAME, int(version))
    assert list(said(outcome).values())[1:] == ["The game was cancelled."] * 3


async def test_a_note_of_the_first_form_is_not_read(redis_client: aioredis.Redis) -> None:
    """A note of the first form (`<version> <ids>`: a person's id for their hand, with
    `{options` for a host's toggles) is not read by a worker of this one (`<version>:<JSON>`):
    the group's messages lose their buttons as with no note, saying nothing new."""
    svc = service(redis_client)
    await started(svc)
    await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
    version = int(await redis_client.hget(keys.game(CHAT), "v"))
    first = f"{version} {ANN.id} {BOB.id}{{options"
    await redis_client.hset(keys.game(CHAT), "c", first)
    outcome = await svc.current(CHAT)
    assert [(m.to, m.slot, m.behind) for m in outcome.messages] == [
        (None, slot, None) for slot in ("lobby", "table", "over")
    ]


@pytest.mark.parametrize(
    "said",
    ["not json", '{"a": 1}', "[1, 2]", '[["tg:1", "hand"]]', '[[null, 3, "x"]]', "\\xff"],
)
async def test_a_malformed_note_is_warned_of_once_and_shown_as_none(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture, said: str
) -> None:
    """A note whose JSON (or any part) is malformed, of the chat's version, does not keep the
    chat from being shown again: it is shown as without a note (the group's messages lose
    their buttons, saying nothing new), and a warning says so once, however often it is read."""
    svc = service(redis_client)
    await started(svc)
    await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
    version = int(await redis_client.hget(keys.game(CHAT), "v"))
    note = f"{version}:".encode() + (b"\xff\xfe" if said == "\\xff" else said.encode())
    await redis_client.hset(keys.game(CHAT), "c", note)
    with caplog.at_level(logging.WARNING, logger="bot.store.store"):
        for _ in range(2):
            outcome = await svc.current(CHAT)
            assert [(m.to, m.slot, m.behind) for m in outcome.messages] == [
                (None, slot, None) for slot in ("lobby", "table", "over")
            ]
    (warned,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "note" in warned.getMessage()
    assert CHAT in warned.getMessage()


async def test_a_chat_that_never_had_a_game_shows_nothing_again(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client)
    assert await svc.current(CHAT) == Outcome()


async def test_the_taker_over_dying_too_loses_nothing(redis_client: aioredis.Redis) -> None:
    clock = Clock()
    first = service(redis_client, clock=clock)
    await first.tick(SCOPE)
    await started(first)
    second = service(redis_client, clock=clock)
    clock.advance(LEASE + 1)
    assert len(await second.tick(SCOPE)) == 1  # it took over, and dies before posting
    clock.advance(LEASE + 1)
    third = service(redis_client, clock=clock)
    ((chat, outcome),) = await third.tick(SCOPE)
    assert chat == CHAT
    assert outcome.again


async def test_a_worker_cut_off_from_redis_shows_its_own_chats_again(
    redis_client: aioredis.Redis,
) -> None:
    clock = Clock()
    svc = service(redis_client, clock=clock)
    await svc.tick(SCOPE)
    await started(svc)
    clock.advance(1)
    assert await svc.tick(SCOPE) == []  # beating as it should: it posted what it had
    clock.advance(GAP + 5)  # its ticks failed meanwhile (Redis was away)
    ((chat, outcome),) = await svc.tick(SCOPE)
    assert chat == CHAT
    assert outcome.again


async def test_only_the_chats_of_a_workers_scope_are_its_concern(
    redis_client: aioredis.Redis,
) -> None:
    clock = Clock()
    dead = service(redis_client, clock=clock)
    await started(dead)
    clock.advance(LEASE + 1)
    other = service(redis_client, clock=clock)
    assert await other.tick("dc") == []  # another platform's workers
    assert await other.run_timers("dc") == []
    assert len(await other.tick(SCOPE)) == 1


async def running(svc: GameService, clock: Clock, until: float) -> list[tuple[str, Outcome]]:
    """A worker running until `until`: a tick each second, as its timer loop does."""
    shown = []
    while clock.now < until:
        clock.advance(min(1.0, until - clock.now))
        shown += await svc.tick(SCOPE)
    return shown


async def test_turn_clocks_stand_still_while_no_worker_runs(
    redis_client: aioredis.Redis,
) -> None:
    clock = Clock()
    config = Config()
    svc = service(redis_client, clock=clock)
    await svc.tick(SCOPE)
    await started(svc)
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline is not None
    assert table.remind is not None
    deadline, remind, phase = table.deadline, table.remind, table.game.phase
    who = await to_act(redis_client)
    await running(svc, clock, clock.now + 10)
    down = config.turn_timeout * 3  # everything stopped, for longer than a whole turn
    clock.advance(down)
    restarted = service(redis_client, clock=clock)
    shown = await restarted.tick(SCOPE)
    assert shown
    assert all(outcome.again for _, outcome in shown)
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline is not None
    assert table.remind is not None
    assert table.away == []
    assert table.game.phase is phase
    lost = table.deadline - deadline
    assert abs(lost - down) < GAP + 1  # the time lost is credited (within a beat)
    assert abs(table.remind - remind - lost) < 0.01
    # The turn goes on from where it stood: the reminder once the half of it has gone by...
    shown = await running(restarted, clock, table.remind - 1)
    assert not [m for _, o in shown for m in o.messages]
    shown = await running(restarted, clock, table.remind + 1)
    assert [m.text for _, o in shown for m in o.messages if "it is your turn" in m.text]
    # ...and the timeout once the rest of it has.
    await running(restarted, clock, table.deadline + 1)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [who]


async def test_a_short_pause_is_no_outage(redis_client: aioredis.Redis) -> None:
    clock = Clock()
    svc = service(redis_client, clock=clock)
    for _ in range(5):
        await svc.tick(SCOPE)
        clock.advance(GAP - 0.5)
    assert svc.outages == ()
    clock.advance(GAP + 1)
    await svc.tick(SCOPE)
    ((start, end),) = svc.outages
    assert end - start > GAP


async def test_a_request_the_store_failed_shows_its_chat_again_once_it_is_back(
    redis_server: RedisServer, redis_client: aioredis.Redis
) -> None:
    """A write whose answer was lost may have been applied: nobody was shown its outcome. So the
    chat is shown again (where behind) by the first tick that reaches Redis. The client waits
    as long as Redis takes to answer (a killed server refuses at once): with a short timeout, a
    server slow for half a second under load failed the game's start, and the test with it."""
    clock = Clock()
    svc = service(redis_client, clock=clock)
    await svc.tick(SCOPE)
    await started(svc)
    who = await to_act(redis_client)
    redis_server.kill()
    try:
        person = next(u for u in (ANN, BOB, CID) if u.id == who)
        outcome = await svc.handle(CHAT, person, Request(Kind.HAND))
        assert outcome.alert
        clock.advance(1)
        assert await svc.tick(SCOPE) == []  # Redis is still away
    finally:
        redis_server.restart()
    clock.advance(1)
    ((chat, shown),) = await svc.tick(SCOPE)
    assert chat == CHAT
    assert shown.again
    clock.advance(1)
    assert await svc.tick(SCOPE) == []  # once


async def test_a_worker_whose_clock_is_off_says_so(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """Heartbeats and deadlines are compared across workers by each one's clock: a worker whose
    clock is off Redis's by more than a beat's slack is taken for gone by the others at every
    tick (they show its chats again meanwhile) and fires deadlines early or late. It cannot
    mend that, but it tells the operator, once, at its first tick."""
    clock = Clock(time.time() + 5)  # five seconds ahead
    svc = service(redis_client, clock=clock)
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        await svc.tick(SCOPE)
        clock.advance(1)
        await svc.tick(SCOPE)
    (said,) = [r.getMessage() for r in caplog.records if "clock" in r.getMessage()]
    assert "5 s ahead of the Redis server's" in said, said
    caplog.clear()
    in_time = service(redis_client, clock=Clock(time.time()))
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        await in_time.tick(SCOPE)
    assert not [r for r in caplog.records if "clock" in r.getMessage()]


async def server_time(redis_client: aioredis.Redis) -> float:
    seconds, micros = await redis_client.time()
    return seconds + micros / 1e6


@pytest.mark.parametrize("step", [3600.0, -600.0])
async def test_a_step_of_a_workers_clock_moves_no_deadline(
    redis_client: aioredis.Redis, step: float
) -> None:
    """A chat worker goes by the Redis server's clock, read at each beat and carried on by its
    own steady clock: its system clock stepped (NTP, a suspended VM, an operator) an hour
    forwards neither records an outage that pushes every turn of the scope an hour later, nor,
    stepped back, sets deadlines already past that put the next player on autopilot at once."""
    wall = [time.time()]
    svc = GameService(service(redis_client).store, Config(), clock=ServerClock(lambda: wall[0]))
    steady = service(redis_client, clock=Clock(time.time()))  # another worker, in time
    await svc.tick(SCOPE)
    await steady.tick(SCOPE)
    driver = Driver(svc, [ANN, BOB, CID], seed=3)
    await driver.lobby()
    wall[0] += step
    await svc.tick(SCOPE)
    assert svc.outages == ()
    await driver.move()  # the next player's turn, its deadline set by the stepped worker
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline is not None
    left = table.deadline - await server_time(redis_client)
    assert Config().turn_timeout - 30 < left <= Config().turn_timeout
    assert table.away == []
    await steady.tick(SCOPE)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []


async def test_after_hours_down_two_workers_resume_every_turn_once(
    redis_url: str, redis_client: aioredis.Redis
) -> None:
    """Every worker was down for hours, many chats' deadlines long past; two workers start at
    the same moment. No chat is timed out and none is reminded at once (the turns resume where
    they stood, a write each, nothing posted), and each chat is then reminded once, at half of
    what was left of its turn, and timed out once."""
    clock = Clock()
    svc = service(redis_client, clock=clock)
    await svc.tick(SCOPE)
    chats = [f"{CHAT}:{n}" for n in range(12)]
    for chat in chats:
        for user in (ANN, BOB, CID):
            await svc.handle(chat, user, Request(Kind.JOIN))
        await svc.handle(chat, ANN, Request(Kind.START))
    clock.advance(1)
    await svc.tick(SCOPE)
    first = await table_of(redis_client, chats[0])
    assert first is not None
    assert first.remind is not None
    half = first.remind - clock.now
    clock.advance(3 * 3600)
    workers = [service(client(redis_url), seed=n, clock=clock) for n in (1, 2)]
    posted: list[tuple[str, str]] = []

    async def both() -> None:
        for shown in await asyncio.gather(*(w.tick(SCOPE) for w in workers)):
            posted.extend((chat, m.text) for chat, o in shown for m in o.messages if not o.again)

    try:
        await both()
        assert posted == []
        for chat in chats:
            table = await table_of(redis_client, chat)
            assert table is not None
            assert table.away == []
            assert table.remind is not None
            assert abs(table.remind - clock.now - half) <= GAP
        while clock.now < first.deadline + 3 * 3600 + GAP + 1:  # type: ignore[operator]
            clock.advance(1)
            await both()
        reminders = Counter(chat for chat, text in posted if text.startswith("⏳"))
        timeouts = Counter(chat for chat, text in posted if "ran out of time" in text)
        assert reminders == dict.fromkeys(chats, 1)
        assert timeouts == dict.fromkeys(chats, 1)
    finally:
        for worker in workers:
            await worker.moved()
            await worker.store.client.aclose()

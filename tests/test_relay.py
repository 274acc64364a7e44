"""A web-only worker hands the moves made on its pages to a worker that runs the chat's front end
(`adapters.relay`, `bot.store.relay`), against a real redis-server and the fake Telegram: the
move shows in the group and in the player's private chat, applied once; an entry a consumer
that died was given is taken over by another after the claim time and applied once (the update
id); with no live consumer of the scope, the web worker applies the move itself and hands its
journal over, so the chat is shown again once a worker of the scope comes; with the only
reader killed a moment ago (the relay looks live), the move handed over is taken back and
applied by the web worker, and one a consumer reads at that moment is left to it; one the only
reader took and died holding is taken over and applied once by the web worker."""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import redis.asyncio as aioredis
import service_helpers
from aiohttp import ClientConnectionError, ClientSession, web
from aiohttp.test_utils import TestClient, TestServer
from cluster import Cluster
from fake_discord import Person
from service_helpers import Driver, raw, table_of
from test_discord import Bot as DiscordBot
from test_discord import people
from test_discord import running as discord_running
from test_discord import seat as discord_seat
from test_telegram import ANN, BOB, GROUP, Bot, running, until
from test_web import ann_and_two_ai, bearer, telegram_game

from adapters.relay import FORGET, LIVE, relay_loop, relaying
from adapters.running import Shows
from adapters.serve import main as serve_main
from adapters.serve import serve
from adapters.web import auth
from adapters.web.server import WebTable
from bot import GameService, Kind, Outcome, Request, User
from bot.config import Config, TelegramConfig, WebConfig
from bot.store import keys, redis_client
from bot.store.redis_server import free_port
from bot.store.relay import GROUP as RELAY_GROUP
from bot.store.relay import Relay, Relayed

CONFIG = Config(web=WebConfig(secret="s3cret"))
TOO_LATE_EN = "Your move was not made: the game could not take it in time. Try again."
TOO_LATE_DE = (
    "Dein Zug wurde nicht gemacht: Das Spiel konnte ihn nicht rechtzeitig annehmen. "
    "Versuche es noch einmal."
)
CHAT = f"tg:{GROUP}"
PLAYER = f"tg:{ANN.id}"


@contextlib.asynccontextmanager
async def web_worker(
    redis_url: str, relay: type[Relay] = Relay, handover: float = LIVE, answered: float = 4.0
) -> AsyncIterator[tuple[WebTable, TestClient[web.Request, web.Application]]]:
    """A worker that serves the web table and runs no chat front end: a service and a Redis
    client of its own, no `Shows` for `tg`, and the relay, as `adapters.web.run` makes it (of
    the class `relay`; a move handed over waits `handover` seconds for a consumer, and
    `/api/relayed` `answered` seconds for it to be acknowledged)."""
    client = aioredis.Redis.from_url(redis_url)
    service = GameService.on_redis(client, CONFIG)
    page = WebTable(
        service,
        CONFIG,
        client,
        deliver=Shows(),
        relay=relay(client),
        handover=handover,
        answered=answered,
    )
    try:
        async with TestClient(TestServer(page.app())) as http:
            yield page, http
    finally:
        await client.aclose()


async def a_move(http: TestClient[web.Request, web.Application], link: str) -> str:
    """A move Ann's page offers now (a bid, a trump or a legal card)."""
    answer = await http.get("/api/view", headers=bearer(link))
    assert answer.status == 200
    view: dict[str, Any] = await answer.json()
    choices = [b["payload"] for b in view["bids"]] + [c["payload"] for c in view["trump_choice"]]
    return str((choices or [c["payload"] for c in view["hand"] if c["legal"]])[0])


async def applied_here(
    http: TestClient[web.Request, web.Application], link: str, payload: str, version: int
) -> None:
    """Ann's page makes the move `payload`, and its worker applies it itself (200, not
    relayed): the view it answers is newer than `version`."""
    answer = await http.post("/api/move", json={"payload": payload}, headers=bearer(link))
    assert answer.status == 200
    said = await answer.json()
    assert said["ok"]
    assert not said["relayed"]
    assert said["view"]["version"] > version


async def what_became(
    http: TestClient[web.Request, web.Application], link: str, asked: dict[str, str]
) -> Any:
    """What the page of `link` is told of the move handed over that its 202 named `asked`
    (`/api/relayed`)."""
    answer = await http.get("/api/relayed", params=asked, headers=bearer(link))
    assert answer.status == 200, await answer.text()
    return await answer.json()


async def pending(client: "aioredis.Redis") -> int:
    """Entries of the `tg` relay given to a consumer and not acknowledged."""
    summary = await client.xpending(keys.relay("tg"), RELAY_GROUP)
    return int(summary["pending"])


async def test_a_move_on_a_web_only_worker_shows_in_the_chat_through_the_relay(
    redis_url: str,
) -> None:
    async with running(redis_url) as bot, web_worker(redis_url) as (page, http):
        front = bot.front
        async with relaying(front.service, front.show_async, "tg", bot.client, 1.0):
            link = await ann_and_two_ai(bot)
            assert await Relay(bot.client).live("tg", 3.0)
            version = (await raw(bot.client, CHAT))[0]
            group, hand = bot.table().text, bot.hand(ANN).text
            answer = await http.post(
                "/api/move", json={"payload": await a_move(http, link)}, headers=bearer(link)
            )
            assert answer.status == 202
            said = await answer.json()
            assert said["relayed"]
            assert said["ok"]
            assert said["view"]["version"] == version  # the move is not the web worker's
            await until(lambda: bot.table().text != group, "the group's table shows the move")
            await until(lambda: bot.hand(ANN).text != hand, "Ann's hand message shows it")
            await until_acked(bot.client)
            assert (await raw(bot.client, CHAT))[0] > version
            stored = await table_of(bot.client, CHAT)
            assert stored is not None
            assert stored.game.round is not None
            # applied once: the one relayed update id is marked, and the worker of the chat's
            # front end made the write (the web worker's journal holds nothing)
            marked = [key async for key in bot.client.scan_iter(f"wiz:{{{CHAT}}}:u:web*")]
            assert len(marked) == 1
            assert not await bot.client.exists(keys.journal("tg", page.service.worker))
            await bot.idle()
            assert not bot.real_errors()
        await asyncio.sleep(0.6)  # the consumer stopped: soon nobody reads the relay
        assert not await Relay(bot.client).live("tg", 0.5)


async def test_a_move_the_game_has_moved_past_is_refused_on_the_page_not_handed_over(
    redis_url: str,
) -> None:
    """A press of a decision the game has moved past (a page behind, a second tab) is refused
    by the web worker with the chat's words, "This button is out of date.": handed over, it was
    answered 202 and refused by the chat's worker, and that refusal never came back to the page
    (which said nothing)."""
    async with running(redis_url) as bot, web_worker(redis_url) as (_, http):
        front = bot.front
        async with relaying(front.service, front.show_async, "tg", bot.client, 1.0):
            link = await ann_and_two_ai(bot)
            payload = await a_move(http, link)
            made = await http.post("/api/move", json={"payload": payload}, headers=bearer(link))
            assert made.status == 202
            await until_acked(bot.client)
            version = (await raw(bot.client, CHAT))[0]
            handed = await bot.client.xlen(keys.relay("tg"))
            again = await http.post("/api/move", json={"payload": payload}, headers=bearer(link))
            said = await again.json()
            assert (again.status, said["ok"], said["relayed"]) == (200, False, False)
            assert said["answer"] == "This button is out of date."
            assert await bot.client.xlen(keys.relay("tg")) == handed  # nothing handed over
            assert (await raw(bot.client, CHAT))[0] == version  # nor changed
            await bot.idle()
            assert not bot.real_errors()


async def test_a_move_the_chat_worker_refuses_is_said_on_the_page(redis_url: str) -> None:
    """A press the web worker cannot see refused, handed over, and refused by the chat's worker
    (here a second tab's bid under hidden bids, Ann's first bid made meanwhile: the same
    decision by the web worker's read, while Bob has not bid) is said on the page: asked what
    became of it (`/api/relayed`, with the `entry` and `update` of its 202), the web worker
    answers the chat worker's refusal, in its words. It answered 202 and nothing more: the
    page thought the bid made. A move made is answered `ok` with no words."""
    async with running(redis_url) as bot, web_worker(redis_url) as (_, http):
        front = bot.front
        async with relaying(front.service, front.show_async, "tg", bot.client, 1.0):
            link = await telegram_game(bot, (ANN, BOB), 1, "bids=hidden")
            (_, made), (asked, refused) = await two_tabs_bid(http, link)
            assert made == {"ok": True, "answer": None}
            assert refused == {"ok": False, "answer": "You have already bid."}
            # Bob may not read Ann's answers
            stored = await table_of(bot.client, CHAT)
            assert stored is not None
            bob = auth.sign_link(b"s3cret", CHAT, f"tg:{BOB.id}", stored.game_id, 10**10)
            assert await what_became(http, bob, asked) == {"ok": True, "answer": None}
            # ids no 202 gives are refused, as a forged move is
            for forged in ({"entry": "1-x", "update": asked["update"]}, {"entry": asked["entry"]}):
                refused = await http.get("/api/relayed", params=forged, headers=bearer(link))
                assert refused.status == 400
                assert (await refused.json())["error"] == "not a move"
            await bot.idle()
            assert not bot.real_errors()


async def two_tabs_bid(
    http: TestClient[web.Request, web.Application], link: str
) -> list[tuple[dict[str, str], Any]]:
    """Ann's bid from one tab of her page, then another from a second: under hidden bids, Bob yet
    to bid, the same decision by the web worker's read. Each is handed over (202): what its
    page asks `/api/relayed` with, and what it is told."""
    bids = (await (await http.get("/api/view", headers=bearer(link))).json())["bids"]
    told = []
    for bid in bids[:2]:
        made = await http.post("/api/move", json={"payload": bid["payload"]}, headers=bearer(link))
        assert made.status == 202
        handed = await made.json()
        asked = {"entry": handed["entry"], "update": handed["update"]}
        told.append((asked, await what_became(http, link, asked)))
    return told


@contextlib.asynccontextmanager
async def relay_alone(redis_url: str) -> AsyncIterator["aioredis.Redis"]:
    """A Redis client of a user (an ACL) that may read every key but write only the relay's
    stream and readers of `tg`: Redis refuses its notes of refusals (`Relay.refuse`)."""
    admin = aioredis.Redis.from_url(redis_url)
    allowed = [f"~{keys.relay('tg')}", f"~{keys.readers('tg')}", "%R~*"]
    await admin.execute_command("ACL", "SETUSER", "relay-alone", "on", "nopass", "+@all", *allowed)
    client = aioredis.Redis.from_url(redis_url, username="relay-alone", password="-")
    try:
        yield client
    finally:
        await client.aclose()
        await admin.execute_command("ACL", "DELUSER", "relay-alone")
        await admin.aclose()


async def test_a_refusal_redis_would_not_note_is_said_as_a_move_not_made(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """As above, the chat's worker refuses the second tab's bid, but Redis refuses the write of
    its note (the worker's relay client may write the relay's stream and readers alone). The
    page is told all the same that the move was not made: the entry was acknowledged with no
    note, and no write was made by its update id (the service marks an update id by the write
    that makes its move). The first bid, made, is answered `ok`. The second was answered `ok`
    too, and the page took it for made."""
    async with (
        running(redis_url) as bot,
        web_worker(redis_url) as (_, http),
        relay_alone(redis_url) as client,
    ):
        front = bot.front
        async with relaying(front.service, front.show_async, "tg", client, 1.0):
            link = await telegram_game(bot, (ANN, BOB), 1, "bids=hidden")
            (_, made), (_, refused) = await two_tabs_bid(http, link)
        assert made == {"ok": True, "answer": None}
        assert refused == {"ok": False, "answer": "Your move was not made: look at the table."}
        assert "the refusal of a relayed request cannot be noted" in caplog.text


async def test_a_move_too_old_to_apply_is_said_on_the_page(redis_url: str) -> None:
    """An entry more than a minute old when a worker reads it (no worker of the scope ran
    meanwhile) is dropped, and its page is told so, in the person's language where the app
    gives one (else the chat's), as a refusal is: the move was not made, try again. It was
    told nothing: `/api/relayed` answered `ok`, and the page took the move for made."""
    async with running(redis_url) as bot, web_worker(redis_url) as (_, http):
        link = await ann_and_two_ai(bot)
        payload = await a_move(http, link)
        relay = Relay(bot.client)
        await relay.join("tg")
        seconds, _ = await bot.client.time()  # entries are dated by the Redis server's clock
        asked = []
        for n, language in enumerate((None, "de")):
            update = f"web{n:016x}"
            handed = Relayed(CHAT, PLAYER, "Ann", language, Kind.BUTTON.value, payload, update)
            entry = f"{(seconds - 61) * 1000}-{n}"
            await bot.client.xadd(keys.relay("tg"), handed.fields(), id=entry)
            asked.append({"entry": entry, "update": update})
        assert len(await relay.read("tg", "dead", 10, None)) == 2  # given, as a 202 says
        version = (await raw(bot.client, CHAT))[0]
        async with consuming(bot):  # taken over from "dead", and dropped
            answers = [await what_became(http, link, one) for one in asked]
        assert answers == [
            {"ok": False, "answer": TOO_LATE_EN},
            {"ok": False, "answer": TOO_LATE_DE},
        ]
        assert (await raw(bot.client, CHAT))[0] == version
        assert not await pending(bot.client)


async def test_a_move_held_past_the_relays_lifetime_is_said_not_made(redis_url: str) -> None:
    """An entry held unacknowledged more than a minute and the claim time after it was added
    (its holder died, and no worker of the scope, nor the web worker that handed it over, was
    left to take it over) is pending no more: whoever takes it over now drops it as too old, so
    the page is told it was not made. It was answered `ok`."""
    async with running(redis_url) as bot, web_worker(redis_url, answered=0.1) as (_, http):
        link = await ann_and_two_ai(bot)
        payload = await a_move(http, link)
        relay = Relay(bot.client)
        await relay.join("tg")
        seconds, _ = await bot.client.time()
        asked = {"entry": f"{(seconds - 66) * 1000}-0", "update": f"web{0:016x}"}
        handed = Relayed(CHAT, PLAYER, "Ann", None, Kind.BUTTON.value, payload, asked["update"])
        await bot.client.xadd(keys.relay("tg"), handed.fields(), id=asked["entry"])
        assert len(await relay.read("tg", "dead", 10, None)) == 1
        assert await what_became(http, link, asked) == {"ok": False, "answer": TOO_LATE_EN}
        assert await pending(bot.client) == 1


async def test_an_entry_a_dead_consumer_held_is_taken_over_and_applied_once(
    redis_url: str,
) -> None:
    async with running(redis_url) as bot, web_worker(redis_url) as (_, http):
        relay = Relay(bot.client)
        link = await ann_and_two_ai(bot)
        payload = await a_move(http, link)
        await relay.join("tg")
        # a worker was given the entry and died before applying it
        first = Relayed(CHAT, PLAYER, "Ann", None, Kind.BUTTON.value, payload, "web1")
        await relay.add("tg", first)
        assert [e.update for e in await relay.read("tg", "dead", 10, None)] == ["web1"]
        group = bot.table().text
        async with consuming(bot):
            await until(lambda: bot.table().text != group, "the taken-over move is shown")
            await until_acked(bot.client)
        version = (await raw(bot.client, CHAT))[0]
        # the same entry again, held by a consumer that applied it and died before
        # acknowledging it: its update id was applied, so nothing changes
        again = Relayed(CHAT, PLAYER, "Ann", None, Kind.BUTTON.value, payload, "web1")
        await relay.add("tg", again)
        assert len(await relay.read("tg", "dead too", 10, None)) == 1
        async with consuming(bot):
            await asyncio.sleep(0.2)
            assert await pending(bot.client) == 1  # not before the claim time
            await until_acked(bot.client)
        assert (await raw(bot.client, CHAT))[0] == version
        await bot.idle()
        assert not bot.real_errors()


async def test_a_move_made_while_the_only_reader_lies_dead_is_applied_by_the_web_worker(
    redis_url: str,
) -> None:
    """The only worker of `tg` was killed a moment ago (SIGKILL: it never left the readers), so
    the relay still looks live. The web worker hands the move over, sees no consumer take it
    within the wait, takes it back and applies it itself (200, `"relayed": false`) with the
    entry's update id; nothing is left in the stream for a later worker, and the chat is shown
    again from the web worker's journal by the worker of `tg` that runs."""
    async with running(redis_url) as bot, web_worker(redis_url, handover=0.3) as (page, http):
        link = await ann_and_two_ai(bot)
        payload = await a_move(http, link)
        relay = Relay(bot.client)
        await relay.join("tg")
        await relay.present("tg", "dead", FORGET)  # the state right after a SIGKILL
        assert await relay.live("tg", LIVE)
        version = (await raw(bot.client, CHAT))[0]
        group = bot.table().text
        await applied_here(http, link, payload, version)
        assert (await raw(bot.client, CHAT))[0] > version
        assert await bot.client.xlen(keys.relay("tg")) == 0  # no consumer will be given it
        marked = [key async for key in bot.client.scan_iter(f"wiz:{{{CHAT}}}:u:web*")]
        assert len(marked) == 1
        assert await bot.client.zscore(keys.beats("tg"), page.service.worker) is not None
        await until(lambda: bot.table().text != group, "the chat is shown again")


class LateReader(Relay):
    """A relay on which a consumer ("late") reads the stream just before the web worker would
    take its entry back: a consumer and the fallback at the same moment."""

    async def withdraw(self, scope: str, entry: str) -> bool:
        assert [e.entry for e in await self.read(scope, "late", 10, None)] == [entry]
        return await super().withdraw(scope, entry)


class Handed(NamedTuple):
    """A move handed over (`handed_to_late`): the relay, Ann's link, the move's payload, the
    chat's version before it, and what the page asks `/api/relayed` about it with."""

    relay: Relay
    link: str
    payload: str
    version: int
    asked: dict[str, str]


async def handed_to_late(bot: Bot, http: TestClient[web.Request, web.Application]) -> Handed:
    """Ann's move posted from the page of a web worker with a `LateReader`, the relay of `tg`
    joined and a worker of it marked present (as right after a SIGKILL): answered 202, "late"
    has it."""
    link = await ann_and_two_ai(bot)
    payload = await a_move(http, link)
    relay = Relay(bot.client)
    await relay.join("tg")
    await relay.present("tg", "dead", FORGET)
    version = (await raw(bot.client, CHAT))[0]
    answer = await http.post("/api/move", json={"payload": payload}, headers=bearer(link))
    assert answer.status == 202
    said = await answer.json()
    return Handed(relay, link, payload, version, {k: said[k] for k in ("entry", "update")})


async def test_a_move_a_consumer_takes_at_the_last_moment_is_left_to_it(redis_url: str) -> None:
    async with (
        running(redis_url) as bot,
        web_worker(redis_url, LateReader, handover=0.1) as (page, http),
    ):
        version = (await handed_to_late(bot, http)).version
        # the consumer has it: the web worker applies nothing
        assert (await raw(bot.client, CHAT))[0] == version
        assert not await bot.client.exists(keys.journal("tg", page.service.worker))
        assert await pending(bot.client) == 1
        group = bot.table().text
        async with consuming(bot):  # "late" died holding it: it is taken over and applied
            await until(lambda: bot.table().text != group, "the taken-over move is shown")
            await until_acked(bot.client)


async def test_a_move_held_longer_than_its_page_asks_is_said_once_a_worker_answers(
    redis_url: str,
) -> None:
    """Ann's bid is taken by a consumer ("late") that holds it longer than `/api/relayed` waits
    (busy, or killed: another takes it over after the claim time). Asked meanwhile, the web
    worker answers that the move is still pending, and the page asks again; once a worker took
    it over and refused it (her bid was made in the chat meanwhile), the answer is the refusal.
    It answered `ok` once its 4 s were up, the move still held, and the page said nothing."""
    async with (
        running(redis_url) as bot,
        web_worker(redis_url, LateReader, handover=0.1, answered=0.5) as (_, http),
    ):
        handed = await handed_to_late(bot, http)
        asked = await what_became(http, handed.link, handed.asked)
        assert asked == {"ok": True, "answer": None, "pending": True}
        assert await pending(bot.client) == 1
        made = await bot.front.service.handle(
            CHAT, User(PLAYER, "Ann"), Request(Kind.BUTTON, handed.payload)
        )
        assert not made.alert
        async with consuming(bot):  # "late" died holding it: it is taken over, and refused
            asked = await what_became(http, handed.link, handed.asked)
            assert asked == {"ok": False, "answer": "This button is out of date."}


async def test_a_move_a_killed_consumer_held_with_no_worker_left_is_applied_by_the_web_worker(
    redis_url: str,
) -> None:
    """The only worker of `tg` ("late") took the move (202) and was killed before applying it:
    no worker of the scope reads the relay any more, so none would take it over. Once the
    readers show none (3 s after the last read), the web worker takes the entry over itself and
    applies it, once, by its update id: it holds and acknowledges it, the write is in its
    journal, and the chat is shown again by the next worker of `tg`. (No chat worker runs in
    between: nobody else could have applied it.)"""
    async with (
        running(redis_url) as bot,
        web_worker(redis_url, LateReader, handover=0.1) as (page, http),
    ):
        relay, _, payload, version, _ = await handed_to_late(bot, http)  # "late" dies with it
        assert await pending(bot.client) == 1
        await until_acked(bot.client, timeout=30.0)
        assert (await raw(bot.client, CHAT))[0] > version
        marked = [key async for key in bot.client.scan_iter(f"wiz:{{{CHAT}}}:u:web*")]
        assert len(marked) == 1
        worker = page.service.worker
        held = {
            consumer["name"].decode(): consumer
            for consumer in await bot.client.xinfo_consumers(keys.relay("tg"), RELAY_GROUP)
        }
        assert set(held) == {"late", worker}  # the web worker took it over from "late"
        assert await bot.client.zrangebyscore(keys.journal("tg", worker), "-inf", "+inf")
        assert await bot.client.zscore(keys.beats("tg"), worker) is not None
        # taken over again (its holder died before acknowledging it): nothing changes twice
        version = (await raw(bot.client, CHAT))[0]
        again = await relay.add(
            "tg",
            Relayed(
                CHAT,
                PLAYER,
                "Ann",
                None,
                Kind.BUTTON.value,
                payload,
                marked[0].decode().rpartition(":u:")[2],
            ),
        )
        assert [e.entry for e in await relay.read("tg", "late", 10, None)] == [again]
        watch = asyncio.create_task(page._watch(relay, "tg", again))
        await until_acked(bot.client, timeout=30.0)
        await watch
        assert (await raw(bot.client, CHAT))[0] == version


async def test_an_entry_is_given_to_a_consumer_or_withdrawn_never_both(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    try:
        relay = Relay(client)
        stream = keys.relay("tg")

        def request(update: str) -> Relayed:
            return Relayed(CHAT, PLAYER, "Ann", None, Kind.BUTTON.value, "x", update)

        assert await relay.withdraw("tg", "1-0")  # no stream, no group: nobody has it
        await relay.join("tg")
        # ids are compared as numbers, the sequence within a millisecond too
        for entry in ("9-5", "9-6", "10-0"):
            await client.xadd(stream, request(entry).fields(), id=entry)
        assert [e.entry for e in await relay.read("tg", "c", 1, None)] == ["9-5"]
        assert [await relay.given("tg", e) for e in ("9-5", "9-6", "10-0")] == [True, False, False]
        assert [e.entry for e in await relay.read("tg", "c", 1, None)] == ["9-6"]
        assert [await relay.given("tg", e) for e in ("9-5", "9-6", "10-0")] == [True, True, False]
        await relay.ack("tg", "9-5")
        assert not await relay.withdraw("tg", "9-5")  # acknowledged: it was given
        assert not await relay.withdraw("tg", "9-6")  # held, not acknowledged: given too
        assert await client.xlen(stream) == 3  # neither is deleted
        assert await relay.withdraw("tg", "10-0")
        assert await client.xlen(stream) == 2
        assert await relay.read("tg", "c", 10, None) == []  # withdrawn: nobody is given it
        # a consumer reading as the entry is taken back: one of the two has it, every time
        for n in range(50):
            entry = await relay.add("tg", request(f"race{n}"))
            read, withdrawn = await asyncio.gather(
                relay.read("tg", "c", 10, None), relay.withdraw("tg", entry)
            )
            assert [e.entry for e in read] == ([] if withdrawn else [entry])
    finally:
        await client.aclose()


async def test_a_chat_worker_whose_clock_is_ahead_applies_a_move_handed_over(
    redis_url: str,
) -> None:
    """A consumer drops an entry more than a minute old (`MAX_AGE`), by the entry's time, the
    Redis server's clock. It compared that with its system clock: a chat worker whose clock was
    a minute or more ahead of Redis's dropped every move made on a web-only worker's pages as
    too old (answered 202, never made). It goes by its service's clock, Redis's, as the rest of
    the worker does (`bot.clock`). Here Redis's clock is an hour behind the machine's: the
    service goes by it, and the entry is dated by it."""
    client = aioredis.Redis.from_url(redis_url)
    shown: list[Outcome] = []

    async def show(chat: str, outcome: Outcome) -> None:
        shown.append(outcome)

    def redis_clock() -> float:
        return time.time() - 3600

    try:
        behind = GameService.on_redis(client, CONFIG, clock=redis_clock)
        chat = "tg:-4242"
        driver = Driver(behind, [service_helpers.ANN], chat=chat, seed=1)
        await driver.lobby(["rounds=short"], ai=2)
        user, payload = driver.choices()[0]
        version = (await raw(client, chat))[0]
        async with relaying(behind, show, "tg", client, 1.0):
            handed = Relayed(chat, user.id, user.name, None, Kind.BUTTON.value, payload, "web1")
            dated = f"{int(redis_clock() * 1000)}-0"  # as Redis dates an entry (`Relayed.added`)
            await client.xadd(keys.relay("tg"), handed.fields(), id=dated)
            async with asyncio.timeout(5):  # given to the consumer ...
                while not await Relay(client).given("tg", dated):
                    await asyncio.sleep(0.05)
            await until_acked(client)  # ... and applied, or dropped
        assert (await raw(client, chat))[0] > version, "the move was dropped as too old"
        assert shown
    finally:
        await client.aclose()


def consuming(bot: Bot) -> contextlib.AbstractAsyncContextManager[None]:
    """The relay loop of the bot's worker (reads wait 0.2 s), taking over entries
    unacknowledged for 0.5 s."""
    front = bot.front
    return relaying(front.service, front.show_async, "tg", bot.client, 0.4, claim=0.5)


async def until_acked(client: "aioredis.Redis", timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while await pending(client):
            await asyncio.sleep(0.05)


async def test_with_no_live_worker_of_the_scope_the_web_worker_applies_the_move_itself(
    redis_url: str,
) -> None:
    async with running(redis_url) as bot:
        async with web_worker(redis_url) as (page, http):
            link = await ann_and_two_ai(bot)
            payload = await a_move(http, link)
            await bot.front.stop()  # the only worker of `tg` stops (and reads no relay)
            version = (await raw(bot.client, CHAT))[0]
            await applied_here(http, link, payload, version)
            assert not await bot.client.exists(keys.relay("tg"))
            # the web worker is named in the scope's heartbeats and never beats: the next
            # worker of `tg` takes its journal over and shows the chat where it is behind
            worker = page.service.worker
            assert await bot.client.zscore(keys.beats("tg"), worker) is not None
            assert await bot.client.zrangebyscore(keys.journal("tg", worker), "-inf", "+inf")
        group = bot.table().text
        await bot.restart()
        # its beat is at its last write (an AI move it drove, maybe): it is gone a LEASE later
        async with asyncio.timeout(10):
            while await bot.client.zscore(keys.beats("tg"), worker) is not None:
                await asyncio.sleep(0.05)
        assert not await bot.client.exists(keys.journal("tg", worker))
        await until(lambda: bot.table().text != group, "the chat is shown again")


async def test_a_process_may_run_the_web_table_alone(redis_url: str) -> None:
    """`python -m adapters.serve web`: with a bot token configured, only the web table runs
    (the token is not even tried: this one names no Telegram that answers)."""
    port = free_port()
    config = Config(
        telegram=TelegramConfig(token="123:abc", base_url="http://127.0.0.1:9"),
        web=WebConfig(listen=f"127.0.0.1:{port}", secret="s3cret"),
    )
    stop = asyncio.Event()
    run = asyncio.create_task(serve(config, redis_url, stop, parts=("web",)))
    try:
        async with ClientSession() as session, asyncio.timeout(10):
            while True:
                with contextlib.suppress(ClientConnectionError):
                    async with session.get(f"http://127.0.0.1:{port}/api/view") as answer:
                        assert answer.status == 401
                        break
                await asyncio.sleep(0.02)
        assert not run.done()
    finally:
        stop.set()
    assert await asyncio.wait_for(run, 10) == 0
    assert serve_main(["bogus"]) == 2  # a usage error, as argparse exits


async def test_the_relay_on_a_redis_cluster(tmp_path: Path) -> None:
    """A move handed over and applied through the relay of a real Redis Cluster (3 masters, a
    replica each): the stream, its group and its readers in one slot of their own. Before it, a
    move handed over while the only reader lies dead, taken back and applied by the web
    worker."""
    servers = Cluster(tmp_path / "cluster")
    servers.start()
    try:
        client = redis_client(servers.url, 2.0, cluster=True)
        assert isinstance(client, aioredis.RedisCluster)
        await client.initialize()
        try:
            chat, ann = "tg:-100", service_helpers.ANN
            worker = GameService.on_redis(client, CONFIG)  # the chat's front end's worker
            driver = Driver(worker, [ann], chat=chat)
            await driver.lobby(["rounds=short"], ai=2)
            stored = await table_of(client, chat)  # type: ignore[arg-type]
            assert stored is not None
            link = auth.sign_link(b"s3cret", chat, ann.id, stored.game_id, time.time() + 600)
            shown: list[Outcome] = []

            async def show(_: str, outcome: Outcome) -> None:
                shown.append(outcome)

            async def version() -> int:
                return (await raw(client, chat))[0]  # type: ignore[arg-type]

            web_service = GameService.on_redis(client, CONFIG)
            relay = Relay(client)
            page = WebTable(web_service, CONFIG, client, deliver=Shows(), relay=relay, handover=0.3)
            async with TestClient(TestServer(page.app())) as http:
                await relay.present("tg", "dead", FORGET)  # killed: the relay looks live
                before = await version()
                answer = await http.post(
                    "/api/move", json={"payload": await a_move(http, link)}, headers=bearer(link)
                )
                assert answer.status == 200
                assert not (await answer.json())["relayed"]
                assert await version() > before
                assert await client.xlen(keys.relay("tg")) == 0
                await relay.leave("tg", "dead")
                async with relaying(worker, show, "tg", client, 1.0):
                    async with asyncio.timeout(5):
                        while not await relay.live("tg", 3.0):
                            await asyncio.sleep(0.05)
                    before = await version()
                    answer = await http.post(
                        "/api/move",
                        json={"payload": await a_move(http, link)},
                        headers=bearer(link),
                    )
                    assert answer.status == 202
                    await until(lambda: bool(shown), "the worker shows the relayed move")
                    assert await version() > before
                    assert any(m.to == ann.id for m in shown[0].messages)
                    await until_acked(client)  # type: ignore[arg-type]
        finally:
            await client.aclose()
    finally:
        servers.stop()


async def test_a_move_relayed_to_a_discord_worker_shows_in_its_channel_and_the_dm(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same relay for Discord's scope (`dc`): the channel's table and the player's DM."""
    async with discord_running(redis_url, monkeypatch) as bot, web_worker(redis_url) as (_, http):
        (ann,) = people(bot, "Ann")
        await discord_seat(bot, [ann])
        for _ in range(2):
            await bot.command(ann, "addbot")
        await bot.command(ann, "start")
        chat, player = f"dc:{bot.channel}", f"dc:{ann.id}"
        stored = await table_of(bot.client, chat)
        assert stored is not None
        link = auth.sign_link(b"s3cret", chat, player, stored.game_id, time.time() + 600)
        front = bot.front
        async with relaying(front.service, front.show, "dc", bot.client, 1.0):
            async with asyncio.timeout(5):
                while not await Relay(bot.client).live("dc", 3.0):
                    await asyncio.sleep(0.05)
            channel = bot.table().content
            before = bot.hand(ann)
            assert before is not None
            hand = before.content
            answer = await http.post(
                "/api/move", json={"payload": await a_move(http, link)}, headers=bearer(link)
            )
            assert answer.status == 202
            await until(lambda: bot.table().content != channel, "the channel's table shows it")
            await until(lambda: shown_hand(bot, ann) != hand, "Ann's hand in her DM shows it")
            await bot.idle()
            assert not bot.fake.errors


def shown_hand(bot: DiscordBot, user: Person) -> str:
    hand = bot.hand(user)
    return "" if hand is None else hand.content


class SwallowingRelay(Relay):
    """A relay whose read, cancelled, returns nothing instead of raising. redis-py 8.1 can do that
    itself: cancelled just after sending a blocking XREADGROUP, the call returned no entries and
    left the task cancelling. The catch keeps the test true where the call raises."""

    def __init__(self, client: "aioredis.Redis") -> None:
        super().__init__(client)
        self.reading = asyncio.Event()
        self.let_pass = 0

    async def read(
        self, scope: str, consumer: str, count: int, block: float | None
    ) -> list[Relayed]:
        self.reading.set()
        task = asyncio.current_task()
        try:
            found = await super().read(scope, consumer, count, block)
        except asyncio.CancelledError:
            found = []
        if task is not None and task.cancelling():
            self.let_pass += 1
        return found


async def test_the_relay_loop_stops_when_a_read_lets_its_cancel_pass(redis_url: str) -> None:
    async with running(redis_url) as bot:
        relay = SwallowingRelay(bot.client)
        front = bot.front
        loop = asyncio.create_task(
            relay_loop(front.service, front.show_async, "tg", relay, block=0.3)
        )
        async with asyncio.timeout(5):
            await relay.reading.wait()
        loop.cancel()  # inside a blocking read
        done, _ = await asyncio.wait({loop}, timeout=3)
        assert relay.let_pass == 1
        assert done == {loop}
        assert loop.cancelled()

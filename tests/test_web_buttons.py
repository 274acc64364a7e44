"""The chats' "Open the table" buttons: with `web.public_url` set, each player's private hand
message carries one (on Telegram a Mini App where the address is https, else a link signed for
that player and game; on Discord a link button, in the DM or the hand shown to one alone), the
link opens that player's own seat at the web table and no other, and the group's table shows
no personal link. Without `web.public_url` nothing changes (the golden transcripts say so)."""

import contextlib
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import redis.asyncio as aioredis
import test_discord as dc
import test_telegram as tg
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from fake_discord import FakeDiscord, Stored
from fake_telegram import FakeTelegram, MessageView
from service_helpers import table_of
from telegram.ext import AIORateLimiter

from adapters.discord.app import DiscordFrontEnd
from adapters.discord.render import post as discord_post
from adapters.outbox import FAST
from adapters.telegram.app import TelegramFrontEnd
from adapters.telegram.render import Key
from adapters.telegram.render import post as telegram_post
from adapters.web import auth
from adapters.web.auth import AuthError
from adapters.web.server import WebTable
from bot import Button, GameService, Message, WebLinks
from bot.config import Config, DiscordConfig, TelegramConfig, WebConfig
from bot.store import Store
from bot.table import Settings

SECRET = "s3cret"
LABEL = "Open the table"
HTTPS = "https://wizard.example/table"
HTTP = "http://wizard.example:8080"


def web_config(public_url: str, **platform: Any) -> Config:
    return Config(web=WebConfig(public_url=public_url, secret=SECRET), **platform)


def token_of(url: str, public_url: str) -> str:
    """The link token of a signed link to the page at `public_url`."""
    page, _, token = url.partition("#link=")
    assert page == public_url.rstrip("/") + "/", url
    assert token, url
    return token


def names(token: str) -> tuple[str, str, str | None]:
    """The player, chat and game a link token is good for (checked as the web table does)."""
    viewer = auth.check_link(SECRET.encode(), token, time.time())
    return viewer.player, viewer.chat, viewer.game


async def seat_views(
    service: GameService, config: Config, client: "aioredis.Redis", links: dict[str, str]
) -> dict[str, str]:
    """Whose seat each link (by person) opens at the web table: the seat's name."""
    table = WebTable(service, config, client)
    seen = {}
    async with TestClient(TestServer(table.app())) as page:
        for person, token in links.items():
            answer = await page.get("/api/view", headers={"Authorization": f"Bearer {token}"})
            assert answer.status == 200, await answer.text()
            view = await answer.json()
            seen[person] = view["seats"][view["you"]]["name"]
    return seen


# --- the rendering alone ------------------------------------------------------------------------


HAND = Message("Your hand", to="tg:7", slot="hand", open_table=LABEL)


def test_no_public_url_no_button() -> None:
    assert WebLinks.of(Config()) is None
    shown = telegram_post("tg:-100", HAND, ("g1", 3), links=None)
    assert shown is not None
    assert shown.keys == ()


def test_a_telegram_hand_gets_a_mini_app_on_https_and_a_signed_link_otherwise() -> None:
    secure = WebLinks.of(web_config(HTTPS))
    shown = telegram_post("tg:-100", HAND, ("g1", 3), links=secure)
    assert shown is not None
    assert shown.keys == ((Key(LABEL, web_app=f"{HTTPS}/?chat=tg:-100"),),)
    plain = WebLinks.of(web_config(HTTP), clock=lambda: 1000.0)
    shown = telegram_post("tg:-100", HAND, ("g1", 3), links=plain)
    assert shown is not None
    (key,) = shown.keys[-1]
    assert key.web_app is None
    assert key.url is not None
    viewer = auth.check_link(SECRET.encode(), token_of(key.url, HTTP), 1001.0)
    assert (viewer.player, viewer.chat, viewer.game) == ("tg:7", "tg:-100", "g1")
    with pytest.raises(AuthError):  # signed for web.link_ttl (a day) from when it was made
        auth.check_link(SECRET.encode(), token_of(key.url, HTTP), 1000.0 + 24 * 3600)
    # The group's messages, and a hand without the label (a game's end), get none.
    for message in (Message("table", open_table=LABEL), Message("end", to="tg:7", slot="hand")):
        shown = telegram_post("tg:-100", message, ("g1", 3), links=secure)
        assert shown is not None
        assert shown.keys == ()


def test_a_discord_hand_gets_a_link_button_after_a_full_grid() -> None:
    links = WebLinks.of(web_config(HTTPS))
    bids = tuple(Button(str(bid), f"g1.b{bid}") for bid in range(21))  # the most a hand has
    hand = Message("Your bid?", to="dc:7", slot="hand", buttons=(bids,), open_table=LABEL)
    shown = discord_post("dc:100", hand, ("g1", 3), links=links)
    assert shown is not None
    keys = [key for row in shown.keys for key in row]
    assert len(shown.keys) <= 5
    assert all(len(row) <= 5 for row in shown.keys)
    assert len(keys) == 22
    assert keys[-1].label == LABEL
    assert keys[-1].custom_id == ""
    assert keys[-1].url is not None
    viewer = auth.check_link(SECRET.encode(), token_of(keys[-1].url, HTTPS), time.time())
    assert (viewer.player, viewer.chat, viewer.game) == ("dc:7", "dc:100", "g1")


# --- Telegram, end to end -----------------------------------------------------------------------


@contextlib.asynccontextmanager
async def telegram(redis_url: str, public_url: str) -> AsyncIterator[tg.Bot]:
    """The Telegram front end with a web table at `public_url`, in the group of test_telegram."""
    async with FakeTelegram() as fake:
        fake.add_group(tg.GROUP, "Wizards", members=list(tg.PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        base = f"http://127.0.0.1:{fake.port}"
        config = web_config(public_url, telegram=TelegramConfig(token=fake.token, base_url=base))
        service = GameService(Store(client, Settings()), config, rng=random.Random(11))
        limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
        front = TelegramFrontEnd(
            config,
            service,
            client,
            limits=FAST,
            rate_limiter=limiter,
            timer_interval=0.2,
            poll_timeout=1,
        )
        bot = tg.Bot(fake, front, client)
        await front.start()
        try:
            yield bot
        finally:
            await bot.front.stop()
            await client.aclose()


def table_button(hand: MessageView) -> Any:
    """The hand message's "Open the table" button: the last row, alone."""
    *_, last = hand.keyboard
    (button,) = last
    assert button.text == LABEL
    return button


def no_table_links(bot: tg.Bot) -> None:
    """Nothing the group ever showed opens the web table (nor any personal link)."""
    for event in bot.fake.transcript(tg.GROUP):
        for row in event.keyboard:
            for button in row:
                assert button.web_app is None, event.text
                assert button.text != LABEL, event.text
                assert "wizard.example" not in (button.url or ""), event.text


async def test_telegram_hands_open_the_table_as_a_mini_app(redis_url: str) -> None:
    async with telegram(redis_url, HTTPS) as bot:
        await tg.seat(bot)
        await bot.press_label(tg.GROUP, tg.BOB, bot.lobby().message_id, "Start")
        for user in tg.PLAYERS:
            button = table_button(bot.hand(user))
            assert button.web_app == f"{HTTPS}/?chat=tg:{tg.GROUP}"
            assert button.url is None
            assert button.callback_data is None
        await tg.play_on(bot)  # every hand message, sent and edited, with its Mini App
        no_table_links(bot)
        assert bot.real_errors() == []
        for user in tg.PLAYERS:  # each person's own end of the game has none
            *_, result = bot.fake.current_messages(user.id).values()
            assert "Your place" in result.text
            assert result.labels == [["Play again"]]


async def test_telegram_hands_open_the_table_by_a_signed_link(redis_url: str) -> None:
    async with telegram(redis_url, HTTP) as bot:
        await tg.seat(bot)
        await bot.press_label(tg.GROUP, tg.BOB, bot.lobby().message_id, "Start")
        for _ in range(4):
            await tg.move(bot)
        chat = f"tg:{tg.GROUP}"
        stored = await table_of(bot.client, chat)
        assert stored is not None
        links = {}
        for user in tg.PLAYERS:
            button = table_button(bot.hand(user))
            assert button.web_app is None
            assert button.url is not None
            token = token_of(button.url, HTTP)
            assert names(token) == (f"tg:{user.id}", chat, stored.game_id)
            links[user.first_name] = token
        assert len(set(links.values())) == 3
        # Each link opens its own player's seat at the web table, and no other.
        front = bot.front
        seen = await seat_views(front.service, front.config, bot.client, links)
        assert seen == {"Ann": "Ann", "Bob": "Bob Brown", "Cid": "Cid"}
        no_table_links(bot)
        assert bot.real_errors() == []


# --- Discord, end to end ------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def discord_bot(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[dc.Bot]:
    """The Discord front end with a web table at HTTPS (a link button all the same)."""
    async with FakeDiscord() as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.base_url)
        client = aioredis.Redis.from_url(redis_url)
        config = web_config(HTTPS, discord=DiscordConfig(token=fake.token, base_url=fake.base_url))
        service = GameService(Store(client, Settings()), config, rng=random.Random(11))
        front = DiscordFrontEnd(config, service, client, limits=FAST, timer_interval=0.2)
        bot = dc.Bot(fake, front, client)
        await front.start(connect=False)
        try:
            yield bot
        finally:
            await bot.front.stop()
            await client.aclose()


def hand_link(message: Stored | None) -> str:
    assert message is not None
    links = message.links()
    assert list(links) == [LABEL], message.labels()
    return token_of(links[LABEL], HTTPS)


async def test_discord_hands_have_a_link_button_in_dms_and_shown_to_one_alone(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with discord_bot(redis_url, monkeypatch) as bot:
        ann, bob, cid = dc.people(bot, "Ann", "Bob", "Cid", closed=("Cid",))
        await dc.seat(bot, [ann, bob, cid])
        await bot.command(ann, "start")
        await bot.command(cid, "hand")  # Cid's DMs are closed: the hand is shown to him alone
        chat = f"dc:{bot.channel}"
        stored = await table_of(bot.client, chat)
        assert stored is not None
        links = {}
        for user in (ann, bob, cid):
            token = hand_link(bot.hand(user))
            assert names(token) == (f"dc:{user.id}", chat, stored.game_id)
            links[user.name] = token
        seen = await seat_views(bot.front.service, bot.front.config, bot.client, links)
        assert seen == {"Ann": "Ann", "Bob": "Bob", "Cid": "Cid"}
        await dc.play_on(bot)
        # The channel's messages (the table, the notices for Cid) carry no link.
        for message in bot.fake.shown(bot.channel):
            assert message.links() == {}, message.content
        assert bot.fake.errors[1:] == []
        assert bot.fake.errors[0][1] == 50007  # Cid's DM, once
        assert bot.fake.late == []


async def test_the_web_table_still_checks_a_hand_link_against_its_game(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand's link is for that game: once a new game starts in the chat it opens nothing."""
    async with discord_bot(redis_url, monkeypatch) as bot:
        players = dc.people(bot, "Ann", "Bob", "Cid")
        ann = players[0]
        await dc.seat(bot, players)
        await bot.command(ann, "start")
        token = hand_link(bot.hand(ann))
        await bot.command(ann, "cancel")
        await dc.seat(bot, players)
        await bot.command(ann, "start")
        table = WebTable(bot.front.service, bot.front.config, bot.client)
        async with TestClient[web.Request, web.Application](TestServer(table.app())) as page:
            answer = await page.get("/api/view", headers={"Authorization": f"Bearer {token}"})
            assert answer.status == 403
            fresh = hand_link(bot.hand(ann))
            answer = await page.get("/api/view", headers={"Authorization": f"Bearer {fresh}"})
            assert answer.status == 200

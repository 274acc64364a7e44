"""`wizard-bot run` with a Discord token: the Discord front end as it runs in production, through
the gateway (the fake's websocket) and its REST calls, alone, sharded, or beside the Telegram
front end in one process; and a token Discord refuses."""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import discord
import pytest
import yarl
from fake_discord import FakeDiscord
from fake_telegram import FakeTelegram

from adapters.serve import serve
from bot.config import Config, DiscordConfig, TelegramConfig


@contextlib.asynccontextmanager
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.base_url)
        gateway = yarl.URL(fake.gateway_url)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", gateway)
        yield fake


async def join_through_the_gateway(fake: FakeDiscord) -> None:
    ann = fake.add_user("Ann")
    payload = fake.command(fake.channel, ann, "join")
    await fake.dispatch("INTERACTION_CREATE", payload)
    await fake.wait_answered(int(payload["id"]), timeout=10)
    for _ in range(200):
        if any("a new table" in m.content for m in fake.shown(fake.channel)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no lobby was posted")


async def test_run_serves_discord_through_the_gateway(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with fake_discord(monkeypatch) as fake:
        stop = asyncio.Event()
        config = Config(discord=DiscordConfig(token=fake.token, base_url=fake.base_url))
        run = asyncio.create_task(serve(config, redis_url, stop))
        await fake.wait_identified()
        assert fake.identified[0]["intents"] == discord.Intents(guilds=True).value
        assert "shard" not in fake.identified[0]
        assert {c["name"] for c in fake.commands} >= {"join", "start", "hand"}
        await join_through_the_gateway(fake)
        stop.set()
        assert await asyncio.wait_for(run, 15) == 0


async def test_run_sharded(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with fake_discord(monkeypatch) as fake:
        # AutoShardedClient: the shard count from GET /gateway/bot (one here: discord.py waits
        # five seconds between two shards' identifies), each shard named in its IDENTIFY
        fake.shards = 1
        stop = asyncio.Event()
        config = Config(
            discord=DiscordConfig(token=fake.token, shards=True, base_url=fake.base_url)
        )
        run = asyncio.create_task(serve(config, redis_url, stop))
        await fake.wait_identified()
        assert [i.get("shard") for i in fake.identified] == [[0, 1]]
        assert fake.calls["GET /gateway/bot"] == 1
        await join_through_the_gateway(fake)
        stop.set()
        assert await asyncio.wait_for(run, 15) == 0


async def test_run_serves_telegram_and_discord_in_one_process(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with fake_discord(monkeypatch) as fake, FakeTelegram() as telegram:
        stop = asyncio.Event()
        config = Config(
            discord=DiscordConfig(token=fake.token, base_url=fake.base_url),
            telegram=TelegramConfig(
                token=telegram.token, base_url=f"http://127.0.0.1:{telegram.port}"
            ),
        )
        run = asyncio.create_task(serve(config, redis_url, stop))
        await fake.wait_identified()
        deadline = time.monotonic() + 10
        while telegram.calls["getUpdates"] == 0:  # Telegram's polling runs too
            assert time.monotonic() < deadline, "Telegram was not polled"
            await asyncio.sleep(0.02)
        await join_through_the_gateway(fake)
        stop.set()
        assert await asyncio.wait_for(run, 20) == 0


async def test_the_gateway_away_is_a_warning_line_each_try_not_a_traceback(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeDiscord()
    await fake.__aenter__()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.base_url)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake.gateway_url)
    )
    stop = asyncio.Event()
    config = Config(discord=DiscordConfig(token=fake.token, base_url=fake.base_url))
    run = asyncio.create_task(serve(config, redis_url, stop))
    try:
        await fake.wait_identified()
    finally:
        await fake.__aexit__(None, None, None)  # the network, or Discord, goes away
    deadline = time.monotonic() + 20
    while not any("Attempting a reconnect" in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, caplog.text
        await asyncio.sleep(0.05)
    stop.set()
    assert await asyncio.wait_for(run, 20) == 0
    said = [r for r in caplog.records if "Attempting a reconnect" in r.getMessage()]
    assert all(r.levelno == logging.WARNING for r in said)
    assert "Cannot connect to host" in said[0].getMessage()
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []


async def test_a_refused_token_stops_the_run(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fake_discord(monkeypatch) as fake:
        config = Config(discord=DiscordConfig(token="not-the-token", base_url=fake.base_url))
        status = await asyncio.wait_for(serve(config, redis_url, asyncio.Event()), 15)
    assert status == 1
    assert capsys.readouterr().err == (
        "wizard-bot run: Discord refused the token (discord.token, WIZARD_DISCORD_TOKEN): copy "
        "it again from the developer portal (Bot, Reset Token)\n"
    )

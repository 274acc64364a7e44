"""Health and metrics: the real HTTP server (`adapters.health`) beside the real Telegram front
end (the fake Bot API of `tests/fake_telegram.py`), the real game service and a real
redis-server. The tests play, scrape /metrics as Prometheus would (parsed with
prometheus-client's parser) and check that what happened shows: commands by kind and outcome,
refusals by code, latencies, posts, AI decisions, timers, 429s; /readyz follows Redis and the
front ends; `wizard-bot run`'s `serve` starts the server and stops it with the front ends."""

import asyncio
import contextlib
import dataclasses
import gc
import logging
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import discord
import pytest
import redis.asyncio as aioredis
import yarl
from aiohttp import ClientConnectionError, ClientSession
from fake_discord import FakeDiscord
from fake_telegram import FakeTelegram, RateLimits
from prometheus_client.parser import text_string_to_metric_families
from telegram.ext import AIORateLimiter
from test_telegram import ANN, BOB, GROUP, PLAYERS, Bot, _front, move, seat

from adapters.health import HealthServer, parse_listen
from adapters.outbox import FAST
from adapters.serve import serve
from adapters.telegram.app import PLATFORM
from bot.config import Config, DiscordConfig, MetricsConfig, TelegramConfig, WebConfig
from bot.memory import THRESHOLDS
from bot.metrics import Metrics, Readiness
from bot.store.redis_server import RedisServer, free_port

pytestmark = pytest.mark.filterwarnings(
    # PTB warns when it reads a 429's retry_after (the type changes in its next major version)
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning"
)

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@dataclass
class Watched:
    """The bot under test and its health server."""

    bot: Bot
    health: HealthServer

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.health.port}"

    async def get(self, path: str) -> tuple[int, str]:
        async with ClientSession() as session, session.get(self.url + path) as answer:
            return answer.status, await answer.text()

    async def scrape(self) -> "Scrape":
        status, text = await self.get("/metrics")
        assert status == 200
        return Scrape.of(text)


@dataclass
class Scrape:
    """One scrape of /metrics, as Prometheus reads it."""

    samples: Samples

    @classmethod
    def of(cls, text: str) -> "Scrape":
        samples: Samples = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                samples[sample.name, frozenset(sample.labels.items())] = sample.value
        return cls(samples)

    def __call__(self, name: str, **labels: str) -> float:
        """The sum of the samples of `name` whose labels include `labels` (0 if none)."""
        wanted = set(labels.items())
        return sum(v for (n, ls), v in self.samples.items() if n == name and wanted <= ls)

    def has(self, name: str, **labels: str) -> bool:
        wanted = set(labels.items())
        return any(n == name and wanted <= ls for (n, ls) in self.samples)


@contextlib.asynccontextmanager
async def watched_bot(
    redis_url: str,
    turn_timeout: int = 90,
    rate_limits: RateLimits | None = None,
    rate_limiter: AIORateLimiter | None = None,
) -> AsyncIterator[tuple[FakeTelegram, Watched]]:
    """A Telegram front end (not started) with its health server running on a free port."""
    async with FakeTelegram(rate_limits=rate_limits) as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        front = _front(
            fake, client, turn_timeout=turn_timeout, limits=FAST, rate_limiter=rate_limiter
        )
        bot = Bot(fake, front, client)
        metrics = bot.front.service.metrics
        metrics.ready.expect(PLATFORM)
        health = HealthServer(metrics, client, 1.0)
        await health.start(f"127.0.0.1:{free_port()}")
        try:
            yield fake, Watched(bot, health)
        finally:
            await bot.front.stop()
            await health.stop()
            await client.aclose()


async def until(done: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.02)


# --- a game, scraped as it goes ---------------------------------------------------------------


async def test_a_game_moves_the_metrics(redis_url: str) -> None:
    async with watched_bot(redis_url) as (_fake, watched):
        bot = watched.bot
        assert await watched.get("/healthz") == (200, "ok\n")
        status, said = await watched.get("/readyz")
        assert (status, said) == (503, "not ready: telegram\n")  # not started yet

        await bot.front.start()
        assert await watched.get("/readyz") == (200, "ready\n")
        before = await watched.scrape()
        # Every series of a known label value is there from the start, at 0.
        assert before.has("wizard_commands_total", kind="play", outcome="refused")
        assert before.has("wizard_refusals_total", code="stale_button")
        assert before.has("wizard_refusals_total", code="not_your_turn")
        assert before("wizard_commands_total") == 0

        people = (ANN, BOB)
        await seat(bot, people)
        await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        first_bid = await move(bot, people)  # round 1, one card each
        first_message = bot.hand(ANN).message_id
        moves = 1
        while "Round 2" not in bot.table().text:
            await move(bot, people)
            moves += 1
        during = await watched.scrape()

        def grew(name: str, **labels: str) -> float:
            return during(name, **labels) - before(name, **labels)

        assert grew("wizard_commands_total", kind="join", outcome="done") == 2
        assert grew("wizard_commands_total", kind="addbot", outcome="done") == 1
        assert grew("wizard_commands_total", kind="start", outcome="done") == 1
        played = grew("wizard_commands_total", kind="bid", outcome="done") + grew(
            "wizard_commands_total", kind="play", outcome="done"
        )
        assert played == moves
        assert grew("wizard_commands_total", outcome="refused") == 0
        handled = grew("wizard_commands_total")
        assert grew("wizard_command_duration_seconds_count") == handled
        assert 0 < grew("wizard_command_duration_seconds_sum") < handled * 2
        # the AI seat bid and played in round 1, at the default level
        assert grew("wizard_ai_decision_duration_seconds_count", level="normal") >= 2
        # every request wrote its chat, and (the chat known from the first) few read it
        assert grew("wizard_redis_call_duration_seconds_count", call="save") >= handled
        assert grew("wizard_redis_call_duration_seconds_count", call="load") < handled / 2
        assert during("wizard_redis_call_errors_total") == 0
        # the lobby, the tables and the hands were sent, and edited
        assert grew("wizard_posts_total", platform="telegram", result="sent") >= 5
        assert grew("wizard_posts_total", platform="telegram", result="edited") >= 1
        assert grew("wizard_outbox_wait_seconds_count", platform="telegram") == grew(
            "wizard_posts_total", platform="telegram"
        )
        assert during("wizard_games_live", scope="tg") == 1
        assert during("wizard_timers_overdue", scope="tg") == 0
        assert during("wizard_ready", part="telegram") == 1
        assert during("wizard_ready", part="redis") == 1
        assert abs(during("wizard_timer_tick_timestamp_seconds", scope="tg") - time.time()) < 5

        # A round-1 bid button pressed in round 2 is out of date; a forged payload is none of
        # ours: each is refused, and counted under its code (a press under its command).
        await bot.press(ANN.id, ANN, first_message, first_bid, stale=True)
        await bot.press(GROUP, BOB, bot.table().message_id, "not one of ours", stale=True)
        after = await watched.scrape()
        assert after("wizard_refusals_total", code="stale_button") == 1
        assert after("wizard_refusals_total", code="foreign_button") == 1
        assert after("wizard_refusals_total") == 2
        assert after("wizard_commands_total", kind="bid", outcome="refused") == 1
        assert after("wizard_commands_total", kind="button", outcome="refused") == 1

        await bot.front.stop()
        status, said = await watched.get("/readyz")
        assert (status, said) == (503, "not ready: telegram\n")


async def test_what_people_type_or_forge_adds_no_series(redis_url: str) -> None:
    """Commands the bot does not know, bad arguments, options and AI levels, and forged or
    stale button payloads, each different, in the group and in a private chat: they are
    counted under the fixed label values (`button`, `bad_argument`, `foreign_button`...), so
    the number of series in /metrics stays as it was."""
    async with watched_bot(redis_url) as (_fake, watched):
        bot = watched.bot
        await bot.front.start()
        await seat(bot, (ANN, BOB))
        await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        await move(bot, (ANN, BOB))
        before = await watched.scrape()
        table = bot.table().message_id
        for i in range(10):
            await bot.command(GROUP, ANN, f"/zz{i}cmd arg{i}")
            await bot.command(ANN.id, ANN, f"/qq{i}")
            await bot.command(GROUP, ANN, f"/bid {i}x")
            await bot.command(GROUP, ANN, f"/options bogus{i}=1")
            await bot.command(GROUP, ANN, f"/addbot level{i}")
            await bot.press(GROUP, ANN, table, f"forged{i}.x.{i}", stale=True)
            await bot.press(GROUP, BOB, table, f"g1.{i}b.b{i}", stale=True)
        after = await watched.scrape()
        assert after("wizard_commands_total") - before("wizard_commands_total") >= 50
        assert set(after.samples) == set(before.samples)


async def test_timers_due_and_fired(redis_url: str) -> None:
    """A turn that times out: the reminder and the timeout fire, the late player's moves are
    the AI's from then on."""
    async with watched_bot(redis_url, turn_timeout=1) as (_fake, watched):
        bot = watched.bot
        await bot.front.start()
        await seat(bot)
        await bot.command(GROUP, ANN, "/start")
        await until(
            lambda: any("ran out of time" in text for text in bot.group_texts()), "a timeout"
        )
        scrape = await watched.scrape()
        assert scrape("wizard_timers_fired_total", scope="tg") >= 2  # the reminder, the timeout
        assert scrape("wizard_timers_due_total", scope="tg") >= scrape(
            "wizard_timers_fired_total", scope="tg"
        )
        # the stand-in (`stand_in`, hard by default) played for the late player
        assert scrape("wizard_ai_decision_duration_seconds_count", level="hard") >= 1
        assert scrape("wizard_timers_overdue", scope="tg") == 0
        assert scrape("wizard_games_live", scope="tg") == 1


async def test_429s_are_counted(redis_url: str) -> None:
    """Telegram answers 429 to the fourth post within a second in the group: PTB's limiter waits
    and tries again, and each 429 is counted."""
    limits = RateLimits(group=(3, 1.0), private=(30, 1.0), overall=(300, 1.0))
    limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
    async with watched_bot(redis_url, rate_limits=limits, rate_limiter=limiter) as (fake, watched):
        bot = watched.bot
        await bot.front.start()
        for _ in range(5):
            fake.send_command(GROUP, ANN, "/rules")
        await bot.idle()
        assert fake.throttled
        scrape = await watched.scrape()
        assert scrape("wizard_rate_limited_total", platform="telegram") == len(fake.throttled)
        assert scrape("wizard_commands_total", kind="rules", outcome="done") == 5


# --- readiness ----------------------------------------------------------------------------------


async def test_ready_only_while_redis_answers(redis_alone: RedisServer) -> None:
    async with watched_bot(redis_alone.url) as (_fake, watched):
        await watched.bot.front.start()
        assert await watched.get("/readyz") == (200, "ready\n")
        redis_alone.stop()
        started = time.monotonic()
        assert await watched.get("/readyz") == (503, "not ready: redis\n")
        assert time.monotonic() - started < 3  # within redis_timeout (1 s), give or take
        assert await watched.get("/healthz") == (200, "ok\n")
        scrape = await watched.scrape()
        assert scrape("wizard_ready", part="redis") == 0
        assert scrape("wizard_ready", part="telegram") == 1
        redis_alone.start()
        # ready again at a probe soon after (the first may still meet the old connection)
        deadline = time.monotonic() + 10
        while (answer := await watched.get("/readyz")) != (200, "ready\n"):
            assert answer == (503, "not ready: redis\n")
            assert time.monotonic() < deadline, "not ready 10 s after Redis came back"
            await asyncio.sleep(0.1)


async def test_readiness_asks_each_part() -> None:
    ready = Readiness()
    assert await ready.ready() == {}
    ready.expect("telegram")
    ready.expect("redis")
    assert await ready.ready() == {"telegram": False, "redis": False}
    up = {"telegram": True}

    async def answers() -> bool:
        return True

    ready.report("telegram", lambda: up["telegram"])
    ready.report("redis", answers)
    assert await ready.ready() == {"telegram": True, "redis": True}
    up["telegram"] = False
    assert await ready.ready() == {"telegram": False, "redis": True}

    def broken() -> bool:
        raise RuntimeError("a check that fails counts as not ready")

    ready.report("redis", broken)
    assert await ready.ready() == {"telegram": False, "redis": False}
    ready.report("redis", lambda: "Redis refuses writes: …")  # not up, saying why
    assert await ready.ready() == {"telegram": False, "redis": False}
    assert await ready.answers() == {"telegram": False, "redis": "Redis refuses writes: …"}


async def test_a_readiness_check_that_keeps_failing_logs_its_traceback_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A broken check is asked at every scrape and every /readyz (a load balancer's, every few
    seconds): its traceback is logged the first time, then a line a time while it fails alike."""
    caplog.set_level(logging.INFO)
    ready = Readiness()

    def broken() -> bool:
        raise RuntimeError("a bug in the check")

    ready.report("telegram", broken)
    for _ in range(3):
        assert await ready.ready() == {"telegram": False}
    said = [r for r in caplog.records if r.name == "bot.metrics"]
    assert [(r.levelno, r.exc_info is not None) for r in said] == [
        (logging.WARNING, True),
        (logging.WARNING, False),
        (logging.WARNING, False),
    ]
    assert "RuntimeError: a bug in the check" in said[-1].getMessage()


def test_metrics_count_apart() -> None:
    """Each `Metrics` has a registry of its own: two services in one process count apart."""
    one, two = Metrics(), Metrics()
    one.refused("busy")
    one.refused("busy")
    assert one.registry.get_sample_value("wizard_refusals_total", {"code": "busy"}) == 2
    assert two.registry.get_sample_value("wizard_refusals_total", {"code": "busy"}) is None
    names = {metric.name for metric in one.registry.collect()}
    assert len(names) > 10
    assert all(name.startswith(("wizard_", "process_")) for name in names)
    assert "process_start_time_seconds" in names  # counting began then (no `_created` series)
    samples = [sample.name for metric in one.registry.collect() for sample in metric.samples]
    assert "wizard_refusals_total" in samples
    assert not any(name.endswith("_created") for name in samples)


# --- `wizard-bot run` ---------------------------------------------------------------------------


async def test_run_serves_health_beside_the_front_ends(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` with both front ends and `metrics.listen`: the server answers from before the
    front ends are connected, ready once both are (Telegram polling, Discord's gateway), and
    stops with them."""
    async with FakeDiscord() as discord_fake, FakeTelegram() as telegram:
        monkeypatch.setattr(discord.http.Route, "BASE", discord_fake.base_url)
        gateway = yarl.URL(discord_fake.gateway_url)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", gateway)
        port = free_port()
        config = Config(
            discord=DiscordConfig(token=discord_fake.token, base_url=discord_fake.base_url),
            telegram=TelegramConfig(
                token=telegram.token, base_url=f"http://127.0.0.1:{telegram.port}"
            ),
            metrics=MetricsConfig(listen=f"127.0.0.1:{port}"),
        )
        stop = asyncio.Event()
        run = asyncio.create_task(serve(config, redis_url, stop))
        url = f"http://127.0.0.1:{port}"
        seen: list[tuple[int, str]] = []
        async with ClientSession() as session:
            deadline = time.monotonic() + 20
            while not seen or seen[-1][0] != 200:
                assert time.monotonic() < deadline, f"never ready: {seen[-3:]}"
                with contextlib.suppress(ClientConnectionError):
                    async with session.get(f"{url}/readyz") as answer:
                        seen.append((answer.status, await answer.text()))
                await asyncio.sleep(0.02)
            assert seen[-1] == (200, "ready\n")
            async with session.get(f"{url}/metrics") as answer:
                scrape = Scrape.of(await answer.text())
            assert scrape("wizard_ready", part="discord") == 1
            assert scrape("wizard_ready", part="telegram") == 1
            stop.set()
            assert await asyncio.wait_for(run, 20) == 0
            with pytest.raises(ClientConnectionError):
                async with session.get(f"{url}/healthz"):
                    pass
        not_ready = [said for status, said in seen if status == 503]
        assert all(said.startswith("not ready: ") for said in not_ready)


async def test_run_refuses_a_listen_address_it_cannot_use(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with FakeTelegram() as telegram:
        config = Config(
            telegram=TelegramConfig(
                token=telegram.token, base_url=f"http://127.0.0.1:{telegram.port}"
            ),
            metrics=MetricsConfig(listen="256.0.0.1:9100"),
        )
        status = await asyncio.wait_for(serve(config, redis_url, asyncio.Event()), 15)
    assert status == 1
    error = capsys.readouterr().err
    assert error.startswith("wizard-bot run: cannot serve metrics at 256.0.0.1:9100: ")
    assert error.count("\n") == 1
    assert telegram.calls["getUpdates"] == 0  # no front end started


@pytest.mark.parametrize(
    "part",
    [
        "metrics",
        # tornado's bind_sockets (PTB's webhook server) leaves the socket it failed to bind
        # for the collector to close
        pytest.param(
            "webhook",
            marks=pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
        ),
        "web",
    ],
)
async def test_a_port_in_use_is_one_line_naming_the_setting(
    redis_url: str, capsys: pytest.CaptureFixture[str], part: str
) -> None:
    # Another program holds the port the configuration names: the operator is told which
    # setting to change, in one line, not a traceback; the bot stops.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        listen = f"127.0.0.1:{taken.getsockname()[1]}"
        async with FakeTelegram() as telegram:
            tg = TelegramConfig(token=telegram.token, base_url=f"http://127.0.0.1:{telegram.port}")
            if part == "metrics":
                config = Config(telegram=tg, metrics=MetricsConfig(listen=listen))
                key, what = "metrics.listen", "serve metrics"
            elif part == "webhook":
                tg = dataclasses.replace(
                    tg, webhook_url="https://bot.example.org/tg", webhook_secret="s", listen=listen
                )
                config = Config(telegram=tg)
                key, what = "telegram.listen", "take Telegram's webhook"
            else:
                config = Config(telegram=tg, web=WebConfig(listen=listen))
                key, what = "web.listen", "serve the web table"
            status = await asyncio.wait_for(serve(config, redis_url, asyncio.Event()), 15)
    assert status == 1
    error = capsys.readouterr().err
    variable = "WIZARD_" + key.upper().replace(".", "_")
    assert error.startswith(f"wizard-bot run: cannot {what} at {listen}: ")
    assert error.endswith(
        f"; set {key} ({variable}) to a free host:port of this machine, or stop what holds it\n"
    )
    assert "in use" in error
    assert "Traceback" not in error


@pytest.mark.parametrize("webhook", [False, True])
async def test_the_start_says_how_telegram_updates_come(
    redis_url: str, caplog: pytest.LogCaptureFixture, webhook: bool
) -> None:
    # A webhook secret without a webhook URL: the operator meant a webhook, and gets polling.
    caplog.set_level(logging.INFO)
    listen = f"127.0.0.1:{free_port()}"
    async with FakeTelegram() as telegram:
        tg = TelegramConfig(
            token=telegram.token,
            base_url=f"http://127.0.0.1:{telegram.port}",
            webhook_secret="s3cret",
            webhook_url="https://bot.example.org/tg" if webhook else None,
            listen=listen,
        )
        stop = asyncio.Event()
        run = asyncio.create_task(serve(Config(telegram=tg), redis_url, stop))
        deadline = time.monotonic() + 15
        while "Telegram front end running" not in caplog.text:
            assert time.monotonic() < deadline, caplog.text
            await asyncio.sleep(0.02)
        stop.set()
        assert await asyncio.wait_for(run, 20) == 0
    said = [r.getMessage() for r in caplog.records if r.name == "adapters.telegram.run"]
    if webhook:
        assert said == [
            "Telegram front end running as @wizard_test_bot, taking updates by webhook at "
            f"https://bot.example.org/tg, listening on {listen}"
        ]
    else:
        assert said == [
            "Telegram front end running as @wizard_test_bot, taking updates by long polling",
            "telegram.webhook_secret is set but telegram.webhook_url is not: this worker takes "
            "updates by long polling, and only one worker per bot token may; set "
            "telegram.webhook_url (WIZARD_TELEGRAM_WEBHOOK_URL) for a webhook",
        ]


# PTB's Application.shutdown does nothing after a failed initialize: its HTTP connection is left
# for the collector (the process exits at once anyway).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_a_refused_telegram_token_says_where_to_get_it(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with FakeTelegram() as telegram:
        base = f"http://127.0.0.1:{telegram.port}"
        config = Config(telegram=TelegramConfig(token="42:not-the-token", base_url=base))
        status = await asyncio.wait_for(serve(config, redis_url, asyncio.Event()), 15)
    gc.collect()  # that connection, while the warning is ignored
    assert status == 1
    assert capsys.readouterr().err == (
        "wizard-bot run: Telegram refused the token (telegram.token, WIZARD_TELEGRAM_TOKEN): "
        "copy it again from @BotFather (/token)\n"
    )


@pytest.mark.parametrize(
    "listen", ["127.0.0.1:²", "127.0.0.1:９１００", "a b:9100", "a\x00:9100", "9100"]
)
def test_a_listen_address_that_is_no_host_and_port_is_a_value_error(listen: str) -> None:
    with pytest.raises(ValueError, match="is not host:port"):
        parse_listen(listen)
    assert parse_listen("[::1]:0") == ("::1", 0)
    assert parse_listen(":9100") == ("", 9100)


def test_a_worker_settles_its_collector_once_started(redis_url: str) -> None:
    """`wizard-bot run`'s process (here with no front end configured, so it stops at once)
    freezes what it imported out of later collections and collects its young objects less
    often (`bot.memory`). The tests' own process, which calls `serve` itself, is left alone."""
    script = (
        "import gc, sys\n"
        "from adapters.serve import run\n"
        "from bot.config import Config\n"
        "frozen = gc.get_freeze_count()\n"
        "status = run(Config(redis_url=sys.argv[1]))\n"
        "print(status, frozen, gc.get_threshold()[:2], gc.get_freeze_count() > 10_000)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, redis_url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split("\n")[0] == f"0 0 {THRESHOLDS[:2]} True"
    assert gc.get_freeze_count() == 0  # this process: nothing frozen

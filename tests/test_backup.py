"""Backups and restores (`bot.store.backup`, `wizard-bot backup` and `restore`): real games on a
real Redis, a backup taken while another game is played and while a chat moves, restored into a
second redis-server and compared key by key; bad files and a target with keys of the bot refused
with one line and nothing changed; the command line, through stdout and stdin, and the embedded
server in data_dir."""

import asyncio
import contextlib
import gzip
import hashlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Collection, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
import test_cluster
from service_helpers import ANN, BOB, CID, DOT, EVE, FAY, Clock, recorded, service, table_of
from test_stats import Players

from adapters import backups as backup_command
from adapters.cli import main
from bot.commands import Kind
from bot.service import GameService
from bot.store import backup as backups
from bot.store import keys, presence
from bot.store.backup import FORMAT, Backup, BackupError, Restore, Saved, check_file
from bot.store.redis_server import RedisServer, embedded_redis, free_port
from engine import Phase

NOW = 1_700_000_000.0
DONE, PLAYING, BUSY = "tg:-100", "tg:-200", "tg:-300"
"""A chat with finished games, one with a game under way, one played while the backup runs."""
CHATS = ("tg:-1000100", PLAYING)
"""The chats with a game after the move on a Cluster."""
OTHER = b"another-app:key"
"""A key of another application in the same Redis."""
TTL_SLACK_MS = 5_000

Contents = dict[bytes, tuple[str, Any, int]]

cluster, cluster_client = test_cluster.cluster, test_cluster.cluster_client
"""A real Redis Cluster (3 masters, a replica each), emptied for each test."""


async def contents(client: aioredis.Redis, pattern: str = "*") -> Contents:
    """Every key: its type, its value and its time to live (ms, -1 for none)."""
    found: Contents = {}
    async for key in client.scan_iter(match=pattern):
        kind = (await client.type(key)).decode()
        value: Any
        if kind == "string":
            value = await client.get(key)
        elif kind == "hash":
            value = await client.hgetall(key)
        elif kind == "list":
            value = await client.lrange(key, 0, -1)
        elif kind == "set":
            value = await client.smembers(key)
        else:
            value = await client.zrange(key, 0, -1, withscores=True)
        found[key] = (kind, value, await client.pttl(key))
    return found


def same(got: Contents, want: Contents, leave_out: Collection[bytes] = ()) -> None:
    """The same keys and values (but those of the tags `leave_out`), times to live within
    TTL_SLACK_MS."""
    got = {key: item for key, item in got.items() if backups.tag_of(key) not in leave_out}
    want = {key: item for key, item in want.items() if backups.tag_of(key) not in leave_out}
    assert sorted(got) == sorted(want)
    for key, (kind, value, ttl) in want.items():
        assert got[key][:2] == (kind, value), key
        assert (got[key][2] == -1) == (ttl == -1), key
        assert abs(got[key][2] - ttl) <= TTL_SLACK_MS, key


@pytest.fixture
async def source(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def target_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A second redis-server, empty, to restore into."""
    with RedisServer(tmp_path / "target", port=free_port(), appendfsync="always") as server:
        yield server


@pytest.fixture
async def target(target_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(target_server.url)
    try:
        yield client
    finally:
        await client.aclose()


async def played(client: aioredis.Redis) -> GameService:
    """Two finished games in DONE (results, stats, a record, settings), one under way in
    PLAYING (a turn deadline and its timer), and a key of another application."""
    svc = service(client, seed=5, clock=Clock(NOW))
    done = Players(svc, [ANN, BOB, CID], chat=DONE, seed=1)
    await done.ok(ANN, Kind.LANGUAGE, "de")
    for _ in range(2):
        await done.lobby(["rounds=short"], ai=1)
        await done.play_to_end()
    going = Players(svc, [DOT, EVE, FAY], chat=PLAYING, seed=2)
    await going.lobby(["rounds=short"])
    await going.play_until(lambda state: state.round is not None and state.round.number == 2)
    await client.set(OTHER, b"not ours")
    return svc


async def one_move(client: aioredis.Redis, chat: str) -> None:
    """A player of PLAYING's game presses a button their screen shows now (a legal move)."""
    svc = service(client, seed=9, clock=Clock(NOW))
    going = Players(svc, [DOT, EVE, FAY], chat=chat, seed=4, wings_rate=0)
    going.screens.show(await svc.current(chat))
    await going.move()


async def back_up(client: aioredis.Redis, source: str = "test") -> io.BytesIO:
    out = io.BytesIO()
    await Backup(client).write(out, source)
    out.seek(0)
    return out


async def test_a_backup_taken_while_a_game_is_played_restores_each_chat_as_it_was(
    source: aioredis.Redis, target: aioredis.Redis
) -> None:
    svc = await played(source)
    busy = Players(svc, [ANN, BOB, CID], chat=BUSY, seed=3)
    await busy.lobby(["rounds=short"])
    moves = 0

    async def keep_playing(stop: asyncio.Event) -> None:
        nonlocal moves
        while not stop.is_set():
            table = await table_of(source, BUSY)
            assert table is not None
            if table.game.phase is Phase.FINISHED:
                await busy.lobby(["rounds=short"])
            else:
                await busy.move()
            moves += 1

    stop = asyncio.Event()
    writer = asyncio.create_task(keep_playing(stop))
    during = 0
    try:
        for _ in range(3):  # a few backups while it plays: the last is restored
            await asyncio.sleep(0.05)
            start = moves
            file = await back_up(source)
            during += moves - start
    finally:
        stop.set()
        await writer
    assert during > 0  # the game was played while the backups read
    before = await contents(source)

    summary = await Restore(target).write(file)
    assert (summary.chats, summary.games) == (3, 3)
    after = await contents(target)
    assert OTHER not in after
    # every chat the writer did not touch is exactly as it was; what its moves changed (the
    # timer index, the worker's journal, the players' indexes) is checked below
    spanning = {tag for tag in map(backups.tag_of, before) if tag[:2] in (b"t:", b"j:", b"p:")}
    same(after, {k: v for k, v in before.items() if k != OTHER}, {BUSY.encode(), *spanning})

    # the busy chat is one state its game really had: version and table as one write made them
    version, blob = await target.hmget(keys.game(BUSY), ["v", "t"])
    written = {(note.version, note.blob) for note in recorded(svc).acked}
    assert (int(version), blob) in written
    # every game under way is indexed no later than its table's next time
    for chat in (PLAYING, BUSY):
        table = await table_of(target, chat)
        assert table is not None
        wake = table.wake()
        if wake is not None:
            entry = await target.zscore(keys.timers(chat), chat)
            assert entry is not None
            assert entry <= wake
    # the players' indexes name their chats
    assert DONE.encode() in await target.smembers(keys.played(ANN.id))

    # the restored game goes on: a legal move applies on the restored Redis
    version_before = int(await target.hget(keys.game(PLAYING), "v"))
    await one_move(target, PLAYING)
    assert int(await target.hget(keys.game(PLAYING), "v")) == version_before + 1


async def test_the_indexes_of_live_seats_name_every_restored_game_of_their_people(
    source: aioredis.Redis, target: aioredis.Redis
) -> None:
    """A person's index of live seats is copied at another moment than a chat (each under its
    own hash tag): one copied before the person took a seat lacks the chat. Restored as it
    was, the index would name a chat too few, which it never may (`bot.store.seats`): the
    person's private messages would not say which chat they are of, and their private /start
    would not find the game. The restore names every restored game in its people's indexes,
    for as long as the game's key lives."""
    await played(source)
    assert PLAYING.encode() in await source.smembers(keys.seats(DOT.id))
    await source.srem(keys.seats(DOT.id), PLAYING)  # copied before DOT sat down
    await source.delete(keys.seats(EVE.id))
    summary = await Restore(target).write(await back_up(source))
    assert summary.games == 2
    for person in (DOT, EVE, FAY):
        assert await target.smembers(keys.seats(person.id)) == {PLAYING.encode()}
        ttl = await target.pttl(keys.seats(person.id))
        assert ttl >= await target.pttl(keys.game(PLAYING)) - TTL_SLACK_MS
    for person in (ANN, BOB, CID):  # DONE's games are over: no live seat
        assert DONE.encode() not in await target.smembers(keys.seats(person.id))


class MovingBackup(Backup):
    """A backup during which chat `old` moves to `new`, right after it read `after`."""

    def __init__(self, client: aioredis.Redis, svc: GameService, after: str, old: str, new: str):
        super().__init__(client)
        self.svc, self.after, self.old, self.new = svc, after, old, new

    async def read_tag(self, tag: bytes, seen: Any) -> list[Saved]:
        saved = await super().read_tag(tag, seen)
        if tag == self.after.encode():
            assert await self.svc.move_chat(self.old, self.new) is not None
        return saved


@pytest.mark.parametrize("after", [DONE, PLAYING], ids=["before-old", "old-itself"])
async def test_a_chat_that_moves_during_the_backup_is_in_it_once(
    source: aioredis.Redis,
    target: aioredis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    after: str,
) -> None:
    svc = await played(source)
    new = "tg:-1000200"  # a supergroup's id: read before PLAYING, had it been there
    monkeypatch.setattr(backups, "BATCH", 1)  # one tag at a time: the move falls between
    game = await source.hgetall(keys.game(PLAYING))
    out = io.BytesIO()
    summary = await MovingBackup(source, svc, after, PLAYING, new).write(out, "test")
    assert summary.moved == 1
    out.seek(0)
    await Restore(target).write(out)
    assert await target.hgetall(keys.game(new)) == game
    assert not await target.exists(keys.game(PLAYING))
    table = await table_of(target, new)
    assert table is not None
    assert table.wake() is not None
    assert await target.zscore(keys.timers(new), new) is not None


# --- bad input ------------------------------------------------------------------------------


def lines_of(file: io.BytesIO) -> list[bytes]:
    return gzip.decompress(file.getvalue()).splitlines(keepends=True)


def packed(lines: list[bytes]) -> io.BytesIO:
    return io.BytesIO(gzip.compress(b"".join(lines)))


def altered(file: io.BytesIO) -> io.BytesIO:
    """A record's value changed (and the file compressed again, so gzip finds nothing)."""
    lines = lines_of(file)
    record = json.loads(lines[1])
    record["keys"][0]["ttl"] = 12345
    lines[1] = json.dumps(record).encode() + b"\n"
    return packed(lines)


def flipped(file: io.BytesIO) -> io.BytesIO:
    raw = bytearray(file.getvalue())
    raw[len(raw) // 2] ^= 0x55
    return io.BytesIO(bytes(raw))


def with_record(kind: str, ttl: int, *value: str, tag: str = "z") -> Any:
    """A spoiler: the file with one more record last (one key of `kind`, `ttl` and `value`)
    and its end line made again, so that only the record's contents are wrong."""

    def spoil(file: io.BytesIO) -> io.BytesIO:
        lines = lines_of(file)[:-1]
        item = {"key": f"wiz:{{{tag}}}:x", "type": kind, "ttl": ttl, "value": list(value)}
        lines.append(json.dumps({"tag": tag, "keys": [item]}).encode() + b"\n")
        records = [json.loads(line) for line in lines[1:]]
        end = {
            "end": FORMAT,
            "records": len(records),
            "keys": sum(len(record["keys"]) for record in records),
            "sha256": hashlib.sha256(b"".join(lines)).hexdigest(),
        }
        return packed([*lines, json.dumps(end).encode() + b"\n"])

    return spoil


BAD: dict[str, tuple[Any, str]] = {
    "truncated": (lambda f: io.BytesIO(f.getvalue()[: len(f.getvalue()) // 2]), "cut short"),
    "cut within its first line": (
        lambda f: io.BytesIO(f.getvalue()[:30]),
        "the backup is cut short (within its first line)",
    ),
    "without its end": (lambda f: packed(lines_of(f)[:-1]), "cut short (it has no end line)"),
    "a line dropped": (lambda f: packed(lines_of(f)[:1] + lines_of(f)[2:]), "altered"),
    "altered": (altered, "altered: its checksum does not match"),
    "a byte flipped": (flipped, "damaged"),
    "a game record": (lambda f: io.BytesIO(b'{"format": "wizard-record/1"}'), "not gzip data"),
    "gzip of something else": (
        lambda f: packed([b'{"format": "wizard-record/1"}\n']),
        f"not a {FORMAT} backup",
    ),
    "a later format": (
        lambda f: packed([b'{"format": "wizard-backup/2"}\n', *lines_of(f)[1:]]),
        f"a wizard-backup/2 backup: this version reads {FORMAT}",
    ),
    "empty": (lambda f: io.BytesIO(b""), "not gzip data"),
    "a lone surrogate in a value": (with_record("string", -1, "\ud800"), "not Unicode text"),
    "a lone surrogate as a tag": (with_record("set", -1, "m", tag="\ud800"), "not Unicode"),
    "a score of nan": (with_record("zset", -1, "m", "nan"), "has the score b'nan'"),
    "a score with _": (with_record("zset", -1, "m", "1_0"), "has the score b'1_0'"),
    "a score in spaces": (with_record("zset", -1, "m", " 1 "), "has the score b' 1 '"),
    "a score beyond a double": (with_record("zset", -1, "m", "1e999"), "has the score"),
    "a time to live of 10**30 ms": (with_record("string", 10**30, "v"), "the time to live 1000"),
}


@pytest.fixture(scope="module")
def good(redis_server: RedisServer) -> bytes:
    """A backup of the games `played` makes (once for the bad files made from it)."""

    async def make() -> bytes:
        client = aioredis.from_url(redis_server.url)
        try:
            await client.flushall()
            await played(client)
            return (await back_up(client)).getvalue()
        finally:
            await client.aclose()

    return asyncio.run(make())


@pytest.mark.parametrize("case", list(BAD))
async def test_a_bad_backup_is_refused_with_one_line_and_nothing_written(
    good: bytes, target: aioredis.Redis, case: str
) -> None:
    spoil, reason = BAD[case]
    await target.set(b"another-app:mine", b"1")
    before = await contents(target)
    with pytest.raises(BackupError, match=None) as refused:
        await Restore(target).write(spoil(io.BytesIO(good)))
    message = str(refused.value)
    assert reason in message
    assert "\n" not in message
    assert await contents(target) == before
    check_file(io.BytesIO(good))  # the file it was spoiled from is fine


async def test_a_target_with_keys_of_the_bot_is_refused_unless_replace(
    source: aioredis.Redis, target: aioredis.Redis
) -> None:
    await played(source)
    file = await back_up(source)
    await Restore(target).write(file)
    restored = await contents(target)
    await target.set(keys.settings("tg:-999"), b"{}")  # a chat the backup does not have
    before = await contents(target)
    with pytest.raises(BackupError, match=r"holds \d+ keys of the bot already") as refused:
        await Restore(target).write(file)
    assert "--replace" in str(refused.value)
    same(await contents(target), before)
    # --replace: the bot's keys end as in the backup, other applications' stay
    await one_move(target, PLAYING)  # the target's game moves on: replaced, it goes back
    await target.set(OTHER, b"theirs")
    summary = await Restore(target).write(file, replace=True)
    assert summary.deleted == 2  # that chat's settings, and the journal of the move's worker
    assert await target.get(OTHER) == b"theirs"
    await target.delete(OTHER)
    same(await contents(target), restored)


async def test_a_restore_under_a_running_bot_is_refused_and_changes_nothing(
    source: aioredis.Redis, target: aioredis.Redis
) -> None:
    await played(source)
    file = await back_up(source)
    await Restore(target).write(file)
    restored = await contents(target)
    await one_move(target, PLAYING)
    now = await Backup(target).now()
    worker = service(target, seed=3, clock=Clock(now))
    await worker.tick("tg")  # a worker of the bot runs on the target: it beats each second
    before = await contents(target)
    with pytest.raises(BackupError, match=r"beat in the target Redis 0 s ago") as refused:
        await Restore(target).write(file, replace=True)
    assert str(refused.value).endswith(
        ", so the bot may be running: stop every worker (wizard-bot run) and terminal table "
        "(wizard-bot play), and restore 10 s after the last one stopped"
    )
    same(await contents(target), before)
    # The last worker's last beat long enough ago (it stopped), the restore goes ahead: the
    # game goes back to where the backup has it.
    await target.zadd(keys.beats("tg"), {worker.worker: now - backups.RUNNING - 1})
    await Restore(target).write(file, replace=True)
    same(await contents(target), restored)


# --- the command line -----------------------------------------------------------------------


def configured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str | None) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("WIZARD_"):
            monkeypatch.delenv(name)
    if url is None:
        monkeypatch.setenv("WIZARD_DATA_DIR", str(tmp_path / "data"))
    else:
        monkeypatch.setenv("WIZARD_REDIS_URL", url)


def _started(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "adapters.cli", *command],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _serving(port: int, process: subprocess.Popen[bytes]) -> None:
    """Wait until the web worker serves at `port`."""
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the web worker does not serve"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.05)


def _prompting(process: subprocess.Popen[bytes]) -> None:
    """Wait until the terminal table asks for its first move."""
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    shown = b""
    while not shown.endswith("› ".encode()):
        assert time.monotonic() < deadline, shown.decode(errors="replace")
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            assert chunk, process.communicate()
            shown += chunk


def test_a_restore_under_a_web_only_worker_or_a_terminal_table_is_refused(
    redis_url: str,
    target_server: RedisServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Neither runs a timer loop, so neither beat as a chat worker does: each beats in a scope
    of its own (`web`, `console`), which a restore reads and no chat worker does; and each
    takes its beat back when it stops, so the restore then goes ahead."""
    asyncio.run(_play_on(redis_url))
    file = tmp_path / "wizard.backup.gz"
    configured(monkeypatch, tmp_path, redis_url)
    assert main(["backup", str(file)]) == 0
    configured(monkeypatch, tmp_path, target_server.url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    env["WIZARD_REDIS_URL"] = target_server.url
    env["WIZARD_DATA_DIR"] = str(tmp_path / "data")
    check = redis.Redis.from_url(target_server.url)
    try:
        port = free_port()
        web = _started(
            ["run", "--only", "web"],
            {**env, "WIZARD_WEB_LISTEN": f"127.0.0.1:{port}", "WIZARD_WEB_SECRET": "k3y"},
            tmp_path,
        )
        try:
            _serving(port, web)
            capsys.readouterr()
            assert main(["restore", "--replace", str(file)]) == 1
            said = capsys.readouterr().err
            assert said.startswith(
                "wizard-bot restore: a web table worker of the bot beat in the target Redis 0 s "
                "ago, so the bot may be running: stop every worker (wizard-bot run) and terminal "
                "table (wizard-bot play), and restore 10 s after the last one stopped"
            ), said
            assert check.keys("*") == [keys.beats("web").encode()]  # nothing restored
            # No chat worker takes it for one of its own (nor waits for it to beat there).
            assert not check.exists(keys.beats("tg"))
        finally:
            web.terminate()
            out, err = web.communicate(timeout=30)
            assert web.returncode == 0, (out, err)
        assert not check.exists(keys.beats("web"))  # it took its beat back as it stopped
        assert main(["restore", "--replace", str(file)]) == 0
        restored = check.dbsize()

        table = _started(["play", "--players", "3", "--seed", "1"], env, tmp_path)
        try:
            _prompting(table)
            # The person thinks a while at the prompt: its game was written long ago (the
            # service names a worker in its scope's beats at its first write)...
            beats = keys.beats("console")
            old = time.time() - backups.RUNNING - 1
            check.zadd(beats, dict.fromkeys(check.zrange(beats, 0, -1), old))
            deadline = time.monotonic() + backups.RUNNING
            while (check.zrevrange(beats, 0, 0, withscores=True) or [(b"", old)])[0][1] <= old:
                assert time.monotonic() < deadline, "the table at its prompt does not beat"
                time.sleep(0.05)
            # ...and it still runs.
            capsys.readouterr()
            assert main(["restore", "--replace", str(file)]) == 1
            said = capsys.readouterr().err
            assert said.startswith(
                "wizard-bot restore: a terminal table of the bot (wizard-bot play) beat in the "
                "target Redis 0 s ago, so the bot may be running"
            ), said
            assert check.dbsize() > restored  # its game, untouched
        finally:
            out, err = table.communicate(b"quit\n", timeout=30)
            assert table.returncode == 0, (out, err)
        assert not check.zcard(keys.beats("console"))
        assert main(["restore", "--replace", str(file)]) == 0
        assert check.dbsize() == restored
    finally:
        check.close()


async def test_the_command_line_backs_up_and_restores(
    source: aioredis.Redis,
    target_server: RedisServer,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await played(source)
    before = await contents(source, keys.PREFIX + "*")
    file = tmp_path / "wizard.backup.gz"
    configured(monkeypatch, tmp_path, redis_url)
    assert await asyncio.to_thread(main, ["backup", str(file)]) == 0
    said = capsys.readouterr()
    assert "2 chats (2 with a game)" in said.out
    assert file.name in said.out
    assert not file.with_name(file.name + ".partial").exists()

    configured(monkeypatch, tmp_path, target_server.url)
    assert await asyncio.to_thread(main, ["restore", str(file)]) == 0
    assert "wizard-bot restore: the backup of " in capsys.readouterr().out
    assert await asyncio.to_thread(main, ["restore", str(file)]) == 1
    said = capsys.readouterr()
    assert said.err.startswith("wizard-bot restore: the target Redis holds ")
    assert said.err.count("\n") == 1
    assert not said.out
    assert await asyncio.to_thread(main, ["restore", "--replace", str(file)]) == 0
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["restore", str(tmp_path / "missing")]) == 1
    assert "No such file or directory" in capsys.readouterr().err
    check = aioredis.from_url(target_server.url)
    try:
        same(await contents(check), before)
    finally:
        await check.aclose()


def test_a_backup_to_a_directory_or_one_stopped_midway_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory is refused before anything is written (it was written as `dir.partial`,
    which the rename then failed to replace), and a backup stopped midway, by an interrupt
    too, takes its partial file with it."""
    configured(monkeypatch, tmp_path, f"redis://127.0.0.1:{free_port()}/0")  # not reached
    folder = tmp_path / "backups"
    folder.mkdir()
    assert main(["backup", str(folder)]) == 1
    said = capsys.readouterr()
    assert said.err == f"wizard-bot backup: {folder} is a directory: name the backup's file in it\n"
    assert [path.name for path in tmp_path.iterdir()] == ["backups"]
    missing = tmp_path / "nowhere" / "wizard.backup.gz"
    assert main(["backup", str(missing)]) == 1
    assert capsys.readouterr().err == (
        f"wizard-bot backup: {missing}: there is no folder {missing.parent}: make it, or name "
        "another\n"
    )
    assert [path.name for path in tmp_path.iterdir()] == ["backups"]

    def interrupted(command: str, *_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(backup_command, "_run", interrupted)
    assert main(["backup", str(folder / "wizard.backup.gz")]) == 130
    assert capsys.readouterr().err == "wizard-bot: interrupted\n"
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(("command", "stream"), [("backup", "stdout"), ("restore", "stdin")])
def test_a_closed_standard_stream_as_the_file_is_one_line(
    command: str,
    stream: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`backup - >&-` or `restore - <&-` (the process started with it closed: Python's
    sys.stdout or sys.stdin is None) is refused in one line before any Redis is reached."""
    configured(monkeypatch, tmp_path, f"redis://127.0.0.1:{free_port()}/0")  # not reached
    monkeypatch.setattr(sys, stream, None)
    assert main([command, "-"]) == 1
    name = "output" if stream == "stdout" else "input"
    assert capsys.readouterr().err == (
        f"wizard-bot {command}: standard {name} is closed: name a file instead of -\n"
    )


def test_backup_to_stdout_piped_into_restore_from_stdin(
    redis_url: str, target_server: RedisServer, tmp_path: Path
) -> None:
    asyncio.run(_play_on(redis_url))
    command = [sys.executable, "-m", "adapters.cli"]
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_")}
    env["PYTHONPATH"] = str(root)
    dumped = subprocess.run(
        [*command, "backup", "-"],
        env={**env, "WIZARD_REDIS_URL": redis_url},
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    assert dumped.stdout[:2] == b"\x1f\x8b"
    assert b"2 chats" in dumped.stderr
    loaded = subprocess.run(
        [*command, "restore", "-"],
        env={**env, "WIZARD_REDIS_URL": target_server.url},
        cwd=tmp_path,
        input=dumped.stdout,
        capture_output=True,
        check=True,
    )
    assert b"2 chats (2 with a game)" in loaded.stdout, loaded


@pytest.mark.parametrize("buffered", [True, False])
def test_a_backup_to_a_full_standard_output_fails_in_one_line(
    buffered: bool, redis_url: str, tmp_path: Path
) -> None:
    """`backup -` onto a full disk (here /dev/full): status 1 and one line, whether the backup
    failed as it wrote or when its last bytes were written out; never its summary first, as if
    it had been written."""
    asyncio.run(_play_on(redis_url))
    done = into_a_full_disk(["backup", "-"], redis_url, tmp_path, buffered)
    assert (done.returncode, done.stderr) == (
        1,
        "wizard-bot backup: cannot write the output: No space left on device\n",
    )


@pytest.mark.parametrize("buffered", [True, False])
async def test_a_restore_whose_summary_cannot_be_written_says_it_restored(
    buffered: bool, good: bytes, target: aioredis.Redis, target_server: RedisServer, tmp_path: Path
) -> None:
    """`restore FILE > /dev/full`: the backup is restored, and its summary cannot be written
    where asked. Status 1, as for any command whose output cannot be written, and one line on
    standard error that says it was restored, with the summary. Before, the line was `cannot
    write the output`, which read as if the restore had failed (and one run again is refused:
    the target holds the bot's keys)."""
    file = tmp_path / "wizard.backup.gz"
    file.write_bytes(good)
    done = await asyncio.to_thread(
        into_a_full_disk, ["restore", str(file)], target_server.url, tmp_path, buffered
    )
    assert done.returncode == 1
    said = "wizard-bot restore: restored, but standard output cannot take this summary "
    assert done.stderr.startswith(said + "(No space left on device): the backup of ")
    assert ": 2 chats (2 with a game), 16 keys under 12 hash tags" in done.stderr
    assert done.stderr.count("\n") == 1
    assert len(await target.keys(keys.PREFIX + "*")) >= 16  # (a restore adds the timer index)


def into_a_full_disk(
    args: list[str], redis_url: str, folder: Path, buffered: bool
) -> "subprocess.CompletedProcess[str]":
    """`wizard-bot ARGS` on the Redis at `redis_url`, in `folder`, its standard output a full
    disk (/dev/full; `buffered` or not, as Python writes it)."""
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_")}
    env.pop("PYTHONUNBUFFERED", None)
    env.update(PYTHONPATH=str(root), WIZARD_REDIS_URL=redis_url)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "wb") as full:
        return subprocess.run(
            [sys.executable, "-m", "adapters.cli", *args],
            env=env,
            cwd=folder,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )


async def _play_on(url: str) -> None:
    client = aioredis.from_url(url)
    try:
        await played(client)
    finally:
        await client.aclose()


def test_the_embedded_server_in_data_dir(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restored into the embedded server (started for it, and stopped), backed up from it again
    when stopped, and while the bot runs it (which goes on running)."""
    asyncio.run(_play_on(redis_url))
    first, second, third = (tmp_path / f"{n}.gz" for n in (1, 2, 3))
    configured(monkeypatch, tmp_path, redis_url)
    assert main(["backup", str(first)]) == 0
    configured(monkeypatch, tmp_path, None)
    assert main(["restore", str(first)]) == 0
    assert main(["backup", str(second)]) == 0  # started again: its append-only file loaded
    running = embedded_redis(tmp_path / "data")  # as the bot starts it
    try:
        assert main(["backup", str(third)]) == 0
        assert running.running
    finally:
        running.stop()
    records = [sorted(lines_of(io.BytesIO(f.read_bytes()))[1:-1]) for f in (first, second, third)]
    assert records[0]
    assert len(records[0]) == len(records[1]) == len(records[2])
    for one in records[1:]:
        got = [json.loads(line)["tag"] for line in one]
        assert got == [json.loads(line)["tag"] for line in records[0]]


# --- a Redis Cluster ------------------------------------------------------------------------


async def test_a_cluster_backed_up_restored_into_one_server_and_back(
    cluster_client: "aioredis.RedisCluster", target: aioredis.Redis
) -> None:
    """Every master is scanned, and the file restores into a server of the other kind."""
    svc = await played(cluster_client)  # type: ignore[arg-type]
    await svc.move_chat(DONE, "tg:-1000100")  # a move on a Cluster: key by key
    masters = {cluster_client.get_node_from_key(keys.game(chat)).name for chat in CHATS}
    assert len(masters) > 1
    before = await on_every_master(cluster_client)
    file = await back_up(cluster_client)  # type: ignore[arg-type]
    summary = await Restore(target).write(file)
    assert summary.games == 2
    same(await contents(target), before)

    for node in cluster_client.get_primaries():
        await cluster_client.flushall(target_nodes=node)
    await Restore(cluster_client).write(file)  # type: ignore[arg-type]
    same(await on_every_master(cluster_client), before)


async def on_every_master(client: "aioredis.RedisCluster") -> Contents:
    found: Contents = {}
    for node in client.get_primaries():
        one = aioredis.Redis(host=node.host, port=node.port)
        try:
            found |= await contents(one, keys.PREFIX + "*")
        finally:
            await one.aclose()
    return found


@pytest.mark.parametrize("who", ["web", "console"])
def test_the_beat_of_a_killed_web_worker_or_terminal_table_goes_soon(
    who: str, target_server: RedisServer, tmp_path: Path
) -> None:
    """A web-only worker or a terminal table killed with SIGKILL cannot take its beat back:
    the beat itself goes within `presence.KEEP` seconds, not ten minutes later (forever when
    alone in its scope, as here: no other process's beat prunes it). The beats' key has that
    time to live, renewed by each beat; once the process is killed nobody renews it (two
    beats' time later it has less left), and Redis deletes it when it runs out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    env["WIZARD_REDIS_URL"] = target_server.url
    env["WIZARD_DATA_DIR"] = str(tmp_path / "data")
    beats = keys.beats(presence.WEB if who == "web" else presence.CONSOLE)
    check = redis.Redis.from_url(target_server.url)
    if who == "web":
        port = free_port()
        env |= {"WIZARD_WEB_LISTEN": f"127.0.0.1:{port}", "WIZARD_WEB_SECRET": "k3y"}
        process = _started(["run", "--only", "web"], env, tmp_path)
    else:
        process = _started(["play", "--players", "3", "--seed", "1"], env, tmp_path)
    try:
        if who == "web":
            _serving(port, process)
        else:
            _prompting(process)
        assert check.zcard(beats) == 1
        assert 0 < check.pttl(beats) <= presence.KEEP * 1000  # each beat renews it
        process.kill()
        process.communicate(timeout=30)
        left = check.pttl(beats)
        assert 0 < left <= presence.KEEP * 1000
        time.sleep(2 * presence.EVERY)  # two beats' time: a beat would have renewed it
        assert 0 < check.pttl(beats) < left - presence.EVERY * 1000
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        check.close()


def test_a_web_worker_stops_promptly_though_its_redis_is_frozen(
    target_server: RedisServer, tmp_path: Path
) -> None:
    """SIGTERM to a web-only worker whose Redis is frozen (SIGSTOP) and that gives Redis long to
    answer (`redis_timeout` 30 s): taking its beat back waits a second at most, not for Redis,
    and the worker stops well within those 30 s (the beat goes by itself within
    `presence.KEEP` seconds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    port = free_port()
    env |= {
        "WIZARD_REDIS_URL": target_server.url,
        "WIZARD_REDIS_TIMEOUT": "30",
        "WIZARD_DATA_DIR": str(tmp_path / "data"),
        "WIZARD_WEB_LISTEN": f"127.0.0.1:{port}",
        "WIZARD_WEB_SECRET": "k3y",
    }
    process = _started(["run", "--only", "web"], env, tmp_path)
    server = target_server.pid
    assert server is not None
    try:
        _serving(port, process)
        os.kill(server, signal.SIGSTOP)
        process.send_signal(signal.SIGTERM)
        try:  # generous, and below the 30 s that Redis is given
            _, err = process.communicate(timeout=25)
        except subprocess.TimeoutExpired:
            raise AssertionError("the web worker waits on its frozen Redis") from None
        assert process.returncode == 0, err
    finally:
        os.kill(server, signal.SIGCONT)
        if process.poll() is None:
            process.kill()
            process.communicate()

"""Backups of everything the bot keeps in Redis, as a portable file, and restoring one.

The file is gzip'd JSON lines: a header (`{"format": "wizard-backup/1", "created", "source",
"cluster"}`), one record per hash tag (`{"tag", "keys": [{"key", "type", "ttl", "value"}]}`:
every key of the bot, `bot.store.keys.PREFIX`, with its value and its time to live left in
milliseconds, -1 for none) and an end line with the counts and the SHA-256 of every line before
it. Values are the keys' contents, not DUMP payloads, so a backup restores into any Redis or
Valkey, a single server or a Cluster, whichever it came from. A byte string is JSON text when it
is UTF-8, else `{"b64": ...}`.

What a backup guarantees, taken while the bot runs: every key of one hash tag is read in one Lua
script, so each chat (its game, settings, results, stats, last record, slot maps, pacing and
applied updates) is copied as of one moment, as are each timer shard, a player's index of chats,
a scope's heartbeats and each worker's journal. Different chats are copied at different moments.
A chat that moved while the backup ran (a Telegram group that became a supergroup) is read again
after the pass, both its ids together in one script (on a Cluster one after the other), and that
later record supersedes the earlier ones: the backup has the game once, under one of its ids.
What spans chats is derived again on restore: each restored game is indexed in the timers no
later than its table's next time, and its players' indexes name the chat (those of their stats,
and those of their live seats), so no turn is left without a timer, no player's stats without
their chat, and no live seat out of its person's index.

A restore reads the whole file first (the end line's counts and checksum must match, and every
value must be one Redis takes: Unicode text, finite decimal scores, a time to live of at most
`MAX_TTL`) and writes nothing from a file that is cut short, altered, of another format, or that
Redis would refuse midway, nor while a worker of the bot beats in the target (it runs there:
a chat worker, a web table worker or a terminal table, `bot.store.presence`). Into a Redis
that holds no key of the bot, unless `replace`: then the bot's keys there end exactly as in
the backup (other applications' keys stay). Each hash tag is written in one
script, so no chat is half-restored.
"""

import asyncio
import base64
import gzip
import hashlib
import json
import math
import re
import time
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import redis.asyncio as aioredis

from bot.store import keys, presence
from bot.store.stats import StatsStore
from bot.store.store import RedisClient
from bot.table import Table

FORMAT = "wizard-backup/1"
KINDS = ("string", "hash", "list", "set", "zset")
"""The Redis types the bot keeps (pairs in a hash's and a sorted set's value: field or member,
then value or score)."""
PAIRED = ("hash", "zset")
BATCH = 32
"""Hash tags read, or written, at once."""
MOVE_MARGIN = 60.0
"""A move noted this many seconds before the backup began is read again too (a move notes
itself just before it runs)."""
MAX_TTL = 100 * 365 * 24 * 3600 * 1000
"""The longest time to live (ms) a backup may give a key: a century, far above the bot's own (a
year at most) and far below what the restore's script and Redis take (about 10**16)."""
SCORE = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""A sorted set's score as Redis writes it: a decimal number, no spaces, no `_`."""

_READ = """
local out = {}
for i, name in ipairs(KEYS) do
  local kind = redis.call('TYPE', name)['ok']
  if kind ~= 'none' then
    local value = {}
    if kind == 'string' then value = {redis.call('GET', name)}
    elseif kind == 'hash' then value = redis.call('HGETALL', name)
    elseif kind == 'list' then value = redis.call('LRANGE', name, 0, -1)
    elseif kind == 'set' then value = redis.call('SMEMBERS', name)
    elseif kind == 'zset' then value = redis.call('ZRANGE', name, 0, -1, 'WITHSCORES') end
    out[#out + 1] = {name, kind, redis.call('PTTL', name), value}
  end
end
return out
"""
"""Every one of KEYS that exists, at one moment: name, type, time to live (ms), contents."""

_WRITE = """
local replace = ARGV[1] == '1'
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if not replace then return 0 end
    redis.call('DEL', KEYS[i])
  end
end
local a = 2
while a <= #ARGV do
  local name, kind = KEYS[tonumber(ARGV[a])], ARGV[a + 1]
  local ttl, n = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  a = a + 4
  if kind == 'string' then redis.call('SET', name, ARGV[a])
  elseif kind == 'hash' then
    for i = a, a + n - 1, 2 do redis.call('HSET', name, ARGV[i], ARGV[i + 1]) end
  elseif kind == 'list' then
    for i = a, a + n - 1 do redis.call('RPUSH', name, ARGV[i]) end
  elseif kind == 'set' then
    for i = a, a + n - 1 do redis.call('SADD', name, ARGV[i]) end
  elseif kind == 'zset' then
    for i = a, a + n - 1, 2 do redis.call('ZADD', name, ARGV[i + 1], ARGV[i]) end
  end
  if ttl >= 0 then redis.call('PEXPIRE', name, math.max(ttl, 1)) end
  a = a + n
end
return 1
"""
"""Write one hash tag's keys (ARGV: '1' to replace, then per key its index in KEYS, type, time to
live, count and contents). KEYS also holds the tag's keys in the target, deleted first; without
replace, any of them existing leaves everything as it was (0)."""

_TIME = "return redis.call('TIME')"
"""The server's clock (KEYS[1] names the node: the moves' one)."""


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Saved:
    """One key as backed up."""

    key: bytes
    kind: str
    ttl: int
    """Milliseconds left to live, -1 for none."""
    value: tuple[bytes, ...]
    """A string's one value; a list's items; a set's members; a hash's fields and values and a
    sorted set's members and scores, one after the other."""


@dataclass
class Summary:
    """What a backup holds, or a restore wrote."""

    created: str = ""
    source: str = ""
    tags: int = 0
    keys: int = 0
    chats: int = 0
    """Hash tags with a chat's keys (its game, settings, results, stats or record)."""
    games: int = 0
    """Chats with a game (a lobby, a game under way, or one finished lately)."""
    moved: int = 0
    """Moves read again (backup)."""
    timers: int = 0
    """Games indexed in the timers (restore)."""
    deleted: int = 0
    """Keys of the target deleted as the backup has none of their hash tag (restore, replace)."""
    unread: list[str] = field(default_factory=list)
    """Chats whose table this version cannot read (restored as they were; no timer mended)."""

    def line(self) -> str:
        text = (
            f"{self.chats} chats ({self.games} with a game), {self.keys} keys "
            f"under {self.tags} hash tags"
        )
        if self.moved:
            text += f", {self.moved} moved chats read again"
        if self.timers:
            text += f", {self.timers} games indexed in the timers"
        if self.deleted:
            text += f", {self.deleted} keys the backup does not have deleted"
        if self.unread:
            text += f", {len(self.unread)} tables not read (a newer form?): {self.unread[0]}"
        return text


def tag_of(key: bytes) -> bytes:
    """A key's hash tag, as Redis Cluster finds it (the key itself when it has none)."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            return key[start + 1 : end]
    return key


def _enc(data: bytes) -> str | dict[str, str]:
    try:
        return data.decode()
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(data).decode()}


def _dec(item: object, where: str) -> bytes:
    if isinstance(item, str):
        try:
            return item.encode()
        except UnicodeEncodeError:  # a lone surrogate ("\ud800"), which JSON can write
            raise BackupError(f"{where}: a string that is not Unicode text") from None
    if isinstance(item, dict) and set(item) == {"b64"} and isinstance(item["b64"], str):
        try:
            return base64.b64decode(item["b64"], validate=True)
        except ValueError:
            pass
    raise BackupError(f"{where}: not a byte string")


def _bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def _count(saved: Iterable[Saved], summary: Summary, tag: bytes) -> None:
    names = {item.key for item in saved}
    summary.tags += 1
    summary.keys += len(names)
    chat = tag.decode(errors="replace")
    state = (keys.game, keys.settings, keys.results, keys.stats, keys.record)
    if names & {name(chat).encode() for name in state}:
        summary.chats += 1
    if keys.game(chat).encode() in names:
        summary.games += 1


# --- backing up ---------------------------------------------------------------------------------


class Backup:
    """A backup of the bot's keys in the Redis `client` reaches (every master of a Cluster)."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self.cluster = isinstance(client, aioredis.RedisCluster)
        self._read = client.register_script(_READ)
        self._time = client.register_script(_TIME)

    async def names(self) -> AsyncIterator[bytes]:
        """Every key of the bot (SCAN on every master)."""
        pattern = keys.PREFIX + "*"
        if isinstance(self.client, aioredis.RedisCluster):
            for node in self.client.get_primaries():
                async for name in self.client.scan_iter(
                    match=pattern, count=1000, target_nodes=node
                ):
                    yield _bytes(name)
        else:
            async for name in self.client.scan_iter(match=pattern, count=1000):
                yield _bytes(name)

    async def tags(self) -> dict[bytes, set[bytes]]:
        """The bot's keys by hash tag."""
        found: dict[bytes, set[bytes]] = {}
        async for name in self.names():
            found.setdefault(tag_of(name), set()).add(name)
        return found

    async def now(self) -> float:
        """The time on the server that keeps the moves."""
        seconds, micros = await self._time(keys=[keys.moves()])
        return int(seconds) + int(micros) / 1e6

    async def read(self, names: Iterable[bytes]) -> list[Saved]:
        """The keys among `names` that exist (all in one slot, or on one server), read in one
        script: as of one moment."""
        wanted = sorted(set(names))
        saved = []
        for name, kind_of, ttl, value in await self._read(keys=wanted):
            kind = _bytes(kind_of).decode()
            if kind not in KINDS:
                raise BackupError(f"{_bytes(name)!r} is a {kind}, which the bot does not keep")
            saved.append(Saved(_bytes(name), kind, int(ttl), tuple(map(_bytes, value))))
        return saved

    async def read_tag(self, tag: bytes, seen: Iterable[bytes]) -> list[Saved]:
        """A hash tag's keys: those the scan `seen`, and a chat's of fixed names (made since)."""
        return await self.read([*seen, *_fixed(tag)])

    async def read_moved(
        self, old: bytes, new: bytes, found: dict[bytes, set[bytes]]
    ) -> list[tuple[bytes, list[Saved]]]:
        """The two chats of a move, together in one script on one server (a Cluster keeps them
        in two slots: one after the other)."""
        if self.cluster:
            return [(tag, await self.read_tag(tag, found.get(tag, ()))) for tag in (old, new)]
        both = await self.read(
            [
                *found.get(old, ()),
                *found.get(new, ()),
                *_fixed(old),
                *_fixed(new),
            ]
        )
        return [(tag, [item for item in both if tag_of(item.key) == tag]) for tag in (old, new)]

    async def moves_since(self, since: float) -> list[tuple[bytes, bytes]]:
        """The moves noted from `since` on (server time)."""
        noted = await self.client.zrangebyscore(keys.moves(), since, "+inf")
        pairs = []
        for item in noted:
            old, _, new = _bytes(item).partition(b" ")
            if old and new:
                pairs.append((old, new))
        return pairs

    async def write(self, out: IO[bytes], source: str) -> Summary:
        """Write the backup to `out` (gzip'd JSON lines); what it holds."""
        began = await self.now()
        summary = Summary(
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(began)), source=source
        )
        found = await self.tags()
        chats = [tag for tag in found if not found[tag].isdisjoint(_fixed(tag))]
        order = sorted(chats) + sorted(set(found) - set(chats))
        with _Writer(out) as writer:
            writer.line(
                {
                    "format": FORMAT,
                    "created": summary.created,
                    "source": source,
                    "cluster": self.cluster,
                }
            )
            for start in range(0, len(order), BATCH):
                batch = order[start : start + BATCH]
                read = await asyncio.gather(*(self.read_tag(tag, found[tag]) for tag in batch))
                for tag, saved in zip(batch, read, strict=True):
                    if saved:
                        writer.record(tag, saved)
                        _count(saved, summary, tag)
            for old, new in await self.moves_since(began - MOVE_MARGIN):
                summary.moved += 1
                for tag, saved in await self.read_moved(old, new, found):
                    writer.record(tag, saved)  # supersedes the pass's record of the tag
            writer.end()
        return summary


def _fixed(tag: bytes) -> set[bytes]:
    return {name.encode() for name in keys.of_chat(tag.decode(errors="replace"))}


class _Writer:
    """The lines of a backup file, gzip'd, and the digest of what was written."""

    def __init__(self, out: IO[bytes]) -> None:
        self.file = gzip.GzipFile(fileobj=out, mode="wb")
        self.digest = hashlib.sha256()
        self.records = 0
        self.keys = 0

    def __enter__(self) -> "_Writer":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.file.close()

    def line(self, data: dict[str, Any]) -> None:
        raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        self.digest.update(raw)
        self.file.write(raw)

    def record(self, tag: bytes, saved: list[Saved]) -> None:
        self.records += 1
        self.keys += len(saved)
        self.line(
            {
                "tag": _enc(tag),
                "keys": [
                    {
                        "key": _enc(item.key),
                        "type": item.kind,
                        "ttl": item.ttl,
                        "value": [_enc(part) for part in item.value],
                    }
                    for item in saved
                ],
            }
        )

    def end(self) -> None:
        trailer = {
            "end": FORMAT,
            "records": self.records,
            "keys": self.keys,
            "sha256": self.digest.hexdigest(),
        }
        self.file.write(json.dumps(trailer, separators=(",", ":")).encode() + b"\n")


# --- reading a backup file ------------------------------------------------------------------------


@dataclass
class Plan:
    """A backup file checked whole: its header, and the line of each tag's last record."""

    header: dict[str, Any]
    last: dict[bytes, int]
    """A tag's record on a later line supersedes one on an earlier line."""


def _lines(src: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """The file's lines, numbered from 1; BackupError for what is not gzip or is damaged."""
    src.seek(0)
    if src.read(2) != b"\x1f\x8b":
        raise BackupError(f"not a {FORMAT} backup (not gzip data)")
    src.seek(0)
    number = 0
    try:
        with gzip.GzipFile(fileobj=src, mode="rb") as file:
            for number, raw in enumerate(file, start=1):
                yield number, raw
    except EOFError:
        where = f"after line {number}" if number else "within its first line"
        raise BackupError(f"the backup is cut short ({where})") from None
    except (OSError, zlib.error) as error:
        raise BackupError(f"the backup is damaged near line {number + 1}: {error}") from None


def _json(raw: bytes, number: int) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BackupError(f"line {number}: not JSON") from None
    if not isinstance(data, dict):
        raise BackupError(f"line {number}: not a JSON object")
    return data


def _header(raw: bytes) -> dict[str, Any]:
    try:
        data = _json(raw, 1)
    except BackupError:
        raise BackupError(f"not a {FORMAT} backup (its first line is not a header)") from None
    found = data.get("format")
    if found != FORMAT:
        if isinstance(found, str) and found.startswith("wizard-backup/"):
            raise BackupError(f"a {found} backup: this version reads {FORMAT}")
        raise BackupError(f"not a {FORMAT} backup (its first line is not a header)")
    return data


def parse_record(data: dict[str, Any], number: int) -> tuple[bytes, list[Saved]]:
    """A record's tag and keys, each checked (BackupError saying what is wrong where)."""
    where = f"line {number}"
    items = data.get("keys")
    if set(data) != {"tag", "keys"} or not isinstance(items, list):
        raise BackupError(f"{where}: not a record of keys")
    tag = _dec(data["tag"], where)
    saved = []
    for item in items:
        if not isinstance(item, dict) or set(item) != {"key", "type", "ttl", "value"}:
            raise BackupError(f"{where}: a key that is not a key, its type, ttl and value")
        name = _dec(item["key"], where)
        kind, ttl, value = item["type"], item["ttl"], item["value"]
        if not name.startswith(keys.PREFIX.encode()) or tag_of(name) != tag:
            raise BackupError(f"{where}: {name!r} is not a key of the bot's under its tag")
        if kind not in KINDS:
            raise BackupError(f"{where}: {name!r} has the type {kind!r}")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not -1 <= ttl <= MAX_TTL:
            raise BackupError(f"{where}: {name!r} has the time to live {ttl!r}")
        if not isinstance(value, list) or not value:
            raise BackupError(f"{where}: {name!r} has no value")
        parts = tuple(_dec(part, where) for part in value)
        if (kind == "string" and len(parts) != 1) or (kind in PAIRED and len(parts) % 2):
            raise BackupError(f"{where}: {name!r} has a value of the wrong shape")
        if kind == "zset":
            for score in parts[1::2]:
                if not _score(score):
                    raise BackupError(f"{where}: {name!r} has the score {score!r}")
        saved.append(Saved(name, kind, ttl, parts))
    return tag, saved


def _score(score: bytes) -> bool:
    """Whether Redis takes `score` as a sorted set's, and it is finite: a decimal number (Python
    takes "1_0", " 1" and "nan" too) that is neither beyond a double's range nor below it."""
    if not SCORE.fullmatch(score):
        return False
    value = float(score)
    digits = score.lower().partition(b"e")[0]
    return math.isfinite(value) and (value != 0 or not digits.strip(b"+-.0"))


def check_file(src: IO[bytes]) -> Plan:
    """Read the whole backup in `src` (seekable) and check it: its header, every record, and the
    end line's counts and checksum. BackupError says what is wrong."""
    lines = _lines(src)
    try:
        return _checked(lines)
    except BackupError:
        for _line in lines:  # damaged gzip data reads as garbage, and says so at its end
            pass
        raise


def _checked(lines: Iterator[tuple[int, bytes]]) -> Plan:
    digest = hashlib.sha256()
    header: dict[str, Any] | None = None
    last: dict[bytes, int] = {}
    records = count = 0
    trailer: dict[str, Any] | None = None
    for number, raw in lines:
        if trailer is not None:
            raise BackupError(f"line {number}: more after the end line")
        if header is None:
            header = _header(raw)
        else:
            data = _json(raw, number)
            if "end" in data:
                trailer = data
                continue
            tag, saved = parse_record(data, number)
            last[tag] = number
            records += 1
            count += len(saved)
        digest.update(raw)
    if header is None:
        raise BackupError(f"not a {FORMAT} backup (it is empty)")
    if trailer is None:
        raise BackupError("the backup is cut short (it has no end line)")
    if trailer.get("sha256") != digest.hexdigest():
        raise BackupError("the backup was altered: its checksum does not match its contents")
    if trailer.get("records") != records or trailer.get("keys") != count:
        raise BackupError("the backup was altered: its counts do not match its contents")
    return Plan(header, last)


# --- restoring ------------------------------------------------------------------------------------

RUNNING = presence.KEEP
"""Seconds since a worker's last heartbeat within which a restore takes the bot for running
and refuses (a worker beats about every second): as long as a web worker's or a terminal
table's beat is kept."""
_BEATS = re.compile(rb"wiz:\{w:([^}]*)\}:beats")
_BEATERS = {
    presence.WEB.encode(): "a web table worker of the bot",
    presence.CONSOLE.encode(): "a terminal table of the bot (wizard-bot play)",
}
"""Who beats in the beats of a scope, where it is not a chat worker."""


class Restore:
    """Restoring a checked backup into the Redis `client` reaches."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self.backup = Backup(client)
        self._write = client.register_script(_WRITE)

    async def write(self, src: IO[bytes], replace: bool = False) -> Summary:
        """Restore the backup in `src` (seekable): checked whole first, then written one hash
        tag at a time. BackupError, with nothing written, for a bad file or (without
        `replace`) a target that holds keys of the bot."""
        plan = check_file(src)
        there = await self.backup.tags()
        await self._no_worker_running(there)
        if there and not replace:
            count = sum(map(len, there.values()))
            example = min(min(names) for names in there.values()).decode(errors="replace")
            raise BackupError(
                f"the target Redis holds {count} keys of the bot already (e.g. {example}): "
                "restore into one without them, or give --replace to replace them"
            )
        summary = Summary(
            created=str(plan.header.get("created", "")), source=str(plan.header.get("source"))
        )
        wakes: dict[str, float] = {}
        people: list[str] = []
        seated: dict[str, tuple[frozenset[str], int]] = {}
        pending: list[tuple[bytes, list[Saved]]] = []
        restored: set[bytes] = set()
        for number, raw in _lines(src):
            if number == 1 or "end" in (data := _json(raw, number)):
                continue
            tag, saved = parse_record(data, number)
            if plan.last[tag] != number or not saved:
                continue
            restored.add(tag)
            pending.append((tag, saved))
            _count(saved, summary, tag)
            self._derived(tag, saved, wakes, people, seated, summary)
            if len(pending) >= BATCH:
                await self._put(pending, there, replace)
                pending = []
        await self._put(pending, there, replace)
        if replace:
            for tag in set(there) - restored:
                summary.deleted += len(there[tag])
                await self.client.delete(*there[tag])
        stats = StatsStore(self.client)

        async def enlist(chat: str) -> None:
            await stats.enlist(await stats.players(chat), chat)

        async def index(chat: str) -> None:  # no later than the table's time: mended if early
            await self.client.zadd(keys.timers(chat), {chat: wakes[chat]}, lt=True)

        async def sit(chat: str) -> None:  # one added lives as long as the game's key, at least
            seats, ttl = seated[chat]
            for person in seats:
                added = await self.client.sadd(keys.seats(person), chat)
                if added and ttl > 0 and await self.client.pttl(keys.seats(person)) < ttl:
                    await self.client.pexpire(keys.seats(person), ttl)

        for start in range(0, max(len(people), len(wakes), len(seated)), BATCH):
            await asyncio.gather(
                *map(enlist, people[start : start + BATCH]),
                *map(index, list(wakes)[start : start + BATCH]),
                *map(sit, list(seated)[start : start + BATCH]),
            )
        summary.timers = len(wakes)
        return summary

    async def _no_worker_running(self, there: dict[bytes, set[bytes]]) -> None:
        """BackupError when a worker of the bot beat within `RUNNING` seconds of the server's
        time: a restore under a running bot would replace the games it is playing, and its
        journals and heartbeats, beneath it."""
        newest, who = -math.inf, ""
        for name in (name for names in there.values() for name in names):
            if (beats := _BEATS.fullmatch(name)) is None:
                continue
            for pair in await self.client.zrevrangebyscore(name, "+inf", "-inf", 0, 1, True):
                if float(pair[1]) > newest:
                    newest = float(pair[1])
                    who = _BEATERS.get(beats.group(1), "a worker of the bot")
        ago = await self.backup.now() - newest
        if ago < RUNNING:
            raise BackupError(
                f"{who} beat in the target Redis {max(ago, 0):.0f} s ago, so the bot may be "
                "running: stop every worker (wizard-bot run) and terminal table (wizard-bot "
                f"play), and restore {RUNNING:g} s after the last one stopped"
            )

    def _derived(
        self,
        tag: bytes,
        saved: list[Saved],
        wakes: dict[str, float],
        people: list[str],
        seated: dict[str, tuple[frozenset[str], int]],
        summary: Summary,
    ) -> None:
        """Note what a restored chat needs in the indexes that span chats: its table's next
        time, whether it has results or stats (its players' indexes name it), and who has a
        live seat at its game, with the game key's time to live (their indexes of live seats
        name it: each index was copied at another moment than the chat, and may lack it)."""
        chat = tag.decode(errors="replace")
        named = {item.key: item for item in saved}
        if {keys.results(chat).encode(), keys.stats(chat).encode()} & set(named):
            people.append(chat)
        game = named.get(keys.game(chat).encode())
        if game is None or game.kind != "hash":
            return
        fields = dict(zip(game.value[::2], game.value[1::2], strict=True))
        if b"t" not in fields:
            return
        try:
            table = Table.from_bytes(fields[b"t"], fields.get(b"r"))
        except Exception:  # a table of a newer form, or damaged: restored as it is
            summary.unread.append(chat)
            return
        if table.seated():
            seated[chat] = (table.seated(), game.ttl)
        wake = table.wake()
        if wake is not None:
            wakes[chat] = wake

    async def _put(
        self,
        pending: list[tuple[bytes, list[Saved]]],
        there: dict[bytes, set[bytes]],
        replace: bool,
    ) -> None:
        done = await asyncio.gather(
            *(self._put_tag(tag, saved, there.get(tag, set()), replace) for tag, saved in pending)
        )
        for (tag, _saved), ok in zip(pending, done, strict=True):
            if not ok:
                raise BackupError(
                    f"stopped: keys of {tag.decode(errors='replace')} appeared in the target "
                    "meanwhile (is the bot running?); the chats before it are restored"
                )

    async def _put_tag(
        self, tag: bytes, saved: list[Saved], there: set[bytes], replace: bool
    ) -> bool:
        """One hash tag's keys, written in one script (the target's keys of the tag go first,
        when replacing)."""
        names = sorted({item.key for item in saved} | there)
        index = {name: position for position, name in enumerate(names, start=1)}
        args: list[bytes | int | str] = ["1" if replace else "0"]
        for item in saved:
            args += [index[item.key], item.kind, item.ttl, len(item.value), *item.value]
        return bool(await self._write(keys=names, args=args))

"""The Redis store: one hash per chat's game, written with optimistic concurrency.

A write is a compare-and-set in one Lua script: it succeeds only if the version read is
still current, and also marks the platform update as applied, so a redelivered update and
two racing commands each take effect exactly once. On a conflict the script answers the chat
as it is now, so the service retries without reading it again; and the chat as last read or
written is kept (`Store.known`), so a chat's next command usually costs one round trip: the
write, which fails if anyone else wrote meanwhile.
"""

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.messages import NO_GAME, Message
from bot.metrics import Metrics, timed
from bot.store import keys
from bot.store.cluster import SETTLE, UNREACHED, SettlingCluster
from bot.table import Settings, Table

UPDATE_TTL = 15 * 60
"""How long an applied update id is remembered: platforms redeliver within minutes, and a
key per command kept for a day would outweigh the games themselves."""
RESULTS_KEPT = 1000
RECORD_TTL = 90 * 24 * 3600
JOURNAL_TTL = 24 * 3600
"""A journal nobody takes over is forgotten after this long."""

REVIEW_TTL = 24 * 3600
"""How long a worker's notes of reviews promised last after the last was written: a review
that no worker could post in a day is not posted any more."""
REVIEWS_TAKEN = 100
"""The reviews a worker takes over from one gone at most (as many as a coach queues)."""
HINT_TTL = 10 * 60
"""How long a hint posted for one decision is remembered (`hint_posted`): a double tap's two
presses come within a second, and a decision is made or timed out within minutes."""
WAIT_MS = 500
"""On a Redis Cluster, how long a write waits for a replica of its master to have it (`WAIT`)
before it is reported done anyway (with a warning)."""

StoreErrors = (RedisError, RedisClusterException)
"""What a call raises when Redis cannot be reached or refuses (e.g. out of memory), or a
Cluster client cannot find its cluster. redis-py raises its own ConnectionError and
TimeoutError (RedisErrors) for a refused, closed or silent connection, never a bare OSError:
an OSError met while handling a request (a font file missing, a disk full) is no outage."""

RedisClient = aioredis.Redis | aioredis.RedisCluster
"""A client of one Redis server, or of a Redis Cluster."""


async def server_time(client: RedisClient) -> float:
    """The clock of the Redis server of `client` (seconds)."""
    seconds, micros = await client.time()
    return float(seconds) + float(micros) / 1e6


REFUSALS = ("MISCONF", "NOREPLICAS")
"""The first words of the refusals, beside out of memory and read-only, by which Redis says it
takes no writes until it is mended: it cannot persist (`stop-writes-on-bgsave-error`), it has
too few replicas (`min-replicas-to-write`)."""

log = logging.getLogger(__name__)


_WRAPPED = re.compile(r"Error running script \(call to f_\w+\): @user_script:\d+: .*?: -(\S+) (.*)")
"""How a Redis before 7.0 answers a command refused inside a script: the script's name and
line, then the command's own error (`-OOM command not allowed …`)."""
_ERRORS: dict[str, type[ResponseError]] = {"OOM": OutOfMemoryError, "READONLY": ReadOnlyError}
"""The error redis-py makes of a command's answer by its first word, where not ResponseError."""


def _unwrapped(error: BaseException) -> BaseException:
    """`error`, or the error of a command a Redis before 7.0 refused inside a script, as
    redis-py makes it of that command's answer (Redis 7 answers it so itself)."""
    found = _WRAPPED.match(str(error)) if isinstance(error, ResponseError) else None
    if found is None:
        return error
    code, said = found.groups()
    kind = _ERRORS.get(code)
    return kind(said) if kind is not None else ResponseError(f"{code} {said}")


def failure(error: BaseException) -> str:
    """What a store call failed with, for the log and /readyz: the error's type and Redis's
    answer, without the script's name a script's failure adds (the same for every call)."""
    error = _unwrapped(error)
    return f"{type(error).__name__}: {str(error).partition(' script: ')[0]}"


def refuses_writes(error: BaseException) -> bool:
    """Whether `error` is Redis refusing writes for a state of its own that lasts until an
    operator mends it (full under `noeviction`, unable to persist, a replica), not Redis away."""
    error = _unwrapped(error)
    if isinstance(error, OutOfMemoryError | ReadOnlyError):
        return True
    return isinstance(error, ResponseError) and str(error).startswith(REFUSALS)


def _at(error: BaseException, node: ClusterNode) -> BaseException:
    """`error`, noted as met at the Cluster's `node` where the client did not note where
    (`connection`, as redis-py notes it: `bot.store.writable.node_of` reads it)."""
    if getattr(error, "connection", None) is None:
        error.connection = node  # type: ignore[attr-defined]
    return error


def _text(value: object) -> str:
    """A value as Redis answered it (bytes, unless the client decodes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _confirmed(answer: object) -> bool:
    """Whether a `WAIT` answered that a replica has the write."""
    return isinstance(answer, int) and answer >= 1


def _replicated(role: object) -> bool:
    """Whether a master's `ROLE` names a replica in sync with it."""
    return isinstance(role, list | tuple) and len(role) >= 3 and bool(role[2])


def _acknowledging(role: object) -> bool:
    """Whether a master's `ROLE` names a replica that has acknowledged some of its stream: not
    one still receiving or loading a full resync (ROLE names a replica once it is sent the
    whole snapshot, with 0 acknowledged until it has loaded it)."""
    if not _replicated(role):
        return False
    assert isinstance(role, list | tuple)
    return any(
        isinstance(replica, list | tuple) and len(replica) >= 3 and int(replica[2]) > 0
        for replica in role[2]
    )


def redis_client(url: str, timeout: float, cluster: bool = False) -> RedisClient:
    """A client of the Redis at `url` (with `cluster`: of the Redis Cluster that node belongs
    to, one that waits out a slot being moved: `bot.store.cluster`) whose connecting and every
    call give up after `timeout` seconds (a frozen or unreachable server raises a timeout,
    which is one of StoreErrors).

    The Cluster client tries a call once (`retry` of no retries): redis-py's own asks again
    up to 10 times after a timeout or a refused connection, the slot map read anew before
    each, so a frozen master held a call for over ten times `timeout`. A call that fails asks
    for the map to be read anew, which the next call does (it asks the failed node last)."""
    if cluster:
        return SettlingCluster.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
    return aioredis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


_CAS = """
local now = redis.call('TIME')
if ARGV[11] ~= '' and tonumber(now[1]) + tonumber(now[2]) / 1000000 > tonumber(ARGV[11]) then
  return {-2, now[1], now[2]}
end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1])
    or (ARGV[13] ~= '' and redis.sha1hex(redis.call('HGET', KEYS[1], 't') or '') ~= ARGV[13]) then
  if ARGV[2] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then return {-1, now[1], now[2]} end
  local game = redis.call('HMGET', KEYS[1], 't', 'r', 'e')
  return {0, now[1], now[2], v, game[1] or '', game[2] or '', redis.call('GET', KEYS[2]) or '',
    game[3] or ''}
end
if ARGV[2] ~= '' then
  if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', tonumber(ARGV[2])) then
    return {-1, now[1], now[2]}
  end
end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], 't', 'r', 'c')
  redis.call('HSET', KEYS[1], 'v', v + 1)
else
  redis.call('HDEL', KEYS[1], 'c')
  redis.call('HSET', KEYS[1], 'v', v + 1, 't', ARGV[3])
  if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'r', ARGV[10]) end
end
if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'c', (v + 1) .. ':' .. ARGV[12]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
if ARGV[5] ~= '' then redis.call('SET', KEYS[2], ARGV[5]) end
if ARGV[6] ~= '' then
  redis.call('LPUSH', KEYS[4], ARGV[6])
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[7]) - 1)
end
if ARGV[8] ~= '' then redis.call('SET', KEYS[5], ARGV[8], 'EX', tonumber(ARGV[9])) end
if KEYS[6] then
  redis.call('ZADD', KEYS[6], tonumber(ARGV[14]), ARGV[15])
  redis.call('EXPIRE', KEYS[6], tonumber(ARGV[16]))
end
redis.call('PUBLISH', string.sub(KEYS[1], 1, -5) .. 'ver', v + 1)
return {1, now[1], now[2], redis.call('HGET', KEYS[1], 'e') or ''}
"""
"""Compare-and-set of a chat's game (KEYS 1 to 5 are the chat's), and, on one Redis server,
the note in the writing worker's journal (KEYS[6]; on a Cluster it is another slot's, so the
service writes it just before); a write publishes the new version on `keys.versions(chat)`
(named from KEYS[1], `wiz:{chat}:game` → `wiz:{chat}:ver`). ARGV[11] is the latest time
(Redis's clock) it may still be run at: a write whose caller gave up waiting for its answer
must not be applied later. A write that deletes the table (or changes its host) notes with its
version what its posts make each slot message say (ARGV[12], `Write.closed`: field `c`,
`<version>:<JSON>`, which any other write deletes). ARGV[13], if given, is the SHA-1 of the
table's bytes the writer knew at that version: a chat whose keys were deleted (evicted, or by
an operator) counts its versions from 0 again, and a game made anew there may come to the
very version a worker knew the old one at. Answers an outcome and the server's time
(`TIME`): 1 written, -1 the update was applied already, -2 too late, 0 a conflict, followed by
the chat as it is now, as `_LOAD` reads it: version, table, finished rounds, settings, and its marks
(`_MARK`); once written, followed by its marks."""


_LOAD = """
local game = redis.call('HMGET', KEYS[1], 'v', 't', 'r', 'e', 'c')
local seen = redis.call('EXISTS', KEYS[3])
local now = redis.call('TIME')
return {game[1] or '', game[2] or '', game[3] or '', redis.call('GET', KEYS[2]) or '', seen,
  now[1], now[2], game[4] or '', game[5] or ''}
"""
"""One round trip: version, table, finished rounds, settings, whether the update was seen, the
server's time, the chat's marks (`_MARK`), and the note of a table deleted (`_CAS`, `c`)."""

_MARK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local marked = {}
for id in string.gmatch(redis.call('HGET', KEYS[1], 'e') or '', '%S+') do
  if id ~= ARGV[1] then marked[#marked + 1] = id end
end
if ARGV[2] == '1' then marked[#marked + 1] = ARGV[1] end
table.sort(marked)
if #marked == 0 then redis.call('HDEL', KEYS[1], 'e')
else redis.call('HSET', KEYS[1], 'e', table.concat(marked, ' ')) end
return 1
"""
"""Mark (ARGV[2] = '1') or unmark a person (ARGV[1]) in a chat's game hash (field `e`, the ids
space-separated): they have a live seat in another chat as well. A chat without a game hash
gets none. It is no part of the game: the version stays, and no worker's write conflicts with
it; the game's reads and writes answer it (`Snapshot.elsewhere`) at no cost of their own."""

_DROP_TIMER = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
  else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
  return 1
end
return 0
"""
"""Drop a chat's entry (KEYS[1], member ARGV[1]) or move it to ARGV[3], only if it is still at
ARGV[2], the time that fired: 1 if so."""


_MOVE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local moved = 0
for i = 1, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('RENAME', KEYS[i], KEYS[i + 1])
    moved = 1
  end
end
return moved
"""
"""Move a chat's keys (pairs old, new; the game first), unless the new chat has a game
already."""

_NOTE_MOVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 86400)
return 0
"""
"""Note a move (`<old> <new>`) by the server's time, forgetting those older than a day: a
backup running meanwhile reads both chats again (`bot.store.backup`)."""

_BEAT = """
local now = tonumber(ARGV[2])
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1]) or ''
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if newest[2] and now - tonumber(newest[2]) > tonumber(ARGV[3]) then
  redis.call('LPUSH', KEYS[2], newest[2] .. ':' .. ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, 99)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[4])))
local t = redis.call('TIME')
return {mine, gone, redis.call('LRANGE', KEYS[2], 0, 19), t[1], t[2]}
"""
"""A worker's heartbeat (KEYS: the scope's beats and outages): when no worker of the scope beat
for longer than ARGV[3] seconds, that span is an outage. Returns the worker's own last beat,
the workers whose beat is older than the lease ARGV[4], the recent outages, and the server's
time (seconds, microseconds)."""


def _socket_timeout(client: RedisClient) -> float | None:
    """How long `client` waits for an answer (None: for ever)."""
    if isinstance(client, aioredis.RedisCluster):
        found = client.nodes_manager.connection_kwargs.get("socket_timeout")
    else:
        found = client.connection_pool.connection_kwargs.get("socket_timeout")
    return float(found) if isinstance(found, int | float) else None


async def reached(client: RedisClient) -> None:
    """PING the store, and make sure a client of one server is pointed neither at a node of a
    Cluster (it would start, and then fail every request on another node's keys) nor at a
    replica (every move would be refused as READONLY, or, on a writable one, lost at its next
    sync). Raises one of StoreErrors: a RedisError saying what to set. Warns of a server that
    evicts keys when its memory is full: a game would vanish, not be refused its next move.
    On a Cluster, of each master (`_masters_checked`)."""
    await client.ping()
    if isinstance(client, aioredis.RedisCluster):
        await _masters_checked(client)
        return
    info = await client.info("cluster")
    if str(info.get("cluster_enabled", 0)) == "1":
        raise RedisError(
            "it is a node of a Redis Cluster: set redis_cluster = true (or WIZARD_REDIS_CLUSTER=1)"
        )
    role = await client.info("replication")
    if role.get("role") == "slave":
        master = f"{role.get('master_host')}:{role.get('master_port')}"
        raise RedisError(
            f"it is a replica of {master}: point redis_url (or WIZARD_REDIS_URL) at its master"
        )
    _warn_if_evicting(await client.info("memory"))


async def _masters_checked(cluster: aioredis.RedisCluster) -> None:
    """The start-up checks on each master of a Cluster (each has settings of its own): warns of
    one that evicts keys, and of one with no replica online. A replica is no mistake there:
    the client finds the masters whichever node `redis_url` names, and follows a failover."""
    for node in cluster.get_primaries():
        where = f"{node.host}:{node.port}"
        replication = await cluster.info("replication", target_nodes=node)
        if not int(replication.get("connected_slaves", 0) or 0):
            log.warning(
                "the Redis Cluster's master %s has no replica online: its writes are on it "
                "alone, and when it fails its chats stop until it is back; give each master a "
                "replica",
                where,
            )
        _warn_if_evicting(await cluster.info("memory", target_nodes=node), where)


def _warn_if_evicting(memory: dict[str, Any], master: str = "") -> None:
    """Warn if Redis (the Cluster's `master`, if named), as its INFO memory says, evicts keys
    when full."""
    policy = str(memory.get("maxmemory_policy", "noeviction"))
    if policy != "noeviction" and int(memory.get("maxmemory", 0) or 0) > 0:
        log.warning(
            "Redis evicts keys when full (maxmemory-policy %s%s): a game, its turn deadline or "
            "what a chat's messages show may vanish mid-game; set maxmemory-policy noeviction",
            policy,
            f", the Cluster's master {master}" if master else "",
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A chat as read: the version to write against, its table (if any) and its settings."""

    version: int
    table: Table | None
    settings: Settings
    duplicate: bool = False
    """The update being handled was applied already."""
    known: bool = False
    """It is the chat as this store last read or wrote it, not read now (`Store.known`): a
    write against it fails if it is behind, but what it shows without a write may be old."""
    elsewhere: frozenset[str] = frozenset()
    """The people marked in the chat as having a live seat in another chat as well (`_MARK`),
    as the last read or write answered."""
    closed: tuple[Message, ...] = ()
    """As `load` read it: what the posts of the write that deleted the table (or changed its
    host) make each slot message say (`Write.closed`), if that write is the chat's last."""
    closed_game: str = NO_GAME
    """The game those belong to, as the note names it (`NO_GAME`: not named, an older
    worker's note; beside a table, the table's game is theirs)."""


@dataclass(slots=True)
class _Known:
    """A chat as this store last read or wrote it: its version, its stored bytes (to tell
    whether a read found anything new) and their parsed forms, and when (monotonic seconds)."""

    version: int
    blob: bytes
    results: bytes
    settings_raw: bytes
    table: Table | None
    settings: Settings
    at: float
    elsewhere: frozenset[str] = frozenset()


def _marks(value: object) -> frozenset[str]:
    """A chat's marks as Redis answered them (`_MARK`)."""
    return frozenset(_text(value).split()) if value else frozenset()


GAME_ENTRY = "#game"
"""The slot of the entry of a note (`_noted`) that names the game it belongs to, `[null,
"#game", <game id>]`: a worker before it reads it as a group message of no slot it shows, and
leaves it."""


DELETED_ENTRY = "#deleted"
"""The slot of the entry of a note (`_noted`) that names a slot whose message is deleted (the
group's turn reminder, by a cancel), `[<recipient>, "#deleted", <slot>]`: a worker before it
reads it as a message of no slot it shows, and leaves it."""


def _noted(closed: tuple[Message, ...], game: str = NO_GAME) -> str:
    """The note of a write (`Write.closed`) as stored after its version (`_CAS`, field
    `c`): JSON, a list of [recipient (null: the group), slot, what it says ("": as it was)]
    (a message deleted: `DELETED_ENTRY`), and, for a table deleted, an entry naming its game
    (`GAME_ENTRY`)."""
    said = [
        [m.to, DELETED_ENTRY, m.slot] if m.delete else [m.to, m.slot, m.behind or ""]
        for m in closed
    ]
    if said and game:
        said.append([None, GAME_ENTRY, game])
    return json.dumps(said, ensure_ascii=False) if said else ""


@dataclass(frozen=True, slots=True)
class Closed:
    """A chat's note of its last write, read (`_closed`)."""

    messages: tuple[Message, ...] = ()
    game: str = NO_GAME
    """The game they belong to (`NO_GAME`: not named, an older worker's note)."""


def _closed(note: object, version: int) -> Closed:
    """A chat's note of a deleted table (`_noted`, after its version and a colon), if it was
    written at `version` (an older worker's later write leaves it). Raises ValueError if it is
    malformed."""
    at, _, said = _text(note).partition(":") if note else ("", "", "")
    if at != str(version):
        return Closed()
    entries = json.loads(said)
    if not isinstance(entries, list):
        raise ValueError(f"not a list: {said[:200]}")
    closed, game = [], NO_GAME
    for entry in entries:
        match entry:
            case [None, str(), str(named)] if entry[1] == GAME_ENTRY:
                game = named
            case [str() | None as to, str(), str() as slot] if entry[1] == DELETED_ENTRY:
                closed.append(Message("", to=to, slot=slot, delete=True))
            case [str() | None as to, str() as slot, str() as behind]:
                closed.append(Message("", to=to, slot=slot, strip=True, behind=behind or None))
            case _:
                raise ValueError(f"not [recipient, slot, text]: {entry!r}"[:200])
    return Closed(tuple(closed), game)


@dataclass(frozen=True, slots=True)
class Beat:
    """What a worker's heartbeat found."""

    last: float | None
    """The worker's own beat before this one (None: its first)."""
    gone: tuple[str, ...]
    """Workers of the scope whose beat is older than the lease: they stopped, or died."""
    outages: tuple[tuple[float, float], ...]
    """Recent (start, end) spans in which no worker of the scope beat, newest first."""
    server: float
    """The Redis server's time as it took the beat (Unix seconds)."""


@dataclass(frozen=True, slots=True)
class Write:
    """What one successful request changes."""

    table: Table | None
    """The new table; None deletes it (a cancelled or closed lobby)."""
    ttl: int
    settings: Settings | None = None
    result: dict[str, Any] | None = None
    record: dict[str, Any] | None = None
    closed: tuple[Message, ...] = ()
    """What the posts of this write make each slot message say that the table no longer
    names, as bare messages (`Message.behind`): with no table, the group's lobby or table, the
    hands of a cancelled game, the last game's own results of a closed "Play again" lobby, a
    closed lobby's host's toggles; with one, the toggles of a host who left it. Noted beside
    the chat's version until its next write (`Snapshot.closed`), for a worker that shows the
    chat again after a crash to take their buttons off, saying it."""
    game: str = NO_GAME
    """The game of the table it deletes, which the note of `closed` names (`_noted`): shown
    again, only that game's messages are edited to say it (`SlotMap.unbutton`)."""


TRUST = 60.0
"""Seconds the chat as last read or written is written against without reading it again. Any
write of another worker meanwhile makes that write fail (its version is newer), so this bounds
only one case: a chat's game key that expired (no write for a finished game's time to live)
and was made anew, its version counting from 0 again; the store trusts a chat for at most half
the shortest time to live it is given (`ttl_floor`)."""


class Store:
    """A chat's game state in Redis."""

    def __init__(
        self,
        client: RedisClient,
        defaults: Settings,
        cached: int = 10_000,
        metrics: Metrics | None = None,
        ttl_floor: float | None = None,
    ) -> None:
        self.client = client
        self.metrics = metrics or Metrics()
        """What the store's calls count into (their time and failures: `timed`)."""
        self.cluster = isinstance(client, aioredis.RedisCluster)
        """The client is a Redis Cluster's: no script may touch keys of two slots, and a write
        waits for a replica (a master that dies right after loses nothing acknowledged)."""
        self.defaults = defaults
        self._unconfirmed: set[str] = set()
        """The Cluster's masters (host:port) whose last write no replica confirmed in time."""
        self._unheard: set[str] = set()
        """The Cluster's masters whose writes are not waited for (`WAIT`), as a write there was
        not confirmed in time, until their `ROLE` names a replica that acknowledges."""
        self._known: OrderedDict[str, _Known] = OrderedDict()
        """Each chat as last read or written (at most `cached` chats, the least recently used
        forgotten): its next request is applied to it and written in one round trip, and a
        read that finds the same bytes costs no parse."""
        self._cached = cached
        self._malformed: OrderedDict[str, object] = OrderedDict()
        """The malformed note each chat was last warned of (`_closed`), at most `cached`."""
        self.trust = TRUST if ttl_floor is None else min(TRUST, ttl_floor / 2)
        """Seconds a chat as last read or written is written against (see `TRUST`)."""
        self._skew: float | None = None
        """Redis's clock less this machine's, as of the last answer, from when its request was
        sent (its way there included; not what it waited for after Redis read its clock: a
        write's `WAIT`, the slot map read anew, a slow way back, which made a later write's
        time already past): a write carries the latest time by Redis's clock it may be run
        at."""
        timeout = _socket_timeout(client)
        self._within = None if timeout is None else 0.8 * timeout
        """Seconds after it is sent that a write may still be run: a little less than the
        client waits for its answer, so a write reported as failed for want of one is never
        run later (by a Redis that was frozen, or slow)."""
        self._cas = client.register_script(_CAS)
        self._drop = client.register_script(_DROP_TIMER)
        self._load = client.register_script(_LOAD)
        self._move = client.register_script(_MOVE)
        self._beat = client.register_script(_BEAT)
        self._note_move = client.register_script(_NOTE_MOVE)
        self._mark = client.register_script(_MARK)

    @timed("load")
    async def load(self, chat: str, update_id: str | None = None) -> Snapshot:
        sent, asked = time.time(), time.monotonic()
        version, blob, results, settings, seen, *now, marks, note = await self._load(
            keys=[keys.game(chat), keys.settings(chat), keys.update(chat, update_id or "-")]
        )
        self._timed(now, sent)
        known = self._read(chat, int(version or 0), blob, results, settings, marks, asked)
        closed = self._closed(chat, note, known.version)
        return Snapshot(
            version=known.version,
            table=None if known.table is None else known.table.copy(),
            settings=known.settings,
            duplicate=bool(update_id is not None and seen),
            elsewhere=known.elsewhere,
            closed=closed.messages,
            closed_game=closed.game,
        )

    def _closed(self, chat: str, note: object, version: int) -> Closed:
        """The chat's note of its last write (`_closed`); a malformed one is read as none, and
        warned of once (until the chat's note is another)."""
        try:
            return _closed(note, version)
        except ValueError as error:  # bad JSON, bytes, or shape: the chat is still shown
            if self._malformed.get(chat) != note:
                self._malformed[chat] = note
                while len(self._malformed) > self._cached:
                    self._malformed.popitem(last=False)
                log.warning(
                    "%s: its note of the last write is malformed, read as none: %s", chat, error
                )
            return Closed()

    def known(self, chat: str) -> Snapshot | None:
        """The chat as this store last read or wrote it, within `trust` seconds; else None."""
        known = self._known.get(chat)
        if known is None or time.monotonic() - known.at > self.trust:
            return None
        self._known.move_to_end(chat)
        table = None if known.table is None else known.table.copy()
        return Snapshot(
            version=known.version,
            table=table,
            settings=known.settings,
            known=True,
            elsewhere=known.elsewhere,
        )

    def forget(self, chat: str) -> None:
        """Forget the chat as last read or written (its keys moved, or were replaced)."""
        self._known.pop(chat, None)

    @timed("settings")
    async def settings(self, chat: str) -> Settings:
        """The chat's settings alone (its table is neither read nor parsed)."""
        return Settings.from_json(await self.client.get(keys.settings(chat)), self.defaults)

    def _read(
        self,
        chat: str,
        version: int,
        blob: bytes,
        results: bytes,
        settings: bytes,
        marks: object,
        asked: float,
    ) -> _Known:
        """Keep the chat as just read (its table and settings parsed unless the bytes are those
        known already) and return it; but where an answer taken in since the read was asked
        (`asked`, monotonic) made the chat known at a newer version, that stays: Redis answered
        the read before a write of this worker's that was taken in first (a timer's read beside
        a move), and the chat as read would send the next request, or the AI's run, back to
        the version before it."""
        blob, results, settings = blob or b"", results or b"", settings or b""
        known = self._known.get(chat)
        if known is not None and known.blob == blob and known.results == results:
            table = known.table
        else:
            table = Table.from_bytes(blob, results) if blob else None
        if known is not None and known.settings_raw == settings:
            parsed = known.settings
        else:
            parsed = Settings.from_json(settings or None, self.defaults)
        read = _Known(version, blob, results, settings, table, parsed, 0.0, _marks(marks))
        if known is not None and known.at > asked and known.version > version:
            return read
        return self._keep(chat, read)

    def _timed(self, now: list[Any], sent: float) -> None:
        """Take in Redis's time (seconds, microseconds) as an answer gave it, to a request sent
        at `sent` (this machine's time)."""
        self._skew = int(now[0]) + int(now[1]) / 1e6 - sent

    def _keep(self, chat: str, known: _Known) -> _Known:
        known.at = time.monotonic()
        self._known[chat] = known
        self._known.move_to_end(chat)
        while len(self._known) > self._cached:
            self._known.popitem(last=False)
        return known

    @timed("save")
    async def save(
        self,
        chat: str,
        version: int,
        write: Write,
        update_id: str | None = None,
        journal: tuple[str, float] | None = None,
    ) -> bool | None:
        """Write if `version` is still current: True when written, False on a conflict (the
        chat as it is now is then `known`: apply again to that), None when `update_id` was
        applied meanwhile (skip it). `journal` (a worker's journal key, and the time) notes
        the chat there with the write: in the same script on one server, just before it on a
        Cluster."""
        table = write.table
        blob = table.to_bytes() if table is not None else b""
        results = b""
        if table is not None and table.results_changed():
            results = table.results_bytes()
        settings = write.settings.to_json() if write.settings is not None else ""
        args = [
            version,
            UPDATE_TTL if update_id is not None else "",
            blob,
            write.ttl,
            settings,
            json.dumps(write.result) if write.result is not None else "",
            RESULTS_KEPT,
            json.dumps(write.record) if write.record is not None else "",
            RECORD_TTL,
            results,
            "",  # the latest time it may run at, set below, just before it is sent
            _noted(write.closed, write.game if table is None else NO_GAME),
            self._digest(chat, version),
        ]
        names = [
            keys.game(chat),
            keys.settings(chat),
            keys.update(chat, update_id or "-"),
            keys.results(chat),
            keys.record(chat),
        ]
        if journal is not None:
            if self.cluster:
                await self.note(journal[0], [chat], journal[1])
            else:
                names.append(journal[0])
                args += [repr(journal[1]), chat, JOURNAL_TTL]
        self._stamp(args)
        asked = time.monotonic()
        if self.cluster:
            answer, sent = await self._cas_replicated(names, args)
        else:
            sent = time.time()
            answer = await self._cas(keys=names, args=args)
        done, *now = answer[:3]
        self._timed(now, sent)
        if done == -2:
            raise RedisTimeoutError("the write reached Redis after its answer was given up on")
        if done == -1:
            return None
        if done != 1:  # a conflict: the chat as it is now
            current, blob_now, results_now, settings_now, marks = answer[3:]
            self._read(chat, int(current), blob_now, results_now, settings_now, marks, asked)
            return False
        known = self._known.get(chat)
        if known is None or known.version != version:
            # What the chat held besides this write (its settings, its finished rounds as
            # stored) is not known here: it is read again next time.
            self.forget(chat)
            return True
        kept = None if table is None else table.copy()
        if kept is not None and results:
            kept.stored = (kept.game_id, len(kept.game.results))
        raw = settings.encode() if settings else known.settings_raw
        parsed = write.settings or known.settings
        marks = _marks(answer[3])
        self._keep(
            chat, _Known(version + 1, blob, results or known.results, raw, kept, parsed, 0, marks)
        )
        return True

    def _digest(self, chat: str, version: int) -> str:
        """The SHA-1 of the chat's table as this store knew it at `version` ("" if it knows
        the chat at another version, or not at all): the write applies only if the table is
        still those bytes (`_CAS`), not another game's that came to the same version."""
        known = self._known.get(chat)
        if known is None or known.version != version:
            return ""
        return hashlib.sha1(known.blob, usedforsecurity=False).hexdigest()

    async def _cas_replicated(self, names: list[str], args: list[Any]) -> tuple[Any, float]:
        """The compare-and-set on a Cluster, then `WAIT` for a replica of its master, on the same
        connection (WAIT counts that connection's writes): a failover after the answer loses
        nothing. Both go where the client's slot map says, and the client follows no
        redirection for them (it would run the script on another connection than its WAIT, and
        answer it unconfirmed): where the slot moved (MOVED: resharded, or failed over) the map
        is read anew and both are sent there; while it moves (ASK, TRYAGAIN: the script runs at
        neither node until it has moved, see `bot.store.cluster`) they are sent again after a
        pause, for up to the client's timeout. None of those tries ran, so each is sent with a
        deadline of its own (ARGV[11]). Where the master could not be reached and the map read
        anew names another (it died, its replica took over: `SettlingCluster.failed_over`),
        both are sent once more, to the new master, within that timeout; a write the dead
        master ran and its replica had is then answered as applied, or a conflict.

        Whether a master has a replica to wait for comes from the map, which redis-py reads
        only after an error. A master it gives none is not waited for: its `ROLE` is asked
        instead, and where that names a replica in sync (one that came since: a failed master
        back as the replica of the one that took over) the map is read anew, so that the next
        writes wait for it. A write not confirmed in time has the map read anew too, so that a
        replica the cluster marked as failed is waited for no more; and the writes to its
        master after it are not waited for, their `ROLE` asked instead, until it names a
        replica that acknowledges (`_acknowledging`): a replica resyncing in full (its master
        restarted in place) confirms nothing until it has loaded the whole snapshot, and each
        write would wait `WAIT_MS` in vain meanwhile.

        Returns the script's answer, and when (this machine's time) the try it answers was
        sent."""
        assert isinstance(self.client, aioredis.RedisCluster)
        cluster = self.client
        patience = time.monotonic() + (_socket_timeout(cluster) or 1.0)
        masters = cluster.masters_mapped() if isinstance(cluster, SettlingCluster) else None
        loaded = tried = moved = False
        while True:
            if tried:
                self._stamp(args)
            tried = True
            node, replicas = await self._master_of(names[0])
            waits = bool(replicas) and node.name not in self._unheard
            sent = time.time()
            async with cluster.pipeline(transaction=False) as pipe:
                pipe.execute_command(
                    "EVALSHA", self._cas.sha, len(names), *names, *args, target_nodes=node
                )
                if waits:
                    pipe.execute_command("WAIT", replicas, WAIT_MS, target_nodes=node)
                else:
                    pipe.execute_command("ROLE", target_nodes=node)
                try:
                    results = await pipe.execute(raise_on_error=False, allow_redirections=False)
                except StoreErrors as error:
                    results = [error]
            done = results[0]
            if isinstance(done, UNREACHED) and masters is not None:
                assert isinstance(cluster, SettlingCluster)
                if await cluster.failed_over(masters, patience):
                    masters = None  # once: sent to the master that took over
                    continue
            if isinstance(done, NoScriptError) and not loaded:
                await cluster.script_load(_CAS)  # a node that never saw the script (a new one)
                loaded = True
                continue
            if isinstance(done, MovedError | AskError | TryAgainError | ClusterDownError):
                if time.monotonic() + SETTLE > patience:
                    raise _at(done, node)
                if not isinstance(done, MovedError) or moved:
                    await asyncio.sleep(SETTLE)
                if isinstance(done, MovedError):
                    moved = True
                    await cluster.nodes_manager.initialize()  # the new master's replicas too
                continue
            if isinstance(done, BaseException):
                raise _at(done, node)
            if not waits:
                if _acknowledging(results[1]):
                    self._unheard.discard(node.name)  # the next writes wait for it again
                if not replicas and _replicated(results[1]):
                    await cluster.nodes_manager.initialize()  # the next writes wait for it
            elif done[0] == 1 and not self._confirmed(node.name, names[0], results[1]):
                self._unheard.add(node.name)
                await cluster.nodes_manager.initialize()  # a replica lost is mapped no more
            return done, sent

    def _confirmed(self, master: str, key: str, answer: object) -> bool:
        """Take in whether a replica confirmed a write to `key` at `master` (`WAIT`'s answer),
        and return it: the first write a master's replica does not confirm in time is logged (a
        warning), and the next it confirms (so a replica resyncing after its master restarted
        is said once, not at each write, while each waits in vain)."""
        if _confirmed(answer):
            if master in self._unconfirmed:
                self._unconfirmed.discard(master)
                log.info("the writes to %s are confirmed by a replica again", master)
            return True
        if master not in self._unconfirmed:
            self._unconfirmed.add(master)
            log.warning(
                "a write to %s is on its master only (%r): the writes to %s after it may be too, "
                "until a replica confirms one again",
                key,
                answer,
                master,
            )
        return False

    async def _master_of(self, key: str) -> tuple[ClusterNode, int]:
        """The master serving `key` as the client's slot map says, and how many replicas a
        write there waits for (1, or 0 if it has none)."""
        assert isinstance(self.client, aioredis.RedisCluster)
        cluster = self.client
        try:
            node = cluster.get_node_from_key(key)
        except SlotNotCoveredError:
            await cluster.initialize()
            node = cluster.get_node_from_key(key)
        assert node is not None
        shard = cluster.nodes_manager.slots_cache.get(cluster.keyslot(key), [])
        return node, min(1, max(0, len(shard) - 1))

    def _stamp(self, args: list[Any]) -> None:
        """Set the latest time (Redis's clock) a write's script may still run at (`_CAS`,
        ARGV[11]), just before it is sent."""
        if self._skew is not None and self._within is not None:
            args[10] = repr(time.time() + self._skew + self._within)

    @timed("mark")
    async def mark(self, chat: str, person: str, on: bool) -> None:
        """Mark `person` in the chat as seated in another chat as well, or unmark them (see
        `_MARK`); the chat's next read or write answers it."""
        await self._mark(keys=[keys.game(chat)], args=[person, "1" if on else ""])

    @timed("record")
    async def record(self, chat: str) -> dict[str, Any] | None:
        """The record of the chat's last finished game."""
        text = await self.client.get(keys.record(chat))
        return json.loads(text) if text else None

    @timed("results")
    async def results(self, chat: str, count: int = 20) -> list[dict[str, Any]]:
        """Summaries of the chat's last finished games, newest first."""
        return [
            json.loads(item) for item in await self.client.lrange(keys.results(chat), 0, count - 1)
        ]

    @timed("set_timer")
    async def set_timer(
        self,
        chat: str,
        deadline: float,
        earlier: bool = False,
        journal: tuple[str, float] | None = None,
    ) -> None:
        """Index the chat's deadline (one entry per chat: a new deadline replaces the old;
        with `earlier`, only an entry that is later, or none); and note the chat in `journal`
        (a worker's journal key, and the time), if given, in the same round trip."""
        if journal is None:
            await self.client.zadd(keys.timers(chat), {chat: deadline}, lt=earlier)
            return
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.timers(chat), {chat: deadline}, lt=earlier)
            self._noting(pipe, journal[0], [chat], journal[1])
            await pipe.execute()

    @timed("due_timers")
    async def due_timers(
        self,
        scope: str,
        now: float,
        limit: int = 100,
        missed: list[BaseException] | None = None,
        skip: Collection[str] = (),
    ) -> list[tuple[str, float]]:
        """(chat, deadline) of the entries of `scope` due by `now` (every shard's, in one
        round trip per server), soonest first. On a Cluster, given `missed`, each master's
        shards are asked apart (at once): those of a master that fails (frozen, refusing) are
        left out, its error (noting it) added to `missed`, unless every master fails; the
        others' deadlines still fire. Those of the masters `skip` (host:port, failed already)
        are not asked."""
        shards = [keys.timer_shard(scope, shard) for shard in range(keys.TIMER_SHARDS)]
        if missed is None or not isinstance(self.client, aioredis.RedisCluster):
            found = await self._due_in(shards, now, limit)
        else:
            by_master: dict[str, tuple[ClusterNode, list[str]]] = {}
            for shard in shards:
                node = self.client.get_node_from_key(shard)
                assert node is not None
                if node.name not in skip:
                    by_master.setdefault(node.name, (node, []))[1].append(shard)
            answers = await asyncio.gather(
                *(self._due_in(names, now, limit) for _, names in by_master.values()),
                return_exceptions=True,
            )
            failures = [answer for answer in answers if isinstance(answer, StoreErrors)]
            if failures and len(failures) == len(answers):
                raise failures[0]  # no master answered
            found = []
            for (node, _), answer in zip(by_master.values(), answers, strict=True):
                if isinstance(answer, StoreErrors):
                    missed.append(_at(answer, node))
                elif isinstance(answer, BaseException):
                    raise answer
                else:
                    found += answer
        due = []
        for items in found:
            for chat, score in items:
                due.append((_text(chat), float(score)))
        due.sort(key=lambda entry: entry[1])
        return due[:limit]

    async def _due_in(self, shards: list[str], now: float, limit: int) -> list[Any]:
        """The entries of the timer index's `shards` due by `now` (one round trip per
        server)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in shards:
                pipe.zrangebyscore(shard, "-inf", now, 0, limit, withscores=True)
            return list(await pipe.execute())

    def masters(self, chat: str, *also: str) -> frozenset[str]:
        """The Cluster's masters (host:port) that the chat's game and its timer entry (and the
        keys `also`) are on, as the client's slot map says (no call to Redis); none on one
        server."""
        return self.masters_of(keys.game(chat), keys.timers(chat), *also)

    def masters_of(self, *names: str) -> frozenset[str]:
        """The Cluster's masters (host:port) that the keys `names` are on, as the client's
        slot map says (no call to Redis); none on one server."""
        if not isinstance(self.client, aioredis.RedisCluster):
            return frozenset()
        found = set()
        for key in names:
            with contextlib.suppress(SlotNotCoveredError):  # not mapped: none known
                node = self.client.get_node_from_key(key)
                if node is not None:
                    found.add(node.name)
        return frozenset(found)

    @timed("drop_timer")
    async def drop_timer(self, chat: str, deadline: float, then: float | None = None) -> bool:
        """Forget the chat's entry once handled (or move it to `then`), unless a newer
        deadline replaced it meanwhile; whether it did."""
        later = "" if then is None else repr(then)
        return bool(await self._drop(keys=[keys.timers(chat)], args=[chat, repr(deadline), later]))

    @timed("timer_counts")
    async def timer_counts(self, scope: str, before: float) -> tuple[int, int]:
        """How many chats of `scope` the timer index holds (each lobby and game in play has
        one entry), and how many of those entries are due from before `before` (every shard's,
        in one round trip per server)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in range(keys.TIMER_SHARDS):
                pipe.zcard(keys.timer_shard(scope, shard))
                pipe.zcount(keys.timer_shard(scope, shard), "-inf", f"({before!r}")
            found = await pipe.execute()
        return sum(found[0::2]), sum(found[1::2])

    # --- workers: heartbeats and journals ---------------------------------------------------

    @timed("beat")
    async def beat(self, scope: str, worker: str, now: float, gap: float, lease: float) -> Beat:
        """Note the worker's heartbeat (see `_BEAT`)."""
        last, gone, spans, seconds, micros = await self._beat(
            keys=[keys.beats(scope), keys.outages(scope)], args=[worker, repr(now), gap, lease]
        )
        outages = []
        for span in spans:
            start, _, end = _text(span).partition(":")
            outages.append((float(start), float(end)))
        return Beat(
            last=float(last) if last else None,
            gone=tuple(_text(name) for name in gone),
            outages=tuple(outages),
            server=int(seconds) + int(micros) / 1e6,
        )

    @timed("server_time")
    async def server_time(self) -> float:
        """The Redis server's clock (seconds)."""
        return await server_time(self.client)

    @timed("enlist")
    async def enlist(self, scope: str, worker: str, now: float) -> None:
        """Name a worker in its scope's heartbeats (unless it beat already)."""
        await self.client.zadd(keys.beats(scope), {worker: now}, nx=True)

    @timed("note")
    async def note(self, journal: str, chats: list[str], now: float) -> None:
        """Note in a journal that the chats were written at `now`."""
        async with self.client.pipeline(transaction=False) as pipe:
            self._noting(pipe, journal, chats, now)
            await pipe.execute()

    @staticmethod
    def _noting(
        pipe: "aioredis.client.Pipeline | aioredis.cluster.ClusterPipeline",
        journal: str,
        chats: list[str],
        now: float,
    ) -> None:
        """Add to `pipe` the note in `journal` that the chats were written at `now`."""
        pipe.zadd(journal, dict.fromkeys(chats, now))
        pipe.expire(journal, JOURNAL_TTL)

    @timed("journaled")
    async def journaled(self, journal: str, since: float) -> list[str]:
        """The chats a journal holds from `since` on, oldest first."""
        chats = await self.client.zrangebyscore(journal, since, "+inf")
        return [_text(chat) for chat in chats]

    @timed("trim")
    async def trim(self, journal: str, before: float) -> None:
        """Forget what a journal holds from before `before`."""
        await self.client.zremrangebyscore(journal, "-inf", f"({before!r}")

    @timed("adopt")
    async def adopt(
        self, scope: str, gone: str, journal: str, chats: list[str], now: float
    ) -> None:
        """Take over the journal of the worker `gone`: its chats are noted in `journal` first
        (so a crash now loses nothing), then its journal and heartbeat are forgotten."""
        if chats:
            await self.note(journal, chats, now)
        await self.client.delete(keys.journal(scope, gone))
        await self.client.zrem(keys.beats(scope), gone)

    @timed("hint_posted")
    async def hint_posted(self, chat: str, player: str, game: str, seq: int) -> bool:
        """Mark `player`'s hint for the decision `seq` of `game` as posted, for `HINT_TTL`;
        whether this was the first mark (no worker posted it yet)."""
        key = keys.hinted(chat, player, game, seq)
        return bool(await self.client.set(key, 1, nx=True, ex=HINT_TTL))

    @timed("hint_unposted")
    async def hint_unposted(self, chat: str, player: str, game: str, seq: int) -> None:
        """Take back a hint's mark (`hint_posted`): working it out failed, none was posted."""
        await self.client.delete(keys.hinted(chat, player, game, seq))

    @timed("note_review")
    async def note_review(self, scope: str, worker: str, note: str, spec: str) -> None:
        """Note a review promised by `worker` (forgotten after `REVIEW_TTL` at the latest)."""
        key = keys.reviews(scope, worker)
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(key, note, spec)
            pipe.expire(key, REVIEW_TTL)
            await pipe.execute()

    @timed("forget_reviews")
    async def forget_reviews(self, scope: str, worker: str, notes: list[str]) -> None:
        """Forget the notes of reviews handed over (or that came to nothing)."""
        if notes:
            await self.client.hdel(keys.reviews(scope, worker), *notes)

    @timed("take_reviews")
    async def take_reviews(self, scope: str, gone: str, worker: str) -> dict[str, str]:
        """Take over the reviews the worker `gone` promised: noted as `worker`'s first (so a
        crash now loses none), then forgotten as `gone`'s. At most `REVIEWS_TAKEN` of them;
        those not taken (more, or noted since they were read: a web table's worker goes on
        noting while it is taken for gone) stay as `gone`'s."""
        key = keys.reviews(scope, gone)
        found = await self.client.hgetall(key)
        notes = dict([(_text(k), _text(v)) for k, v in found.items()][:REVIEWS_TAKEN])
        if notes:
            async with self.client.pipeline(transaction=False) as pipe:
                for note, spec in notes.items():
                    pipe.hset(keys.reviews(scope, worker), note, spec)
                pipe.expire(keys.reviews(scope, worker), REVIEW_TTL)
                await pipe.execute()
            await self.client.hdel(key, *notes)
        return notes

    @timed("move_chat")
    async def move_chat(self, old: str, new: str, *extra: tuple[str, str]) -> bool:
        """Move everything of chat `old` to chat `new` (a Telegram group that became a
        supergroup gets a new id): its game, settings, finished rounds, results and stats, last
        record and timer, and the `extra` key pairs a front end keeps. False if `old` had
        nothing, or `new` has a game already (then nothing moves)."""
        pairs = [
            (keys.game(old), keys.game(new)),
            (keys.settings(old), keys.settings(new)),
            (keys.results(old), keys.results(new)),
            (keys.stats(old), keys.stats(new)),
            (keys.record(old), keys.record(new)),
            *extra,
        ]
        await self._note_move(keys=[keys.moves()], args=[f"{old} {new}"])
        if self.cluster:
            moved = await self._move_across(pairs)
        else:
            names = [name for pair in pairs for name in pair]
            moved = await self._move(keys=names, args=[])
        score = await self.client.zscore(keys.timers(old), old) if moved else None
        if score is not None:
            await self.set_timer(new, float(score))
            await self.client.zrem(keys.timers(old), old)
        self.forget(old)
        self.forget(new)
        return bool(moved)

    async def _move_across(self, pairs: list[tuple[str, str]]) -> bool:
        """`_MOVE` on a Cluster, where the two chats' keys live in different slots: each key is
        copied (DUMP, RESTORE with its time to live) and then deleted, one after another. Not
        atomic: a crash in the middle leaves some keys at each (the move is for a group that
        became a supergroup, once in its life, and the old group is not played in again)."""
        if await self.client.exists(pairs[0][1]):
            return False
        moved = False
        for old, new in pairs:
            dumped = await self.client.dump(old)
            if dumped is None:
                continue
            ttl = await self.client.pttl(old)
            await self.client.restore(new, max(0, int(ttl)), dumped, replace=True)
            await self.client.delete(old)
            moved = True
        return moved

    async def size(self, chat: str) -> int:
        """Bytes Redis uses for the chat's game hash (for the benchmark)."""
        return int(await self.client.memory_usage(keys.game(chat)) or 0)

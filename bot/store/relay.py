"""The relay of moves across workers: a web-only worker (the web table without the chat's own
front end) hands a move made on a page to the workers that run the chat's front end, which
apply it and post what it shows in the chat.

One Redis stream per scope (`keys.relay`), read by one consumer group (`GROUP`) in which each
chat worker is a consumer named as the service's worker. A worker reads what nobody was given
yet (XREADGROUP), acknowledges each entry once it is applied and shown (XACK), and takes over
entries another consumer was given and has not acknowledged for a while (XAUTOCLAIM): a worker
that died holding some leaves none behind. Whoever applies an entry applies it with the entry's
update id, which the service applies once, so an entry taken over after it was applied changes
nothing again.

A scope's relay is live while some consumer read the stream lately: before its reads (once a
second) a consumer notes the time in the scope's readers (`keys.readers`, by the Redis
server's clock, so the workers' clocks do not matter), and its reads wait at most a second, so
a live one is never long absent and one that stopped (or died) soon is. (A consumer's idle
time in XINFO CONSUMERS is not refreshed by a blocked read that finds nothing before Redis 7.2,
so it cannot tell.) A reader killed outright stays among them for a while: the web worker
that hands a move over sees a consumer take it (`given`), or takes it back (`withdraw`, in the
same step as the look, so a consumer reading at that moment has it or never will) and applies
it itself; one a consumer took and died holding, with no reader left to take it over, the web
worker takes over (`held`, `take`) and applies itself.

What a relayed request brings back: only a refusal (most requests are made, and the page sees
them made by its event stream), which whoever refused it writes beside the stream (`refuse`),
so that the web worker answers the page with it (`refusal`) once the entry is acknowledged;
one acknowledged with no note (Redis refused it) was made if its update id is marked (`made`).
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ResponseError

from bot.store import keys
from bot.store.store import RedisClient

GROUP = "workers"
"""The consumer group of a scope's chat workers."""
MAXLEN = 5000
"""Entries a relay stream keeps, about (older ones are trimmed as new ones come)."""

_PRESENT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return 0
"""
"""Note that the worker ARGV[1] reads now; forget the readers absent for ARGV[2] seconds."""

_LIVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
return #redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf', 'LIMIT', 0, 1)
"""
"""1 if some worker read within the last ARGV[1] seconds, else 0."""

_GIVEN = """
local function parsed(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local ms, seq = parsed(ARGV[2])
local groups = redis.pcall('XINFO', 'GROUPS', KEYS[1])
if type(groups) == 'table' and groups['err'] == nil then
  for _, group in ipairs(groups) do
    local said = {}
    for i = 1, #group, 2 do said[group[i]] = group[i + 1] end
    if said['name'] == ARGV[1] then
      local last_ms, last_seq = parsed(said['last-delivered-id'])
      if ms < last_ms or (ms == last_ms and seq <= last_seq) then
        return 1
      end
    end
  end
end
if ARGV[3] == '1' then
  redis.call('XDEL', KEYS[1], ARGV[2])
end
return 0
"""
"""1 if the group ARGV[1] of the stream KEYS[1] was given the entry ARGV[2] (its last delivered
id is as far: a consumer read it, whether or not it acknowledged it since), else 0, and with
ARGV[3] = 1 the entry is deleted then, in the same step: no consumer is given it after."""


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def dated(entry: str) -> float:
    """When the entry of id `entry` was added (Unix seconds, by the Redis server's clock, which
    the id's first part is in milliseconds)."""
    return int(entry.partition("-")[0] or 0) / 1000


@dataclass(frozen=True, slots=True)
class Relayed:
    """A request handed over: in `chat`, from the person `user` (their name and app language as
    the web table knew them), a request of kind `kind` (the `Kind`'s value) with `arg`, applied
    once by its `update` id."""

    chat: str
    user: str
    name: str
    language: str | None
    kind: str
    arg: str
    update: str
    entry: str = ""
    """The stream entry's id (empty until it is read back)."""

    @property
    def added(self) -> float:
        """When it was added (Unix seconds, by the Redis server's clock: the entry id's time)."""
        return dated(self.entry)

    def fields(self) -> dict[Any, Any]:
        return {
            "chat": self.chat,
            "user": self.user,
            "name": self.name,
            "language": self.language or "",
            "kind": self.kind,
            "arg": self.arg,
            "update": self.update,
        }

    @classmethod
    def of(cls, entry: object, fields: dict[bytes | str, bytes | str]) -> "Relayed":
        """An entry as read back (one not of this form has no chat)."""
        said = {_text(name): _text(value) for name, value in fields.items()}
        try:
            return cls(
                chat=said["chat"],
                user=said["user"],
                name=said["name"],
                language=said["language"] or None,
                kind=said["kind"],
                arg=said["arg"],
                update=said["update"],
                entry=_text(entry),
            )
        except KeyError:
            return cls("", "", "", None, "", "", "", entry=_text(entry))


class Relay:
    """The relay streams in the Redis of `client`."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._present = client.register_script(_PRESENT)
        self._live = client.register_script(_LIVE)
        self._given = client.register_script(_GIVEN)

    async def live(self, scope: str, within: float) -> bool:
        """Whether some worker of `scope` read its relay in the last `within` seconds."""
        return bool(await self._live(keys=[keys.readers(scope)], args=[within]))

    async def present(self, scope: str, worker: str, forget: float) -> None:
        """Note that `worker` reads the relay of `scope` now (and forget the readers that have
        not for `forget` seconds)."""
        await self._present(keys=[keys.readers(scope)], args=[worker, forget])

    async def leave(self, scope: str, worker: str) -> None:
        """`worker` reads the relay of `scope` no more (it stops)."""
        await self.client.zrem(keys.readers(scope), worker)

    async def add(self, scope: str, relayed: Relayed) -> str:
        """Hand `relayed` to the workers of `scope`; its entry id."""
        entry = await self.client.xadd(
            keys.relay(scope), relayed.fields(), maxlen=MAXLEN, approximate=True
        )
        return _text(entry)

    async def given(self, scope: str, entry: str) -> bool:
        """Whether a consumer of `scope` was given the entry `entry` (read it)."""
        return bool(await self._given(keys=[keys.relay(scope)], args=[GROUP, entry, 0]))

    async def withdraw(self, scope: str, entry: str) -> bool:
        """Take the entry `entry` back unless a consumer of `scope` was given it: True when it
        was taken back (no consumer is given it, ever: it is for the caller to apply), False
        when a consumer has it. One step, so a consumer reading at the same time either got it
        before (False) or finds it gone (True), never both."""
        return not await self._given(keys=[keys.relay(scope)], args=[GROUP, entry, 1])

    async def join(self, scope: str) -> None:
        """Make the scope's consumer group (and its stream) unless it is there: it is given
        every entry of the stream not yet given to one of its consumers."""
        try:
            await self.client.xgroup_create(keys.relay(scope), GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def read(
        self, scope: str, consumer: str, count: int, block: float | None
    ) -> list[Relayed]:
        """At most `count` entries nobody was given yet, now given to `consumer`, waiting up
        to `block` seconds for one (None: not at all). An entry not of the relay's form comes
        with no chat."""
        wait = None if block is None else max(1, int(block * 1000))
        found = await self.client.xreadgroup(
            GROUP, consumer, {keys.relay(scope): ">"}, count=count, block=wait
        )
        streams: list[Any] = list(found or ())  # [[stream, entries]] (RESP2) or a dict (RESP3)
        if isinstance(found, dict):
            streams = list(found.items())
        return [item for _stream, entries in streams for item in _entries(entries)]

    async def claim(self, scope: str, consumer: str, idle: float, count: int) -> list[Relayed]:
        """Entries given to a consumer that has not acknowledged them for `idle` seconds, now
        given to `consumer` (theirs to apply). Those trimmed from the stream meanwhile are
        forgotten by Redis."""
        answer = await self.client.xautoclaim(
            keys.relay(scope), GROUP, consumer, int(idle * 1000), "0-0", count=count
        )
        return _entries(answer[1])

    async def held(self, scope: str, entry: str) -> bool:
        """Whether a consumer of `scope` holds the entry `entry`: it was given it and has not
        acknowledged it."""
        said = await self.client.xpending_range(keys.relay(scope), GROUP, entry, entry, 1)
        return bool(said)

    async def take(self, scope: str, consumer: str, entry: str, idle: float) -> Relayed | None:
        """The entry `entry`, now given to `consumer` (its to apply), if a consumer held it
        unacknowledged for `idle` seconds; else None (acknowledged, held for less, trimmed)."""
        found: Any = await self.client.xclaim(  # (id, fields) pairs, not JUSTID
            keys.relay(scope), GROUP, consumer, int(idle * 1000), [entry]
        )
        taken = _entries(found)
        return taken[0] if taken and taken[0].chat else None

    async def refuse(self, scope: str, relayed: Relayed, answer: str, keep: float) -> None:
        """Note that `relayed` was refused with `answer` (the service's, in its asker's words),
        for `keep` seconds: written before the entry is acknowledged."""
        said = json.dumps({"user": relayed.user, "answer": answer}, ensure_ascii=False)
        await self.client.set(keys.refused(scope, relayed.update), said, px=int(keep * 1000))

    async def refusal(self, scope: str, update: str) -> tuple[str, str] | None:
        """Whose the relayed request of update id `update` was and the answer it was refused
        (or dropped) with, if that was noted; else None."""
        said = await self.client.get(keys.refused(scope, update))
        if said is None:
            return None
        noted = json.loads(said)
        return str(noted.get("user")), str(noted["answer"])

    async def made(self, chat: str, update: str) -> bool:
        """Whether a request of update id `update` was applied in `chat`: the service marks the
        update id by the write that applies it (kept a quarter of an hour, longer than an entry
        lives), so a relayed move not refused, and not marked, was not made."""
        return bool(await self.client.exists(keys.update(chat, update)))

    async def ack(self, scope: str, *entries: str) -> None:
        """The entries are done with (applied, or dropped)."""
        if entries:
            await self.client.xack(keys.relay(scope), GROUP, *entries)

    async def prune(self, scope: str) -> list[str]:
        """Forget the consumers that hold nothing and are no longer among the readers (workers
        that stopped, or died: each start is a consumer of a new name); their names."""
        try:
            consumers = await self.client.xinfo_consumers(keys.relay(scope), GROUP)
        except ResponseError:
            return []
        reading = {_text(name) for name in await self.client.zrange(keys.readers(scope), 0, -1)}
        gone = [
            _text(consumer["name"])
            for consumer in consumers
            if _text(consumer["name"]) not in reading and int(consumer["pending"]) == 0
        ]
        for name in gone:
            await self.client.xgroup_delconsumer(keys.relay(scope), GROUP, name)
        return gone

    async def hand_over(self, scope: str, worker: str, at: float) -> None:
        """Name `worker` (one that wrote chats of `scope` it does not show: a web-only worker)
        in the scope's heartbeats, with a beat from `at` unless it is named there already (as
        the service names a worker at its first write): it never beats, so a worker of the
        scope soon finds it gone, takes its journal over and shows those chats again, as after
        a crash."""
        await self.client.zadd(keys.beats(scope), {worker: at}, nx=True)


def _entries(
    entries: Iterable[tuple[object, dict[bytes | str, bytes | str] | None]],
) -> list[Relayed]:
    """Stream entries as redis-py gives them ((id, fields) pairs), read back."""
    return [Relayed.of(entry, fields or {}) for entry, fields in entries or ()]

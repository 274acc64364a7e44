"""Whether Redis takes writes now, asked without writing anything: what readiness answers
(`adapters.health`), and, on a Redis Cluster, what the service's log says of each master that
refuses writes (`Masters`: one line when it starts, one when it takes writes again).

A Redis from 7.0 on is asked `PROBE`, a script that declares no flags; a Redis before 7.0,
which cannot read that script, a `SET` of a key that never exists, only if it exists (`XX`):
each is refused exactly as a write is, and neither writes anything."""

import asyncio
import logging
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.exceptions import BusyLoadingError, ClusterDownError, ResponseError

from bot.store import keys
from bot.store.store import RedisClient, failure, refuses_writes

log = logging.getLogger(__name__)

PROBE = "#!lua\nreturn 1"
"""What each server is asked first: a script that writes nothing and declares no flags, which
Redis (7.0 on) takes for one that may write, so it refuses it as it would a write (out of
memory, unable to persist, a replica, too few replicas, loading) and nothing is written."""
PROBES_TRIED = 4096
"""Hash tags tried, at most, for a key of a Cluster master's slots (`_never_of`): a master
with a third of the slots needs three tries, on average."""
LOADING = "is loading its data"
"""What readiness says of a Redis loading its dataset (a restart: it answers LOADING)."""
CLUSTER_DOWN = "says the Redis Cluster is down"
"""What readiness says of a master whose Cluster is down (a slot no node serves: it refuses
every command on a key, its own slots' too)."""
AWAY = "does not answer"
"""What readiness says of a Redis that is not reached, or not within its timeout."""

Ask = Callable[[str, tuple[object, ...]], Awaitable[object]]
"""Send one command (its name, its arguments) to the server asked, and return its answer."""


async def takes_writes(ask: Ask, never: str | None = None) -> None:
    """Ask one server (`ask`) whether it takes writes: `PROBE`; where it answers that with an
    error that is no refusal (a Redis before 7.0 cannot read the script: "Error compiling
    script"), `SET never "" XX`, the key `never` (one of the server's own slots on a Cluster)
    never existing, so nothing is written. Raises what it answers."""
    try:
        await ask("EVAL", (PROBE, 0))
    except BusyLoadingError:
        raise
    except ResponseError as error:
        if refuses_writes(error):
            raise
        await ask("SET", (never or keys.never(), "", "XX"))


async def asked(probe: Awaitable[object], timeout: float) -> str | None:
    """What `probe` (a server asked `takes_writes`) found within `timeout`: None if the server
    takes writes, else what is wrong (it refuses them, saying why; it loads its data; it does
    not answer)."""
    try:
        await asyncio.wait_for(probe, timeout)
    except BusyLoadingError:
        return LOADING
    except ClusterDownError:
        return CLUSTER_DOWN
    except Exception as error:
        if refuses_writes(error):
            return f"refuses writes: {failure(error)}"
        if isinstance(error, ResponseError):
            return None  # it answers, though not to what it was asked (no such command)
        log.debug("Redis does not answer: %s", error)
        return AWAY
    return None


async def masters(
    cluster: aioredis.RedisCluster, timeout: float, remap: bool = False
) -> dict[str, str | None] | None:
    """Each master of the Cluster, as the client's slot map says (read anew first with
    `remap`: the client reads it only on errors of its own calls), asked at once
    (`_master_takes_writes`), each within `timeout`: its name (host:port) and what is wrong
    with it (`asked`: None if it takes writes). None if the Cluster does not answer at all."""
    if remap:
        try:
            await asyncio.wait_for(cluster.nodes_manager.initialize(), timeout)
        except Exception as error:
            log.debug("the Redis Cluster's slot map could not be read anew: %s", error)
    try:
        await asyncio.wait_for(cluster.initialize(), timeout)  # once: the map
    except Exception as error:
        log.debug("the Redis Cluster does not answer: %s", error)
        return None
    nodes = cluster.get_primaries()
    said = await asyncio.gather(
        *(asked(_master_takes_writes(cluster, node), timeout) for node in nodes)
    )
    return {node.name: what for node, what in zip(nodes, said, strict=True)}


async def _master_takes_writes(cluster: aioredis.RedisCluster, node: ClusterNode) -> None:
    """Ask a master of a Cluster whether it takes writes (`takes_writes`), and whether its
    Cluster is up (`CLUSTER INFO`): a command with no key, as `PROBE` is, runs on a Cluster
    that is down, and one with a key does not. Raises what it answers, or ClusterDownError."""

    async def ask(command: str, args: tuple[object, ...]) -> object:
        return await node.execute_command(command, *args)

    await takes_writes(ask, _never_of(cluster, node))
    info = await node.execute_command("CLUSTER INFO")
    state = info.get("cluster_state") if isinstance(info, dict) else None
    if state != "ok":
        raise ClusterDownError(f"cluster_state {state}")


def _never_of(cluster: aioredis.RedisCluster, node: ClusterNode) -> str:
    """A key that never exists (`keys.never`) in one of the slots `node` serves, as the slot
    map says (the first tried, if none of `PROBES_TRIED` is: the master then answers MOVED,
    which tells it answers)."""
    slots = cluster.nodes_manager.slots_cache
    for tag in range(PROBES_TRIED):
        key = keys.never(str(tag))
        shard = slots.get(cluster.keyslot(key))
        if shard and shard[0].name == node.name:
            return key
    return keys.never()


class Masters:
    """A Redis Cluster's masters that refuse writes (or load, or do not answer), as this worker
    last asked them, with one line in the log when a master starts and one when it takes
    writes again, whichever master the worker's writes went to meanwhile. Asked only after a
    write failed (`failed`), while some master fails, or the Cluster does not answer at all:
    nothing otherwise. A write that failed at a master that takes writes when asked (the
    failure was over by then) is said once, as brief (`_brief`)."""

    @classmethod
    def of(cls, client: RedisClient, timeout: float) -> "Masters | None":
        """The masters of `client`'s Cluster, each asked within `timeout`; None for a client
        of one server (its refusals are the whole store's)."""
        return cls(client, timeout) if isinstance(client, aioredis.RedisCluster) else None

    def __init__(self, cluster: aioredis.RedisCluster, timeout: float) -> None:
        self.cluster = cluster
        self.timeout = timeout
        self.failing: dict[str, str] = {}
        """Each master that failed when last asked, and what it answered."""
        self.away: str | None = None
        """What the writes failed with while no node of the Cluster answered, when last asked."""
        self._failed: dict[str, tuple[bool, str]] = {}
        """Whether a write since the last ask was refused, and what it failed with, by the
        master it went to ("" unknown)."""
        self._said: set[str] = set()
        """The masters whose brief failure was said since an ask found none (said once)."""

    def failed(self, error: BaseException) -> None:
        """A write failed with `error` (a refusal, Redis away, a slot moving): ask the masters
        at the next `check`."""
        self._failed.setdefault(node_of(error) or "", (refuses_writes(error), failure(error)))

    def due(self) -> bool:
        """Whether to `check`: a write failed since the last ask, some master failed then, the
        Cluster did not answer, or a brief failure was said (forgotten once none follows)."""
        return bool(self._failed or self.failing or self._said) or self.away is not None

    async def check(self) -> None:
        """Ask the masters, if `due`, and log what changed."""
        failed, self._failed = self._failed, {}
        if not failed and not self.failing and self.away is None:
            self._said.clear()  # a tick with no write failed: the next failure is said again
            return
        said = set(self.failing)  # what a write met at these is said by their own lines
        remap = bool(self.failing) or self.away is not None
        found = await masters(self.cluster, self.timeout, remap=remap)
        if found is None:
            if self.away is None:
                self.away = next(iter(failed.values()), (False, "no node answers"))[1]
                log.warning(
                    "the Redis Cluster does not answer (%s): requests are answered "
                    "that the store cannot be reached, and the deadlines wait, until it answers "
                    "again",
                    self.away,
                )
            return
        if self.away is not None:
            self.away = None
            log.info("the Redis Cluster answers again")
        for name in list(self.failing):
            if found.get(name, "") is None:
                del self.failing[name]
                log.info("Redis master %s takes writes again", name)
            elif name not in found:
                del self.failing[name]
                log.info("Redis master %s is a master no more (failed over)", name)
        for name, what in found.items():
            if what is not None and self.failing.get(name) != what:
                self.failing[name] = what
                log.warning(
                    "Redis master %s %s; the requests of its chats are answered that the store "
                    "cannot be reached, and their deadlines wait, until it takes writes again "
                    "(/readyz names it meanwhile)",
                    name,
                    what,
                )
        self._brief(failed, found, said | set(self.failing))

    def _brief(
        self, failed: dict[str, tuple[bool, str]], found: dict[str, str | None], said: set[str]
    ) -> None:
        """Say each write's failure (`failed`) whose master takes writes when asked after it
        (`found`), or is a master no more, and was not said failing (`said`, when last asked
        or now): over before the ask, no other line says it. Once for a master (what it
        failed with first) until an ask finds none: not once a write while a slot moves."""
        for name, (refused, what) in failed.items():
            if name in said or (not name and said) or name in self._said:
                continue
            self._said.add(name)
            if not name:
                where, now = "the Redis Cluster", "every master took writes"
            elif name in found:
                where, now = f"Redis master {name}", "it took writes"
            else:
                where, now = f"Redis master {name}", "it was a master no more (failed over)"
            log.warning(
                "%s %s (%s), and %s when asked after it: a brief failure, its requests "
                "answered that the store cannot be reached",
                where,
                "refused a write" if refused else "failed a command",
                what,
                now,
            )


def node_of(error: BaseException) -> str | None:
    """The Cluster node (host:port) a failed command went to, as the client notes it on the
    error (`connection`: the node, or its connection), if it does."""
    where = getattr(error, "connection", None)
    name = getattr(where, "name", None)
    if isinstance(name, str):
        return name
    host, port = getattr(where, "host", None), getattr(where, "port", None)
    return f"{host}:{port}" if isinstance(host, str) and isinstance(port, int) else None

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
    writes again, whichever master the worker's writes went to meanwhile. Asked only while
    some write was refused since (`refused`) or some master fails: nothing otherwise."""

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
        self._refused = False

    def refused(self) -> None:
        """A write was refused: ask the masters at the next `check`."""
        self._refused = True

    def due(self) -> bool:
        """Whether to ask the masters: a write was refused since the last ask, or some master
        failed then."""
        return self._refused or bool(self.failing)

    async def check(self) -> None:
        """Ask the masters, if `due`, and log what changed."""
        if not self.due():
            return
        self._refused = False
        found = await masters(self.cluster, self.timeout, remap=bool(self.failing))
        if found is None:
            return  # the Cluster does not answer: the requests say so, and the next ask
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

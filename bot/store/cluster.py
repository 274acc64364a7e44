"""The Redis Cluster client the bot uses: redis-py's, which waits out a slot being moved.

While a slot moves from one master to another (`redis-cli --cluster reshard` or `rebalance`:
SETSLOT IMPORTING and MIGRATING, MIGRATE of its keys, then SETSLOT NODE), a command naming
several of its keys is answered TRYAGAIN unless all of them are at the node it reaches; so is
each script of the bot's (a move's names an update id's key that is made by that very write).
redis-py asks again 16 times (about 0.4 s) and then raises `ClusterError`, which would refuse
the move as the store being away: this client asks again until the client's timeout has
passed. A command that ends in `ClusterError` never ran (each try was answered a redirection
or TRYAGAIN), so asking again cannot apply it twice. So too CLUSTERDOWN, a pipeline's as a
command's (`SettlingPipeline`): the client itself tries once (`bot.store.redis_client`).

A command or pipeline that cannot reach its master (the connection refused or lost) reads the
slot map anew and is sent once more if that map names another master (`failed_over`: the
master died and its replica took over), while its time (the socket timeout, from when it was
first sent) lasts: the first command after a failover is served by the new master, not
refused once while the map is read anew. A master that does not answer uses that time up, so
it still holds a command for the timeout once. Sent again only to another master, a command can
have run twice only if the dead master ran it, and its replica had it, before it took over:
not within a timeout of a second, as the nodes give a master `cluster-node-timeout` (15 s by
default) before they fail it over.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPipeline, PipelineStrategy
from redis.exceptions import ClusterError, RedisClusterException, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

SETTLE = 0.05
"""Seconds between two rounds of tries while a slot moves."""

T = TypeVar("T")

UNREACHED = (RedisConnectionError, RedisTimeoutError)
"""What a command that did not reach its node raises (refused, lost, not answered)."""


async def settled(call: Callable[[], Awaitable[T]], patience: float) -> T:
    """`call()`, made again every `SETTLE` seconds while it ends in `ClusterError` (a slot
    moving, CLUSTERDOWN), for up to `patience` seconds; then the error is raised."""
    deadline = None
    while True:
        try:
            return await call()
        except ClusterError:
            now = time.monotonic()
            if deadline is None:
                deadline = now + patience
            if now + SETTLE > deadline:
                raise
            await asyncio.sleep(SETTLE)


class SettlingCluster(aioredis.RedisCluster):
    """A Redis Cluster client that asks again, for up to its socket timeout, while a command
    meets a slot being moved (see the module)."""

    async def execute_command(self, *args: EncodableT, **kwargs: Any) -> Any:
        command = super().execute_command

        def call() -> Awaitable[Any]:
            # redis-py takes its options out of the dict it is given: each try has its own
            return command(*args, **dict(kwargs))

        if kwargs.get("target_nodes") is not None:  # the caller chose the node
            return await settled(call, self.patience())
        return await self.rerouted(call)

    async def rerouted(self, call: Callable[[], Awaitable[T]]) -> T:
        """`call()` (`settled`), made once more if it did not reach its master and the slot
        map read anew names another (`failed_over`), within the socket timeout from now."""
        deadline = time.monotonic() + self.patience()
        masters = self.masters_mapped()
        try:
            return await settled(call, self.patience())
        except UNREACHED:
            if not await self.failed_over(masters, deadline):
                raise
        return await settled(call, deadline - time.monotonic())

    def masters_mapped(self) -> frozenset[str]:
        """The masters (host:port) of the client's slot map (no call to Redis)."""
        return frozenset(node.name for node in self.get_primaries())

    async def failed_over(self, masters: frozenset[str], deadline: float) -> bool:
        """Whether one of `masters` (the slot map's, before a call that could not reach its
        master) is a master no more once the map is read anew, by `deadline` (monotonic
        seconds): it died and its replica took over. False if the map cannot be read by
        then."""
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            # not redis-py's own paced read (at most one a second): the failover may be newer
            await asyncio.wait_for(self.nodes_manager.initialize(), left)
        except (RedisError, RedisClusterException, TimeoutError):
            return False
        return time.monotonic() < deadline and not masters <= self.masters_mapped()

    def pipeline(
        self, transaction: Any | None = None, shard_hint: Any | None = None
    ) -> ClusterPipeline:
        """A pipeline that, as a command, is sent again while the Cluster answers it
        CLUSTERDOWN (a master restarted in place, for a moment), for up to the socket timeout."""
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        # redis-py's own ClusterPipeline leaves the same attribute abstract
        return SettlingPipeline(self, transaction)  # type: ignore[abstract]

    def patience(self) -> float:
        """Seconds a command is asked again for while its slot moves: the socket timeout."""
        found = self.nodes_manager.connection_kwargs.get("socket_timeout")
        return float(found) if isinstance(found, int | float) else 1.0


class SettlingPipeline(ClusterPipeline):
    """A `SettlingCluster`'s pipeline (see `SettlingCluster.pipeline`), sent once more as a
    command is (`SettlingCluster.rerouted`) unless its caller chose its nodes."""

    async def execute(
        self, raise_on_error: bool = True, allow_redirections: bool = True
    ) -> list[Any]:
        client = self.cluster_client
        assert isinstance(client, SettlingCluster)
        strategy = self._execution_strategy
        try:
            if not isinstance(strategy, PipelineStrategy):  # a transaction: sent as it was
                return await settled(
                    lambda: strategy.execute(raise_on_error, allow_redirections), client.patience()
                )
            # Each try is given the commands again: redis-py's own empties the pipeline, so a
            # second try (after CLUSTERDOWN) sent nothing and answered [] before 7 December 2026
            queued = list(strategy._command_queue)

            async def call() -> list[Any]:
                # a command answered by an earlier try keeps its answer, and is not sent again
                strategy._command_queue = list(queued)
                return await strategy.execute(raise_on_error, allow_redirections)

            if any(command.kwargs.get("target_nodes") is not None for command in queued):
                return await settled(call, client.patience())  # the caller chose the nodes
            return await client.rerouted(call)
        finally:
            await self.reset()  # type: ignore[no-untyped-call]

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
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPipeline
from redis.exceptions import ClusterError, RedisClusterException
from redis.typing import EncodableT

SETTLE = 0.05
"""Seconds between two rounds of tries while a slot moves."""

T = TypeVar("T")


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
        # redis-py takes its options out of the dict it is given: each try has its own
        return await settled(lambda: command(*args, **dict(kwargs)), self.patience())

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
    """A `SettlingCluster`'s pipeline (see `SettlingCluster.pipeline`)."""

    async def execute(
        self, raise_on_error: bool = True, allow_redirections: bool = True
    ) -> list[Any]:
        client = self.cluster_client
        assert isinstance(client, SettlingCluster)
        strategy = self._execution_strategy
        try:
            return await settled(
                lambda: strategy.execute(raise_on_error, allow_redirections), client.patience()
            )
        finally:
            await self.reset()  # type: ignore[no-untyped-call]

"""Storage: the Redis store of every chat's game (`store`), its keys (`keys`), the Redis Cluster
client (`cluster`), and the embedded redis-server the bot starts when no Redis is configured
(`redis_server`)."""

from bot.store.store import (
    RedisClient,
    Snapshot,
    Store,
    StoreErrors,
    Write,
    failure,
    reached,
    redis_client,
    refuses_writes,
    server_time,
)

__all__ = [
    "RedisClient",
    "Snapshot",
    "Store",
    "StoreErrors",
    "Write",
    "failure",
    "reached",
    "redis_client",
    "refuses_writes",
    "server_time",
]

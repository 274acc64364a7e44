"""Storage: the Redis store of every chat's game (`store`), its keys (`keys`), and the embedded
redis-server the bot starts when no Redis is configured (`redis_server`)."""

from bot.store.store import (
    RedisClient,
    Snapshot,
    Store,
    StoreErrors,
    Write,
    reached,
    redis_client,
)

__all__ = ["RedisClient", "Snapshot", "Store", "StoreErrors", "Write", "reached", "redis_client"]

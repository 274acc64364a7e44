"""Storage: the Redis store of every chat's game (`store`), its keys (`keys`), and the embedded
redis-server the bot starts when no Redis is configured (`redis_server`)."""

from bot.store.store import Snapshot, Store, StoreErrors, Write, redis_client

__all__ = ["Snapshot", "Store", "StoreErrors", "Write", "redis_client"]

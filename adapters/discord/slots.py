"""Which Discord message shows each slot (a lobby, a table, a hand), kept in Redis.

One hash per Discord channel where messages are shown (`bot.keys.discord`): the field
`<game chat>:<slot>` holds the id of the last message sent for that slot there. So a restart, or
another worker, edits the same message.
"""

import redis.asyncio as aioredis

from adapters.discord.ids import chat_key
from bot import keys

TTL = 30 * 24 * 3600
"""A channel's slot map is forgotten after this long without a post (as an untouched game is)."""


class Slots:
    def __init__(self, client: "aioredis.Redis") -> None:
        self.client = client

    async def get(self, where: int, slot: str) -> int | None:
        """The message showing `slot` in the Discord channel `where`."""
        value = await self.client.hget(keys.discord(chat_key(where)), slot)
        return int(value) if value else None

    async def set(self, where: int, slot: str, message_id: int) -> None:
        key = keys.discord(chat_key(where))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(key, slot, str(message_id))
            pipe.expire(key, TTL)
            await pipe.execute()

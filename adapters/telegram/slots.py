"""Which Telegram message shows each slot (a lobby, a table, a hand), kept in Redis.

One hash per Telegram chat where messages are shown (`bot.keys.telegram`): the field
`<game chat>:<slot>` holds the id of the last message sent for that slot there. So a restart, or
another worker, edits the same message; and a button pressed in a private chat is traced back to
the game it belongs to (the game chat whose slot that message is).
"""

import redis.asyncio as aioredis

from adapters.telegram.ids import chat_key
from bot import keys

TTL = 30 * 24 * 3600
"""A chat's slot map is forgotten after this long without a post (as an untouched game is)."""


class Slots:
    def __init__(self, client: "aioredis.Redis") -> None:
        self.client = client

    async def get(self, where: int, slot: str) -> int | None:
        """The message showing `slot` in the Telegram chat `where`."""
        value = await self.client.hget(keys.telegram(chat_key(where)), slot)
        return int(value) if value else None

    async def set(self, where: int, slot: str, message_id: int) -> None:
        key = keys.telegram(chat_key(where))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(key, slot, str(message_id))
            pipe.expire(key, TTL)
            await pipe.execute()

    async def game_of(self, where: int, message_id: int) -> str | None:
        """The game chat whose slot message in `where` is `message_id`; if it is none's (an
        older message), the only game there, if there is just one."""
        items = await self.client.hgetall(keys.telegram(chat_key(where)))
        games = set()
        for field, value in items.items():
            name = field.decode() if isinstance(field, bytes) else str(field)
            game = name.rpartition(":")[0]
            if int(value) == message_id:
                return game
            games.add(game)
        return games.pop() if len(games) == 1 else None

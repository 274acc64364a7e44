"""Discord's slot map (see `adapters.slots`): one hash per Discord channel (a game channel, or
a player's DM channel), `bot.store.keys.discord`. In a game's thread the hash also notes the
game whose players were told that the thread is locked (`first_locked`)."""

from adapters.discord.ids import chat_key
from adapters.slots import TTL, SlotMap
from bot import RedisClient
from bot.store import keys

_LOCKED = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""
"""Note game ARGV[2] in field ARGV[1]: 1, or 0 if it was noted already."""


class Slots(SlotMap):
    def __init__(self, client: RedisClient) -> None:
        super().__init__(client, lambda where: keys.discord(chat_key(where)))
        self._locked = client.register_script(_LOCKED)

    async def first_locked(self, where: int, game_id: str) -> bool:
        """Whether the thread `where` is found locked for the first time in the game `game_id`
        played there: noted in its slot map (field `<game chat>:locked`), for every worker."""
        field = f"{chat_key(where)}:locked"
        args: list[str | int] = [field, game_id, TTL]
        return int(await self._locked(keys=[self._key(where)], args=args)) == 1

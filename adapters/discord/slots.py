"""Discord's slot map (see `adapters.slots`): one hash per Discord channel (a game channel, or
a player's DM channel), `bot.store.keys.discord`. In a game's thread the hash also notes the
game whose players were told that the thread is locked (`first_locked`), and when the thread
was last found locked (`shut`), for every worker."""

from adapters.discord.ids import chat_key
from adapters.slots import LOCKED, TTL, SlotMap
from bot import RedisClient
from bot.store import keys

_LOCKED = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""
"""Note game ARGV[2] in field ARGV[1]: 1, or 0 if it was noted already."""

_SHUT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""
"""Note ARGV[2] in field ARGV[1] of a slot map that exists (the bot posted there): 1, else 0."""


def _shut_field(where: int) -> str:
    """The field of the thread's lock mark: a mark (`#`), not a slot's message."""
    return f"{chat_key(where)}#shut"


class Slots(SlotMap):
    def __init__(self, client: RedisClient) -> None:
        super().__init__(client, lambda where: keys.discord(chat_key(where)))
        self._locked = client.register_script(_LOCKED)
        self._shut = client.register_script(_SHUT)

    async def first_locked(self, where: int, game_id: str) -> bool:
        """Whether the thread `where` is found locked for the first time in the game `game_id`
        played there: noted in its slot map (field `<game chat>:locked`), for every worker."""
        field = f"{chat_key(where)}:{LOCKED}"  # no `#`: the slot map's readers skip it
        args: list[str | int] = [field, game_id, TTL]
        return int(await self._locked(keys=[self._key(where)], args=args)) == 1

    async def shut(self, where: int, at: float) -> None:
        """The thread `where` was found locked at `at` (seconds since the epoch): noted in its
        slot map (field `<game chat>#shut`), if the bot ever posted there."""
        args: list[str | int] = [_shut_field(where), repr(at), TTL]
        await self._shut(keys=[self._key(where)], args=args)

    async def shut_since(self, where: int) -> float | None:
        """When the thread `where` was last found locked (`shut`); None if it is not known
        to be."""
        at = await self.client.hget(self._key(where), _shut_field(where))
        return None if at is None else float(at)

    async def unshut(self, where: int) -> None:
        """The thread `where` is open: its lock mark goes."""
        await self.client.hdel(self._key(where), _shut_field(where))

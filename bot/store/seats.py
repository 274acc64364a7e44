"""Each person's index of their live seats: the chats where they sit at a lobby or a game in
play (`keys.seats`, under a hash tag of the person's own, as their index of chats for the stats).
A person with a seat in another chat as well is told in each private message which chat it is of
(`bot.show.places`).

The service keeps it with each write that seats or unseats people (`Table.seated` before and
after): a chat is added before its table is written and taken out after, so a crash in between
leaves a chat too many in an index, never one too few. What it finds there, checked against the
chats' tables, it marks in the chats themselves (`Store.mark`), where every read and write of a
game answers it: so a command reads no index, and only seating or unseating people does (and a
person's return to a private chat, whose games are looked up: `GameService.seated`).
"""

from collections.abc import Collection

from bot.store import keys
from bot.store.store import RedisClient


class SeatIndex:
    """The people's indexes of live seats in one Redis."""

    def __init__(self, client: RedisClient, keep: int) -> None:
        self.client = client
        self.keep = keep
        """Seconds an index lives after its last seat was added (as long as an untouched
        game's key: `bot.chat.LIVE_TTL`)."""

    async def sit(self, chat: str, people: Collection[str]) -> dict[str, set[str]]:
        """`people` have a seat at `chat`'s game now (noted before its table is written): for
        each, the other chats their index names."""
        return await self._note(chat, people, sit=True)

    async def rise(self, chat: str, people: Collection[str]) -> dict[str, set[str]]:
        """`people` have no seat at `chat`'s game any more (noted after its table is written):
        for each, the other chats their index still names."""
        return await self._note(chat, people, sit=False)

    async def _note(self, chat: str, people: Collection[str], sit: bool) -> dict[str, set[str]]:
        named = sorted(people)
        if not named:
            return {}
        async with self.client.pipeline(transaction=False) as pipe:
            for person in named:
                if sit:
                    pipe.sadd(keys.seats(person), chat)
                    pipe.expire(keys.seats(person), self.keep)
                else:
                    pipe.srem(keys.seats(person), chat)
                pipe.smembers(keys.seats(person))
            found = await pipe.execute()
        step = 3 if sit else 2
        return {
            person: {m.decode() if isinstance(m, bytes) else str(m) for m in members} - {chat}
            for person, members in zip(named, found[step - 1 :: step], strict=True)
        }

    async def of(self, person: str) -> set[str]:
        """The chats `person`'s index names (a chat too many, maybe: see above)."""
        members = await self.client.smembers(keys.seats(person))
        return {m.decode() if isinstance(m, bytes) else str(m) for m in members}

    async def moved(self, old: str, new: str, people: Collection[str]) -> None:
        """Chat `old`'s game moved to `new`: the seats of `people` there follow it."""
        await self.sit(new, people)
        await self.rise(old, people)

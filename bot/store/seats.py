"""Each person's index of their live seats: the chats where they sit at a lobby or a game in
play (`keys.seats`, under a hash tag of the person's own, as their index of chats for the stats).
A person with a seat in another chat as well is told in each private message which chat it is of
(`bot.show.places`); the index tells it with one read for all of a message's people, never a
scan of the chats.

The service keeps it with each write that seats or unseats people (`Table.seated` before and
after): a chat is added before its table is written and taken out after, so a crash in between
leaves a chat too many in an index, never one too few. A chat too many is no seat: whoever reads
the index checks the seats it names elsewhere against those chats' tables (`GameService`), and an
index left untouched for as long as a live game is kept expires.
"""

from collections.abc import Collection, Iterable

from bot.store import keys
from bot.store.store import RedisClient


class SeatIndex:
    """The people's indexes of live seats in one Redis."""

    def __init__(self, client: RedisClient, keep: int) -> None:
        self.client = client
        self.keep = keep
        """Seconds an index lives after its last seat was added (as long as an untouched
        game's key: `bot.chat.LIVE_TTL`)."""

    async def sit(self, chat: str, people: Collection[str]) -> None:
        """`people` have a seat at `chat`'s game now (noted before its table is written)."""
        if not people:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for person in people:
                pipe.sadd(keys.seats(person), chat)
                pipe.expire(keys.seats(person), self.keep)
            await pipe.execute()

    async def rise(self, chat: str, people: Collection[str]) -> None:
        """`people` have no seat at `chat`'s game any more (noted after its table is written)."""
        if not people:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for person in people:
                pipe.srem(keys.seats(person), chat)
            await pipe.execute()

    async def elsewhere(self, chat: str, people: Iterable[str]) -> dict[str, set[str]]:
        """Of `people`, those whose index names a chat besides `chat`, and those chats: one
        round trip for all of them."""
        people = sorted(set(people))
        if not people:
            return {}
        async with self.client.pipeline(transaction=False) as pipe:
            for person in people:
                pipe.smembers(keys.seats(person))
            found = await pipe.execute()
        others = {}
        for person, members in zip(people, found, strict=True):
            chats = {m.decode() if isinstance(m, bytes) else str(m) for m in members} - {chat}
            if chats:
                others[person] = chats
        return others

    async def moved(self, old: str, new: str, people: Collection[str]) -> None:
        """Chat `old`'s game moved to `new`: the seats of `people` there follow it."""
        await self.sit(new, people)
        await self.rise(old, people)

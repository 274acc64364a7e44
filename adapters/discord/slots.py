"""Discord's slot map (see `adapters.slots`): one hash per Discord channel (a game channel, or
a player's DM channel), `bot.store.keys.discord`."""

from adapters.discord.ids import chat_key
from adapters.slots import SlotMap
from bot import RedisClient
from bot.store import keys


class Slots(SlotMap):
    def __init__(self, client: RedisClient) -> None:
        super().__init__(client, lambda where: keys.discord(chat_key(where)))

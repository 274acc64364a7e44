"""Telegram's slot map (see `adapters.slots`): one hash per Telegram chat,
`bot.store.keys.telegram`."""

from adapters.slots import SlotMap
from adapters.telegram.ids import chat_key
from bot import RedisClient
from bot.store import keys


class Slots(SlotMap):
    def __init__(self, client: RedisClient) -> None:
        super().__init__(client, lambda where: keys.telegram(chat_key(where)))

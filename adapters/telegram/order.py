"""The order updates are handled in: one chat's one after another, different chats' at once.

PTB handles one update at a time unless told otherwise; then a chat whose AI seats think for a
while (the service works their moves out in a worker thread) would hold up every other chat.
`ChatOrder` lets the updates of different chats run together and keeps each chat's own in the
order they came, so a person's quick presses in one chat apply as they were made.
"""

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor


@dataclass
class _Chat:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
    """How many of the chat's updates hold the lock or wait for it."""


class ChatOrder(BaseUpdateProcessor):
    """An update processor: at most `max_concurrent_updates` updates at once, one per chat."""

    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._chats: dict[int, _Chat] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        state = self._chats.get(chat.id)
        if state is None:
            state = self._chats[chat.id] = _Chat()
        state.users += 1
        try:
            async with state.lock:  # FIFO: the chat's updates go in the order they arrived
                await coroutine
        finally:
            state.users -= 1
            if not state.users:
                del self._chats[chat.id]

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""

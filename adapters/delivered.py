"""The coach's reviews a chat front end posts, their notes forgotten once delivered: a review
promised is noted in Redis (`bot.coaching`), and its note goes only once the platform took
every post of it (`Outcome.notes`, `GameService.posted`). A review still in the outbox when its
worker is killed (the platform slow, or away and its post tried again) keeps its note, and the
worker that takes over posts it (a duplicate at worst, never a loss). So does one the outbox did
not make as it stopped (`Outbox.close`). One it gave up on while running (the platform away for
minutes, or a post it refused) is forgotten with a warning: posted again only once this worker
is gone, hours later perhaps, it would come out of the blue."""

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from adapters.outbox import Outbox
from bot.messages import Outcome
from bot.service import GameService

log = logging.getLogger(__name__)


class Delivered:
    """Forgets the notes of the reviews of one front end's service once posted."""

    def __init__(self, service: GameService, outbox: Outbox[Any]) -> None:
        self._service = service
        self._outbox = outbox
        self._waiting: set[asyncio.Task[None]] = set()

    def watch(
        self, chat: str, outcome: Outcome, posts: Sequence["asyncio.Future[object] | None"]
    ) -> None:
        """`outcome`'s posts were queued (`Outbox.put`; None: one not tried, handled otherwise):
        once all are made, its reviews' notes are forgotten."""
        if not outcome.notes:
            return
        futures = [post for post in posts if post is not None]
        task = asyncio.create_task(self._forget(chat, outcome.notes, futures))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _forget(
        self, chat: str, notes: tuple[str, ...], futures: list["asyncio.Future[object]"]
    ) -> None:
        results = await asyncio.gather(*futures, return_exceptions=True)
        if any(result is None or isinstance(result, BaseException) for result in results):
            if self._outbox.closed:  # stopping: the worker that takes over posts it
                log.warning("%s: a review was not posted; its note stays for a later worker", chat)
                return
            log.warning("%s: a review could not be posted; it is given up", chat)
        await self._service.posted(chat, notes)

    async def close(self) -> None:
        """Wait for the notes of what was posted to be forgotten (after the outbox closed,
        every post queued was made or dropped)."""
        while self._waiting:
            await asyncio.gather(*self._waiting, return_exceptions=True)

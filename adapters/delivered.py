"""The coach's reviews a chat front end posts, their notes forgotten once delivered: a review
promised is noted in Redis (`bot.coaching`), and its note goes only once the platform took
every post of it (`Outcome.notes`, `GameService.posted`). A review still in the outbox when its
worker is killed (the platform slow, or away and its post tried again) keeps its note, and the
worker that takes over posts it (a duplicate at worst, never a loss). So does one the outbox did
not make as it stopped (`Outbox.close`). One it gave up on while running (the platform away for
its two minutes of tries, or an error of ours) is posted again by this worker `AGAIN` seconds
later, its note kept meanwhile: only the messages not delivered (and what came under one of
them for its person, their hand posted again, which goes under it again), `TRIES` times in all
(the platform away for minutes, the person still waits for the review they were promised);
then it is forgotten with a warning (posted again only once this worker is gone, hours later
perhaps, it would come out of the blue)."""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from adapters.outbox import Outbox
from bot.messages import Message, Outcome
from bot.service import GameService

log = logging.getLogger(__name__)

TRIES = 3
"""How many times a review's posts are handed to the outbox at most (each with its own tries,
about two minutes)."""
AGAIN = 60.0
"""Seconds between a review's posts the outbox gave up on and their next try."""

Posts = Sequence["asyncio.Future[object] | None"]
"""What an outcome's posts will be (`Outbox.put`; None: one not tried, handled otherwise)."""


class Delivered:
    """Shows a front end's outcomes, and forgets the notes of the reviews among them once
    posted; posts again those of a review the outbox gave up on."""

    def __init__(
        self,
        service: GameService,
        outbox: Outbox[Any],
        queue: Callable[[str, Outcome], Awaitable[Posts]],
        again: float = AGAIN,
    ) -> None:
        self._service = service
        self._outbox = outbox
        self._queue = queue
        """Queues an outcome's posts in the outbox, as the front end does."""
        self._again = again
        self._waiting: set[asyncio.Task[None]] = set()
        self._closing = asyncio.Event()

    async def show(self, chat: str, outcome: Outcome) -> None:
        """Queue `outcome`'s posts; a review's (`Outcome.notes`) one message at a time, so that
        those not delivered can be told from the others: once all are made, its notes are
        forgotten."""
        if not outcome.notes:
            await self._queue(chat, outcome)
            return
        posts = [(message, await self._one(chat, outcome, message)) for message in outcome.messages]
        task = asyncio.create_task(self._forget(chat, outcome, posts))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _one(self, chat: str, outcome: Outcome, message: Message) -> Posts:
        return await self._queue(chat, replace(outcome, messages=(message,), notes=()))

    async def _forget(
        self, chat: str, outcome: Outcome, posts: list[tuple[Message, Posts]]
    ) -> None:
        for tries in range(1, TRIES + 1):
            failed = _again([(message, await _made(futures)) for message, futures in posts])
            if not failed:
                break
            if self._outbox.closed:  # stopping: the worker that takes over posts it
                log.warning("%s: a review was not posted; its note stays for a later worker", chat)
                return
            if tries == TRIES:
                log.warning("%s: a review could not be posted; it is given up", chat)
                break
            log.warning("%s: a review could not be posted; again in %.0f s", chat, self._again)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), self._again)
            if self._closing.is_set():  # its note stays for the worker that takes over
                return
            posts = [(message, await self._one(chat, outcome, message)) for message in failed]
        await self._service.posted(chat, outcome.notes)

    async def close(self) -> None:
        """Wait for the notes of what was posted to be forgotten (after the outbox closed,
        every post queued was made or dropped); a review waiting to be posted again is left to
        its note."""
        self._closing.set()
        while self._waiting:
            await asyncio.gather(*self._waiting, return_exceptions=True)


def _again(posts: list[tuple[Message, bool]]) -> list[Message]:
    """The messages of a review to post again, of its messages in order and whether each was
    made: each one not made, and every later one to the same person, made or not (their hand
    posted again under the review: `hand_again`), which goes under it again (a new message:
    the one above loses its buttons), as it was meant to."""
    again: list[Message] = []
    behind: set[str | None] = set()
    for message, made in posts:
        if not made or message.to in behind:
            again.append(message)
            behind.add(message.to)
    return again


async def _made(futures: Posts) -> bool:
    """Whether the platform took each of these posts (those tried)."""
    results = await asyncio.gather(*(f for f in futures if f is not None), return_exceptions=True)
    return not any(result is None or isinstance(result, BaseException) for result in results)

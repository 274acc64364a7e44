"""The relay of web moves to the chat workers (`bot.store.relay`): what a chat worker runs, for
its scope, beside its timer loop, so that a move made on the web table of a worker without the
chat's front end is applied and posted in the chat by one that has it.

`relay_loop` reads the scope's relay stream as a consumer named as the service's worker,
applies each request with `GameService.handle` (with the update id the web table gave it, so
it is applied once, whoever applies it and however often), has the front end `show` the
outcome as it shows its own, and acknowledges the entry. Entries another consumer was given and
has not acknowledged for `CLAIM` seconds (it died, or was cut off) are taken over and applied
the same way. A chat's entries are applied one after another, in the order read; different
chats' at the same time, while the loop goes on reading (a worker that read lately is what
makes the relay live: `Relay.live`).
"""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable

from adapters.running import Show
from bot import GameService, Kind, RedisClient, Request, StoreErrors, User, logs
from bot.show.i18n import N_, catalog_language, texts
from bot.store.relay import Relay, Relayed

log = logging.getLogger(__name__)

LIVE = 3.0
"""Seconds since some worker of a scope last read its relay within which the relay is live (a
consumer's reads wait at most `BLOCK`): a web move is then handed over, else applied where it
was made; and one handed over that no consumer was given within it is taken back and applied
where it was made (the reader that made it live was killed)."""
BLOCK = 1.0
"""Seconds a read waits for an entry, at most (less than the client's timeout: `block_for`)."""
NOTE = 1.0
"""Seconds between a worker's notes that it reads (a write each, fsynced by default)."""
CLAIM = 5.0
"""Seconds an entry given to a consumer may go unacknowledged before another takes it over."""
MAX_AGE = 60.0
"""Seconds after it was added that an entry is still applied: one older (no worker of the scope
ran meanwhile) is dropped, since the person who made it has long seen it not happen."""
FORGET = 600.0
"""Seconds after its last read that a worker is forgotten (a stopped one), and its consumer with
it once it holds nothing."""
BATCH = 16
"""Entries read, or applied at once, at most."""
TOO_LATE = N_("Your move was not made: the game could not take it in time. Try again.")
"""What the page of a move dropped as too old (`MAX_AGE`) says (`Relay.refuse`)."""


def block_for(timeout: float) -> float:
    """How long a read may wait for entries on a client whose calls give up after `timeout`."""
    return min(BLOCK, timeout / 2)


async def relay_loop(
    service: GameService,
    show: Show,
    scope: str,
    relay: Relay,
    block: float = BLOCK,
    claim: float = CLAIM,
) -> None:
    """Apply and show the requests relayed to `scope` until cancelled, by the service's clock
    (the Redis server's, as the entries' times are: by the system clock, a worker a minute
    ahead of Redis dropped every entry as too old)."""
    clock = service.clock
    consumer = service.worker
    applying: dict[str, asyncio.Task[None]] = {}  # by entry id
    last: dict[str, asyncio.Task[None]] = {}  # each chat's newest, the next one waits for it
    joined = False
    claimed = pruned = noted = 0.0
    task = asyncio.current_task()

    async def apply(entry: Relayed, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait({before})
        await apply_relayed(service, show, entry, clock, relay, scope)
        # Not acknowledged (cancelled, or Redis away): another worker takes it over and
        # applies it once, by its update id.
        with contextlib.suppress(*StoreErrors):
            await relay.ack(scope, entry.entry)

    def started(entry: Relayed) -> None:
        work = asyncio.create_task(apply(entry, last.get(entry.chat)))
        applying[entry.entry] = work
        last[entry.chat] = work

        def done(_: object) -> None:
            applying.pop(entry.entry, None)
            if last.get(entry.chat) is work:
                del last[entry.chat]

        work.add_done_callback(done)

    try:
        while True:
            if task is not None and task.cancelling():
                # A cancel that a Redis call let pass without raising (a blocking XREADGROUP can
                # return no entries instead): stop here, or the loop reads on and never ends.
                raise asyncio.CancelledError
            try:
                if not joined:
                    await relay.join(scope)
                    joined = True
                if time.monotonic() - noted >= NOTE:  # live, even while it is busy
                    await relay.present(scope, consumer, FORGET)
                    noted = time.monotonic()
                if len(applying) >= BATCH:
                    await asyncio.wait(
                        set(applying.values()), timeout=block, return_when=asyncio.FIRST_COMPLETED
                    )
                    continue
                room = BATCH - len(applying)
                found: list[Relayed] = []
                now = time.monotonic()
                if now - claimed >= 1.0:
                    found += [
                        entry
                        for entry in await relay.claim(scope, consumer, claim, room)
                        if entry.entry not in applying
                    ]
                    claimed = now
                if now - pruned >= FORGET / 10:
                    await relay.prune(scope)
                    pruned = now
                found += await relay.read(scope, consumer, room, None if found else block)
                for entry in found:
                    started(entry)
            except StoreErrors as error:
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError from error
                if "NOGROUP" in str(error):
                    joined = False  # the stream was deleted: make the group again
                else:
                    log.warning("the relay of %s cannot read: %s", scope, error)
                    await asyncio.sleep(1.0)
    finally:
        for work in applying.values():
            work.cancel()  # unacknowledged: another worker takes them over
        with contextlib.suppress(*StoreErrors):
            await relay.leave(scope, consumer)  # the web workers apply moves themselves now


async def apply_relayed(
    service: GameService,
    show: Show,
    entry: Relayed,
    clock: Callable[[], float],
    relay: Relay,
    scope: str,
) -> None:
    """Apply one relayed request and show what it shows; one that cannot be is logged. A
    refusal is noted in `relay` (`Relay.refuse`), for the page it came from: the only answer
    that comes back (a move made, the page sees by its event stream). So is a request dropped
    as too old (`TOO_LATE`), in the person's app language where a catalog has it, else the
    chat's."""
    with logs.about(entry.chat or None):
        try:
            kind = Kind(entry.kind)
        except ValueError:
            log.warning("a relayed entry %s is not a request: dropped", entry.entry)
            return
        if clock() - entry.added > MAX_AGE:
            log.warning("a relayed request from %s is too old: dropped", entry.user)
            own = catalog_language(entry.language)
            t = texts(own) if own is not None else await service.texts(entry.chat)
            await _noted(relay, scope, entry, t(TOO_LATE))
            return
        user = User(entry.user, entry.name, language=entry.language)
        try:
            outcome = await service.handle(entry.chat, user, Request(kind, entry.arg), entry.update)
            if outcome.alert and outcome.answer:
                await _noted(relay, scope, entry, outcome.answer)
            if outcome.messages:
                await show(entry.chat, outcome)
        except Exception:
            log.exception("a relayed request could not be applied")


async def _noted(relay: Relay, scope: str, entry: Relayed, answer: str) -> None:
    """Note that `entry` was not made, with `answer`, for its page (`Relay.refuse`), before it is
    acknowledged; one Redis refuses is logged."""
    try:
        await relay.refuse(scope, entry, answer, MAX_AGE)
    except StoreErrors as error:
        log.warning("the refusal of a relayed request cannot be noted: %s", error)


@contextlib.asynccontextmanager
async def relaying(
    service: GameService,
    show: Show,
    scope: str,
    client: RedisClient,
    timeout: float,
    claim: float = CLAIM,
) -> AsyncIterator[None]:
    """Run `relay_loop` for `scope` on `client` (whose calls give up after `timeout` seconds)
    while the context lasts."""
    relay = Relay(client)
    loop = asyncio.create_task(
        relay_loop(service, show, scope, relay, block=block_for(timeout), claim=claim)
    )
    try:
        yield
    finally:
        loop.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop

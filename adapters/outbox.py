"""Paced delivery to chats, newest version first (used by the Telegram and Discord front ends).

Telegram lets a bot post about 20 messages (edits included) a minute in one group and about one
a second in a private chat; beyond that it answers 429 and makes the bot wait (Discord's limits
per channel are of the same kind). So every post goes
through a queue per chat, drained by one task per chat at that chat's pace (`Budget`). While a
post for a slot (the table, a hand) waits for its turn, a newer post for the same slot replaces
it: a busy table shows its newest state at the next chance instead of replaying every step. (A
new message for the slot leaves an edit waiting to go first: the message before shows its last
state, not one long gone. A post that takes the slot's buttons off, `Message.strip`, makes a
text waiting for the slot go without them, as the strip leaves it: the text is not lost.)
The platform's own rate limiter stays underneath, for the overall limit and for 429 answers.
With `windows` (`adapters.flood`), each chat's window is kept in Redis as well, shared by every
worker and across restarts: a post goes when both this worker's pace and the shared window
allow it.

A post may take several messages (a score sheet as text, too long for one): its delivery makes
one and says what is left (`Rest`), which goes next, at the chat's pace: each message counts in
the budget and the window, and a post tried again makes only what is left.

Generic over the item and the deliver function, with an injectable clock and sleep, so it is
tested without a server.
"""

import asyncio
import contextvars
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import Field, dataclass, replace
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from bot import Message, logs
from bot.metrics import FAILED_POST, Posting

log = logging.getLogger(__name__)

T = TypeVar("T")
EPSILON = 1e-6
RETRY_FIRST = 0.5
RETRY_MOST = 4.0
"""Seconds between tries of a post that failed for a while (doubling from the first)."""
RETRIES = 30
"""Tries of one post at most (about two minutes); after that the post is given up, and what
lasts of it is shown again once the store is back (`GameService.tick`)."""


class SharedWindows(Protocol):
    """Flood windows shared by the workers (see `adapters.flood.Windows`)."""

    async def reserve(
        self, chat: str, count: int, period: float, slack: float
    ) -> tuple[float, str | None]: ...

    async def answered(self, chat: str, ticket: str, more: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class Rest(Generic[T]):
    """What a delivery returns when it made one message of its item and `item` is what is left
    of it: that goes next, first in its queue, as a post of its own (counted, paced, and tried
    again alone), merged with no newer post of its slot."""

    item: T


class SlotPost(Protocol):
    """A post for a slot, as each platform's renderer makes it (a frozen dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    """What makes it a dataclass to `dataclasses.replace`."""

    @property
    def version(self) -> tuple[str, int] | None: ...

    @property
    def notify(self) -> bool: ...

    @property
    def quiet(self) -> bool: ...

    @property
    def again(self) -> bool: ...

    @property
    def bare(self) -> bool: ...

    @property
    def delete(self) -> bool: ...

    @property
    def only_edit(self) -> bool: ...

    @property
    def behind(self) -> str | None: ...

    def unbuttoned(self, text: str | None) -> Self:
        """The post without its buttons, saying `text` instead of its own if given."""
        ...


P = TypeVar("P", bound=SlotPost)


def slot_version(message: Message, version: tuple[str, int] | None) -> tuple[str, int] | None:
    """The (game id, version) a slot post of `message` shows: the outcome's `version`, or the
    older one the message has shown since (`Message.since`); None for a message of no slot."""
    if message.slot is None or version is None:
        return None
    return version if message.since is None else (version[0], message.since)


def newest(older: P, newer: P) -> P | None:
    """Of two posts for one slot, the one to send: the newer by the game's version when both
    have one (outcomes handled at once may be queued out of order), else the later; a new
    message if either asked for one (then not an edit only, `Message.only_edit`, even if the
    newer is), with a sound if the one dropped was a new message with one (a turn's hand
    waiting for the chat's pace, replaced by the same hand posted quietly under a coach's
    review: the person is still rung for their turn); shown again only where behind if both
    were. None when the later is a new message and the one waiting an edit: both go, in order,
    for a new message leaves the slot's message before as it is (the edit is its last state: a
    hand's turn that is gone, say, no longer asked for). A bare post shown again
    (`SlotMap.unbutton`) merges with another such post only: else both go, in order, each
    deciding as it goes.
    A bare post (`Message.strip`) after a post with a text takes the buttons off that text:
    the two are that post as the strip leaves it (without buttons, saying the strip's `behind`
    if it has one), of the newer version. Kept alone, the bare post found the slot's message
    before the one waiting, or none: the waiting text never went (toggles asked for as the game
    starts, a player's result as the table it opened is cancelled). A deletion
    (`Message.delete`) after a post makes that post needless: the deletion alone goes; a post
    after a deletion goes after it."""
    unbuttons = (older.bare and older.again, newer.bare and newer.again)
    if any(unbuttons):
        return newer if all(unbuttons) else None
    old, new = older.version, newer.version
    later = not (old is not None and new is not None and old[0] == new[0] and old[1] > new[1])
    if newer.delete and later:  # what waited never goes: the slot's message, if any, is deleted
        return replace(newer, version=new or old)
    if older.delete or newer.delete:  # each goes, in order: the slot map drops an older one
        return None
    if not later:
        older, newer = newer, older
    elif newer.bare and not older.bare:
        stripped = older.unbuttoned(newer.behind)
        return replace(stripped, version=newer.version or old)
    elif newer.notify and not older.notify:
        return None
    if older.notify and not newer.notify:
        newer = replace(newer, notify=True, only_edit=False)
    if older.notify and not older.quiet and newer.quiet:  # its sound, never made, is still due
        newer = replace(newer, quiet=False)
    if newer.again and not older.again:
        newer = replace(newer, again=False)
    return newer


class Budget:
    """How fast one chat may be posted to: a token bucket of `burst` posts, refilled at `count`
    per `period` seconds, and never more than `count` posts in any `period` + `slack` seconds.
    A post is counted when the platform has answered it, so a post that was slow to arrive
    cannot crowd the next ones into one window; the slack is a margin for the platform's clock."""

    def __init__(self, count: int, period: float, burst: int = 1, slack: float = 0.0) -> None:
        self.count = count
        self.period = period
        self.slack = slack
        self.burst = max(1, min(burst, count))
        self._tokens = float(self.burst)
        self._stamp: float | None = None
        self._sent: deque[float] = deque()

    def wait(self, now: float) -> float:
        """Seconds until a post may go (0: now)."""
        self._refill(now)
        bucket = max(0.0, (1 - self._tokens) * self.period / self.count)
        window = 0.0
        if len(self._sent) >= self.count:
            window = self._sent[0] + self.period + self.slack - now
        delay = max(bucket, window)
        return delay if delay > EPSILON else 0.0  # no endless creeping up on a full token

    def take(self, now: float) -> None:
        """Count a post made at `now`."""
        self._refill(now)
        self._tokens -= 1
        self._sent.append(now)

    def idle(self, now: float) -> bool:
        """Whether nothing was posted within a period (the budget is full again)."""
        return not self._sent or self._sent[-1] <= now - self.period

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            gained = (now - self._stamp) * self.count / self.period
            self._tokens = min(float(self.burst), self._tokens + gained)
        self._stamp = now
        while self._sent and self._sent[0] <= now - self.period - self.slack:
            self._sent.popleft()


@dataclass(frozen=True)
class Limits:
    """The pace of posts per chat: group chats (channels) and private chats."""

    group_count: int = 20
    group_period: float = 60.0
    group_burst: int = 5
    private_count: int = 3
    private_period: float = 3.0
    private_burst: int = 2
    slack: float = 0.1

    def budget(self, group: bool) -> Budget:
        if group:
            return Budget(self.group_count, self.group_period, self.group_burst, self.slack)
        return Budget(self.private_count, self.private_period, self.private_burst, self.slack)

    def window(self, group: bool) -> tuple[int, float, float]:
        """(count, period, slack) of a chat's window."""
        if group:
            return self.group_count, self.group_period, self.slack
        return self.private_count, self.private_period, self.slack


FAST = Limits(1000, 1.0, 1000, 1000, 1.0, 1000, 0.0)
"""No pacing to speak of (tests)."""


@dataclass
class _Entry(Generic[T]):
    key: Hashable | None
    item: T
    waiters: list["asyncio.Future[object]"]
    tries: int = 0
    low: bool = False
    place: logs.Place = (None, None)
    """The chat and game being served when it was put: its delivery's lines are about them."""
    since: float = 0.0
    """When it (or the post it replaced) was queued."""


class _Queue(Generic[T]):
    def __init__(self, budget: Budget, window: tuple[int, float, float]) -> None:
        self.budget = budget
        self.window = window
        self.entries: deque[_Entry[T]] = deque()
        self.later: deque[_Entry[T]] = deque()
        """Posts that may wait for a lull (`put(low=True)`), the newest delivered first."""
        self.task: asyncio.Task[None] | None = None

    def __bool__(self) -> bool:
        return bool(self.entries or self.later)

    def next(self) -> _Entry[T]:
        return self.entries.popleft() if self.entries else self.later.pop()


class Outbox(Generic[T]):
    """Queues per target chat; `deliver` is called with each item in turn, at the target's
    pace (again with what is left, when it returns a `Rest`). `put` returns a future of what
    `deliver` returned last (None if it raised). A post whose
    `deliver` raised what `retry` accepts (the platform or the store away for a while) is tried
    again, first in its queue, with back-off.
    `is_group(target)` tells a group chat from a private one (default: Telegram's negative ids
    are groups). With `windows`, `chat_of(target)` names the target's shared window."""

    def __init__(
        self,
        deliver: Callable[[T], Awaitable[object]],
        limits: Limits = Limits(),
        coalesce: Callable[[T, T], T | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        keep: int = 1000,
        is_group: Callable[[Hashable], bool] = lambda target: (
            isinstance(target, int) and target < 0
        ),
        windows: SharedWindows | None = None,
        chat_of: Callable[[Hashable], str] = str,
        retry: Callable[[BaseException], bool] = lambda _error: False,
        posting: Posting | None = None,
    ) -> None:
        self._deliver = deliver
        self._limits = limits
        self._coalesce: Callable[[T, T], T | None] = coalesce or (lambda _older, newer: newer)
        self._clock = clock
        self._sleep = sleep
        self._keep = keep
        self._is_group = is_group
        self._windows = windows
        self._chat_of = chat_of
        self._retry = retry
        self._queues: dict[Hashable, _Queue[T]] = {}
        self._closed = False
        self._posting = posting
        """What the posts are counted in (their results, waits and retries, the queues)."""
        if posting is not None:
            posting.waiting(self._depth)

    def put(
        self, target: Hashable, item: T, key: Hashable | None = None, low: bool = False
    ) -> "asyncio.Future[object]":
        """Queue `item` for `target`. With a `key`, it replaces the last waiting item of the
        same key (merged by `coalesce`; both stay if that says None), and goes in its place at
        the end of the queue. A `low`
        item (tidying up, such as taking the buttons off an old message) goes only when nothing
        else waits for the target, the newest low item first."""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        if self._closed:
            future.set_result(None)
            return future
        queue = self._queues.get(target)
        if queue is None:
            if len(self._queues) >= self._keep:
                self._forget_idle()
            group = self._is_group(target)
            queue = _Queue(self._limits.budget(group), self._limits.window(group))
            self._queues[target] = queue
        waiters = [future]
        since = self._clock()
        line = queue.later if low else queue.entries
        if key is not None:
            for entry in reversed(line):
                if entry.key == key:
                    merged = self._coalesce(entry.item, item)
                    if merged is None:
                        break  # both go, the one waiting first
                    line.remove(entry)
                    item = merged
                    waiters = [*entry.waiters, future]
                    since = entry.since
                    break
        line.append(_Entry(key, item, waiters, low=low, place=logs.here(), since=since))
        if queue.task is None or queue.task.done():
            # in a context of its own: each post is delivered about the place it was put in
            drain = self._drain(target, queue)
            queue.task = asyncio.create_task(drain, context=contextvars.Context())
        return future

    @property
    def closed(self) -> bool:
        """Whether `close` was called: a post not made since was dropped, not given up on."""
        return self._closed

    def _depth(self) -> int:
        """Posts waiting, in every queue."""
        return sum(len(queue.entries) + len(queue.later) for queue in self._queues.values())

    def waiting(self, target: Hashable) -> list[T]:
        """The items waiting for `target`, in order (for tests and logs)."""
        queue = self._queues.get(target)
        return [] if queue is None else [entry.item for entry in (*queue.entries, *queue.later)]

    async def _drain(self, target: Hashable, queue: _Queue[T]) -> None:
        while queue:
            delay = queue.budget.wait(self._clock())
            ticket = None
            if delay <= 0 and self._windows is not None:
                delay, ticket = await self._windows.reserve(self._chat_of(target), *queue.window)
            if delay > 0:
                await self._sleep(delay)  # newer versions may replace what waits meanwhile
                continue
            entry = queue.next()
            result: object = None
            try:
                with logs.about(*entry.place):
                    result = await self._deliver(entry.item)
                    log.debug("posted to %s: %s", target, result)
            except asyncio.CancelledError:
                for waiter in entry.waiters:
                    if not waiter.done():
                        waiter.set_result(None)
                raise
            except Exception as error:
                if self._retry(error) and entry.tries < RETRIES and not self._closed:
                    entry.tries += 1
                    wait = min(RETRY_MOST, RETRY_FIRST * 2 ** (entry.tries - 1))
                    with logs.after(error):
                        log.warning(
                            "could not post to chat %s (%s); again in %.1f s", target, error, wait
                        )
                    # first again in its line; a newer post for its slot replaces it meanwhile
                    (queue.later.append if entry.low else queue.entries.appendleft)(entry)
                    if self._posting is not None:
                        self._posting.retried()
                    if ticket is not None and self._windows is not None:
                        await self._windows.answered(self._chat_of(target), ticket, True)
                    await self._sleep(wait)
                    continue
                log.exception("could not post to chat %s", target)
            # Counted when the platform has answered: the post reached it by then, however long
            # the way there took (a slow network, or a retry after the overall limit's 429).
            queue.budget.take(self._clock())
            if isinstance(result, Rest):
                entry.item, entry.key, entry.tries = result.item, None, 0
                (queue.later.append if entry.low else queue.entries.appendleft)(entry)
                if ticket is not None and self._windows is not None:
                    await self._windows.answered(self._chat_of(target), ticket, True)
                continue
            if self._posting is not None:
                done = getattr(result, "value", FAILED_POST)  # a delivery (an enum), or failed
                self._posting.posted(str(done), self._clock() - entry.since)
            if ticket is not None and self._windows is not None:
                more = bool(queue)
                await self._windows.answered(self._chat_of(target), ticket, more)
            for waiter in entry.waiters:
                if not waiter.done():
                    waiter.set_result(result)

    def _forget_idle(self) -> None:
        """Drop the queues of chats with nothing waiting and a full budget."""
        now = self._clock()
        for target, queue in list(self._queues.items()):
            running = queue.task is not None and not queue.task.done()
            if not queue and not running and queue.budget.idle(now):
                del self._queues[target]

    async def flush(self) -> None:
        """Wait until every queue is empty and every post made."""
        while True:
            tasks = [q.task for q in self._queues.values() if q.task and not q.task.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self, timeout: float = 5.0) -> bool:
        """Post what waits (for at most `timeout` seconds), then stop; later puts are dropped.
        Whether all that waited was posted (or given up on) in time."""
        self._closed = True
        flushed = True
        try:
            await asyncio.wait_for(self.flush(), timeout)
        except TimeoutError:
            log.warning("stopping with posts still waiting")
            flushed = False
        for queue in self._queues.values():
            if queue.task is not None and not queue.task.done():
                queue.task.cancel()
        tasks = [q.task for q in self._queues.values() if q.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        self._queues.clear()
        return flushed

"""The timer loop: every worker runs one for its scope (the chats of its platform); each beats,
shows again what a gone worker may have left unposted, and fires the turn deadlines that are due
(`GameService.tick`); between ticks it shows the AI moves made aside as soon as they are made.

Deadlines live in the tables and are indexed in Redis, so any number of workers may run this
loop at once: the store's transactions let exactly one apply each timeout.
"""

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable

from bot import logs
from bot.messages import Outcome
from bot.service import GameService

log = logging.getLogger(__name__)

Show = Callable[[str, Outcome], Awaitable[None]]
"""What a front end does with a timeout's outcome in a chat (send its messages)."""


async def timer_loop(service: GameService, show: Show, scope: str, interval: float = 1.0) -> None:
    """Tick for the chats of `scope` every `interval` seconds until cancelled; a failure to show
    one outcome is logged and does not stop the loop.

    A cancellation that lands inside a Redis call may come out as a Redis error (the client
    turns what breaks a command into a connection error), which `tick` takes for Redis
    being away. So the loop also ends when its task was asked to cancel, whatever came of it:
    a front end that stops never waits on it forever.

    Meanwhile the scope's live games and overdue timers are read when the metrics are scraped
    (`GameService.count_timers`)."""
    service.metrics.probe(f"timers {scope}", functools.partial(service.count_timers, scope))
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    failing = logs.Recurring()
    while True:
        try:
            shown = await service.tick(scope)
            failing.worked()
        except Exception as error:  # a bug must not stop every chat's deadlines: again next tick
            failing.failed(log, error, "the timer tick of %s failed", scope)
            shown = []
        await _show_each(show, shown)
        if task is not None and task.cancelling():
            raise asyncio.CancelledError
        # Till the next tick, what AI moves made aside show is shown as soon as they are made
        # (a run a tick started, which a player's move may have left its moves to).
        # It waits at least once, so that the loop yields to the others even with no interval.
        ticks = loop.time() + interval
        while True:
            made = await service.made_aside(scope, ticks - loop.time())
            try:
                await _show_each(show, made)
            finally:
                service.shown_aside(made)
            if task is not None and task.cancelling():
                raise asyncio.CancelledError
            if loop.time() >= ticks:
                break


async def _show_each(show: Show, shown: list[tuple[str, Outcome]]) -> None:
    """Show each outcome in its chat; one that fails is logged, and the others are shown."""
    for chat, outcome in shown:
        game = outcome.version[0] if outcome.version is not None else None
        with logs.about(chat, game):
            try:
                await show(chat, outcome)
            except Exception:
                log.exception("could not show a timeout in %s", chat)


async def stop_timer_loop(task: "asyncio.Task[None] | None") -> None:
    """Cancel a front end's timer loop and wait until it has ended."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

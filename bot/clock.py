"""The time a chat worker goes by: the Redis server's clock (`ServerClock`).

Deadlines, heartbeats and outages are compared across workers, so each goes by the one clock
they share, Redis's, read at every beat (`GameService.tick`) and carried on between beats by
the worker's steady clock: a step of a worker's own clock (NTP, a VM resumed, an operator)
then moves no deadline and makes no outage. A process that runs no tick (the web table's
worker, the terminal table) reads it again and again instead (`keeping`).
"""

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from bot.store.store import StoreErrors

EVERY = (1.0, 60.0)
"""Seconds between reads of the Redis server's clock by a process that runs no tick, until it is
first read (Redis away at the start: till then it goes by its own), and then (the steady clock
that carries it on drifts a little)."""


class ServerClock:
    """Now, by the Redis server's clock as last read, plus the steady time since; the worker's
    own (`wall`) until it is first read."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        steady: Callable[[], float] = time.monotonic,
    ) -> None:
        self._wall = wall
        self._steady = steady
        self._offset: float | None = None
        """The server's time less the steady clock's, at the last reading."""

    def __call__(self) -> float:
        if self._offset is None:
            return self._wall()
        return self._steady() + self._offset

    @property
    def anchored(self) -> bool:
        """Whether the server's clock was read yet."""
        return self._offset is not None

    def anchor(self, server: float) -> None:
        """The Redis server's time, just read (off by its answer's way back: a millisecond)."""
        self._offset = server - self._steady()


async def keeping(
    clock: ServerClock, read: Callable[[], Awaitable[float]], every: tuple[float, float] = EVERY
) -> None:
    """Anchor `clock` to the Redis server's time as `read` gives it, again and again until
    cancelled (`EVERY`: each second until it is read, then each minute), riding over a Redis
    away; for a process that runs no tick, which has read it once at its start."""
    until, then = every
    while True:
        await asyncio.sleep(then if clock.anchored else until)
        with contextlib.suppress(*StoreErrors):
            clock.anchor(await read())

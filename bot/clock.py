"""The time a chat worker goes by: the Redis server's clock (`ServerClock`).

Deadlines, heartbeats and outages are compared across workers, so each goes by the one clock
they share, Redis's, read at every beat (`GameService.tick`) and carried on between beats by
the worker's steady clock: a step of a worker's own clock (NTP, a VM resumed, an operator)
then moves no deadline and makes no outage.
"""

import time
from collections.abc import Callable


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
